package sim

import "github.com/rewardsim/rewardsim/sim/internal/envelope"

// Crypto back ends for UseCrypto.
const (
	CryptoAuto      = envelope.BackendAuto
	CryptoLibcrypto = envelope.BackendLibcrypto
	CryptoGo        = envelope.BackendGo
)

// UseCrypto selects how every RSA signature is made and checked, for the
// whole process: "libcrypto" (the system's OpenSSL 3, loaded at run time;
// an error if it cannot be), "go" (crypto/rsa), or "auto" (libcrypto when
// it loads, else go). The choice never changes a byte on the wire.
func UseCrypto(name string) error { return envelope.Use(name) }

// Crypto names the RSA back end in use: "libcrypto" or "go".
func Crypto() string { return envelope.Backend() }
