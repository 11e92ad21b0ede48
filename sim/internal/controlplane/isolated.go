package controlplane

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"

	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/token"
)

// Credentials are a channel's fresh secrets, handed out once, in the
// answer that made it: the store keeps only the public key and a hash
// of the secKey.
type Credentials struct {
	AppKey      string `json:"appKey,omitempty"`
	SecKey      string `json:"secKey,omitempty"`
	Certificate string `json:"certificate,omitempty"` // the public key, PEM
	PrivateKey  string `json:"privateKey,omitempty"`  // PKCS#8, PEM
}

// isolate gives a copy made like another channel fresh credentials (an
// appKey/secKey pair and an RSA key pair) wherever the spec gives none,
// when the spec asks for it or the box is shared: a copy of channel B
// made for job A must not hold B's credentials, or A could act as B
// (issue 42). What the spec gives is kept; Fresh says what was made.
func (p *Plane) isolate(spec *ChannelSpec) error {
	if !spec.Isolated && !p.sharedBox {
		return nil
	}
	spec.Isolated = true
	fresh := &Credentials{}
	if spec.Certificate == "" {
		key, err := rsa.GenerateKey(p.rand, 2048)
		if err != nil {
			return err
		}
		pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
		if err != nil {
			return err
		}
		priv, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return err
		}
		spec.Certificate = string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))
		fresh.Certificate = spec.Certificate
		fresh.PrivateKey = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: priv}))
	}
	hasSec := spec.SecKey != "" || spec.SecKeyHash != "" // a stored spec (PATCH) keeps only the hash
	if spec.AppKey == "" && !hasSec {
		app, err := token.NewOpaque(p.rand, 12)
		if err != nil {
			return err
		}
		sec, err := token.NewOpaque(p.rand, 24)
		if err != nil {
			return err
		}
		spec.AppKey, spec.SecKey = spec.Name+"-"+app, sec
		fresh.AppKey, fresh.SecKey = spec.AppKey, spec.SecKey
	} else if spec.AppKey == "" || !hasSec {
		return refuse(refusal.Invalid, "an isolated copy takes both appKey and secKey, or neither (then fresh ones are made)")
	}
	spec.Fresh = fresh
	return nil
}
