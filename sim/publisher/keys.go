package publisher

import (
	"crypto/rsa"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/envelope"
)

// Envelope is the signed envelope {CHANNELID, SIGN, BDATA} of a request
// or an answer (ENV-1): BDATA is base64 of the UTF-8 JSON payload, SIGN is
// base64 of SHA256withRSA over the BDATA string. An answer's CHANNELID is
// the service's own identifier (ENV-3).
type Envelope struct {
	CHANNELID string `json:"CHANNELID"`
	SIGN      string `json:"SIGN,omitempty"`
	BDATA     string `json:"BDATA"`
}

// ParsePrivateKeyPEM reads an RSA private key (PKCS#1 or PKCS#8 PEM).
func ParsePrivateKeyPEM(data []byte) (*rsa.PrivateKey, error) {
	return envelope.ParsePrivateKeyPEM(data)
}

// ParsePublicKeyPEM reads an RSA public key from a certificate, PKIX or PKCS#1 PEM.
func ParsePublicKeyPEM(data []byte) (*rsa.PublicKey, error) { return envelope.ParsePublicKeyPEM(data) }

// NewKeyPair makes a PEM key (PKCS#8) and a self-signed PEM certificate.
func NewKeyPair(bits int, commonName string, now time.Time, validFor time.Duration) (keyPEM, certPEM []byte, err error) {
	return envelope.NewKeyPair(bits, commonName, now, validFor)
}

// Seal signs payload into an envelope from channelID, the way the contract
// asks: SHA256withRSA over the base64 BDATA string.
func Seal(key *rsa.PrivateKey, channelID string, payload any) (Envelope, error) {
	env, err := envelope.Seal(key, channelID, payload)
	return Envelope(env), err
}

// Sign signs a base64 BDATA string.
func Sign(key *rsa.PrivateKey, bdata string) (string, error) { return envelope.Sign(key, bdata) }

// Verify checks a SIGN over a base64 BDATA string.
func Verify(pub *rsa.PublicKey, bdata, sign string) error { return envelope.Verify(pub, bdata, sign) }
