// Package certs embeds the test-only development keys (see README.md in
// this folder): never trust them anywhere but a local simulator.
package certs

import "embed"

// FS holds the PEM files.
//
//go:embed *.key *.crt
var FS embed.FS

// Names of the embedded files.
const (
	ServiceKey    = "service-dev.key"
	ServiceCert   = "service-dev.crt"
	PublisherKey  = "publisher-dev.key"
	PublisherCert = "publisher-dev.crt"
)
