package envelope

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"time"
)

// Key sizes the simulator accepts (AUTH-4). The contract does not show the
// size, so every size a bank plausibly uses is accepted.
const (
	MinKeyBits = 2048
	MaxKeyBits = 4096
)

// PublicKeyPEM is pub as a PEM "PUBLIC KEY" block (PKIX), which
// ParsePublicKeyPEM reads back.
func PublicKeyPEM(pub *rsa.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// ParsePublicKeyPEM reads an RSA public key from a PEM X.509 certificate,
// a PKIX "PUBLIC KEY" or a PKCS#1 "RSA PUBLIC KEY" block.
func ParsePublicKeyPEM(data []byte) (*rsa.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block found")
	}
	var pub any
	switch block.Type {
	case "CERTIFICATE":
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate: %w", err)
		}
		pub = cert.PublicKey
	case "PUBLIC KEY":
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("public key: %w", err)
		}
		pub = k
	case "RSA PUBLIC KEY":
		k, err := x509.ParsePKCS1PublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("RSA public key: %w", err)
		}
		pub = k
	default:
		return nil, fmt.Errorf("PEM block %q is not a certificate or public key", block.Type)
	}
	rk, ok := pub.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("key is %T, not RSA", pub)
	}
	return rk, checkSize(rk.N.BitLen())
}

// ParsePrivateKeyPEM reads an RSA private key in PKCS#1 or PKCS#8.
func ParsePrivateKeyPEM(data []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block found")
	}
	var key *rsa.PrivateKey
	switch block.Type {
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PKCS#1 key: %w", err)
		}
		key = k
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PKCS#8 key: %w", err)
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("key is %T, not RSA", k)
		}
		key = rk
	default:
		return nil, fmt.Errorf("PEM block %q is not a private key", block.Type)
	}
	key.Precompute()
	return key, checkSize(key.N.BitLen())
}

func checkSize(bits int) error {
	if bits < MinKeyBits || bits > MaxKeyBits {
		return fmt.Errorf("RSA key of %d bits: the simulator accepts %d to %d", bits, MinKeyBits, MaxKeyBits)
	}
	return nil
}

// NewKeyPair makes an RSA key and a self-signed certificate for it, both
// PEM-encoded (the key as PKCS#8). commonName names the holder.
func NewKeyPair(bits int, commonName string, now time.Time, validFor time.Duration) (keyPEM, certPEM []byte, err error) {
	if err := checkSize(bits); err != nil {
		return nil, nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"rewardsim test-only"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validFor),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	p8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8})
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return keyPEM, certPEM, nil
}
