package calibrate

import (
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/scenarios"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// LoadKey reads the publisher's RSA private key: PEM (PKCS#1 or PKCS#8),
// or a PKCS#12 bundle (.p12, .pfx) opened with password.
func LoadKey(data []byte, password string) (*rsa.PrivateKey, error) {
	if block, _ := pem.Decode(data); block != nil {
		return envelope.ParsePrivateKeyPEM(data)
	}
	key, _, _, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		return nil, fmt.Errorf("neither a PEM key nor a PKCS#12 bundle this password opens: %w", err)
	}
	rk, ok := key.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("the PKCS#12 bundle's key is not an RSA key")
	}
	return rk, nil
}

// LoadServiceCert reads the service's public key: a PEM certificate or
// public key, or a PKCS#12 bundle's certificate.
func LoadServiceCert(data []byte, password string) (*rsa.PublicKey, error) {
	if block, _ := pem.Decode(data); block != nil {
		return envelope.ParsePublicKeyPEM(data)
	}
	_, cert, _, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		return nil, fmt.Errorf("neither a PEM certificate nor a PKCS#12 bundle: %w", err)
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("the certificate's key is not an RSA key")
	}
	return pub, nil
}

// LoadScenario reads and compiles a scenario file the way serve does: an
// overlay extends a scenario of its folder or an embedded one.
func LoadScenario(path string) (*scenario.Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseScenario(path, data)
}

// ParseScenario compiles scenario YAML named name (its path, for its
// folder's certificate files and bases).
func ParseScenario(name string, data []byte) (*scenario.Scenario, error) {
	set, err := schema.Embedded()
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(name)
	base := func(n string) ([]byte, bool) {
		if strings.ContainsAny(n, "/\\") {
			return nil, false
		}
		if b, err := os.ReadFile(filepath.Join(dir, n+".yaml")); err == nil {
			return b, true
		}
		b, err := fs.ReadFile(scenarios.FS, n+".yaml")
		return b, err == nil
	}
	return scenario.Parse(name, data, set, scenario.Sources{Files: os.DirFS(dir), Builtin: certs.FS, Base: base})
}
