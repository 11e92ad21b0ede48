// Package certs embeds the test-only development keys (see README.md in
// this folder): never trust them anywhere but a local simulator.
package certs

import "embed"

// FS holds every form of both pairs (PEM, DER, PKCS#12) and README.md,
// so a container user can fetch them from GET /__sim/certs/.
//
//go:embed *.key *.crt *.der *.p12 README.md
var FS embed.FS

// P12Password opens both .p12 keystores (test-only, public on purpose).
const P12Password = "rewardsim-test-only"

// Names of the embedded files.
const (
	ServiceKey    = "service-dev.key"
	ServiceCert   = "service-dev.crt"
	PublisherKey  = "publisher-dev.key"
	PublisherCert = "publisher-dev.crt"
)
