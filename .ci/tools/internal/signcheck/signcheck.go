// Package signcheck verifies a rewardsim answer the way a publisher does:
// SHA256withRSA over the BDATA string, with the certificate the control
// API serves.
package signcheck

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
)

// ServicePub fetches GET /__sim/certs/service.pem from control (a base URL).
func ServicePub(control string) (*rsa.PublicKey, error) {
	res, err := http.Get(control + "/__sim/certs/service.pem")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("service.pem: HTTP %d %s", res.StatusCode, data)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, err
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("service.pem holds a %T, not an RSA key", cert.PublicKey)
	}
	return pub, nil
}

// Verify checks SIGN over the BDATA string, as the contract signs.
func Verify(pub *rsa.PublicKey, bdata, sign string) error {
	sig, err := base64.StdEncoding.DecodeString(sign)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(bdata))
	return rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig)
}
