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
	rk, err := parsePEM[*rsa.PublicKey](data, publicBlocks, "a certificate or public key")
	if err != nil {
		return nil, err
	}
	return rk, checkSize(rk.N.BitLen())
}

// ParsePrivateKeyPEM reads an RSA private key in PKCS#1 or PKCS#8.
func ParsePrivateKeyPEM(data []byte) (*rsa.PrivateKey, error) {
	key, err := parsePEM[*rsa.PrivateKey](data, privateBlocks, "a private key")
	if err != nil {
		return nil, err
	}
	key.Precompute()
	return key, checkSize(key.N.BitLen())
}

// pemBlock is how a PEM block type is read: what it holds (for an
// error) and its parser.
type pemBlock struct {
	what  string
	parse func([]byte) (any, error)
}

var (
	publicBlocks = map[string]pemBlock{
		"CERTIFICATE": {"certificate", func(b []byte) (any, error) {
			cert, err := x509.ParseCertificate(b)
			if err != nil {
				return nil, err
			}
			return cert.PublicKey, nil
		}},
		"PUBLIC KEY":     {"public key", x509.ParsePKIXPublicKey},
		"RSA PUBLIC KEY": {"RSA public key", func(b []byte) (any, error) { return x509.ParsePKCS1PublicKey(b) }},
	}
	privateBlocks = map[string]pemBlock{
		"RSA PRIVATE KEY": {"PKCS#1 key", func(b []byte) (any, error) { return x509.ParsePKCS1PrivateKey(b) }},
		"PRIVATE KEY":     {"PKCS#8 key", x509.ParsePKCS8PrivateKey},
	}
)

// parsePEM reads data's first PEM block with the parser of its type in
// blocks, and wants a K (an RSA key) of it; expected says what blocks
// read, for a block of another type.
func parsePEM[K any](data []byte, blocks map[string]pemBlock, expected string) (K, error) {
	var zero K
	block, _ := pem.Decode(data)
	if block == nil {
		return zero, errors.New("no PEM block found")
	}
	b, ok := blocks[block.Type]
	if !ok {
		return zero, fmt.Errorf("PEM block %q is not %s", block.Type, expected)
	}
	k, err := b.parse(block.Bytes)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", b.what, err)
	}
	rk, ok := k.(K)
	if !ok {
		return zero, fmt.Errorf("key is %T, not RSA", k)
	}
	return rk, nil
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
