package envelope

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync/atomic"
)

// Names of the signing back ends.
const (
	BackendGo        = "go"        // crypto/rsa
	BackendLibcrypto = "libcrypto" // the system's OpenSSL 3, loaded at run time
	BackendAuto      = "auto"      // libcrypto when it loads, else go
)

// backend signs and verifies SHA256withRSA (PKCS#1 v1.5) over msg. Both
// back ends are deterministic and byte-identical (TestBackendsAgree), so
// which one runs is invisible on the wire. Neither caches a signature or
// a verification: every call does the RSA operation.
type backend interface {
	name() string
	sign(key *rsa.PrivateKey, msg []byte) ([]byte, error)
	verify(pub *rsa.PublicKey, msg, sig []byte) error
}

var active atomic.Pointer[backend]

// Backend names the back end in use: "libcrypto" or "go".
func Backend() string { return current().name() }

// Use selects the back end: "libcrypto" (an error if the library cannot
// be loaded), "go", or "auto" (libcrypto when it loads, else go). The
// choice is process-wide, like the library itself.
func Use(name string) error {
	var b backend
	switch name {
	case BackendGo:
		b = goBackend{}
	case BackendLibcrypto, BackendAuto, "":
		lc, err := loadLibcrypto()
		switch {
		case err == nil:
			b = lc
		case name == BackendLibcrypto:
			return fmt.Errorf("crypto back end libcrypto: %w", err)
		default:
			b = goBackend{}
		}
	default:
		return fmt.Errorf("crypto back end %q: want auto, libcrypto or go", name)
	}
	active.Store(&b)
	return nil
}

// current is the selected back end; until Use is called, auto's choice
// (made on first use, so a process that never signs never loads libcrypto).
func current() backend {
	if b := active.Load(); b != nil {
		return *b
	}
	_ = Use(BackendAuto) // cannot fail: auto falls back to go
	return *active.Load()
}

// goBackend is crypto/rsa: always available, the static build's only one.
type goBackend struct{}

func (goBackend) name() string { return BackendGo }

func (goBackend) sign(key *rsa.PrivateKey, msg []byte) ([]byte, error) {
	sum := sha256.Sum256(msg)
	return rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
}

func (goBackend) verify(pub *rsa.PublicKey, msg, sig []byte) error {
	sum := sha256.Sum256(msg)
	if rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig) != nil {
		return ErrBadSignature
	}
	return nil
}

// errNoLibcrypto is why a build cannot use libcrypto at all.
var errNoLibcrypto = errors.New("this build has no cgo (CGO_ENABLED=0): only crypto/rsa")
