package envelope

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
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

// Use selects the back end: "libcrypto" (loaded now; an error if it
// cannot be), "go", or "auto": go at once, and libcrypto as soon as it
// has loaded in the background, if it loads. Loading OpenSSL (dlopen
// and its provider start-up) takes 5 to 80 ms on the build VM, which
// must not delay start-up; the back ends are byte-identical, so answers
// signed before the switch are the same. The choice is process-wide,
// like the library itself.
func Use(name string) error {
	switch name {
	case BackendGo:
		set(goBackend{})
	case BackendLibcrypto:
		lc, err := loadLibcrypto()
		if err != nil {
			return fmt.Errorf("crypto back end libcrypto: %w", err)
		}
		set(lc)
	case BackendAuto, "":
		useAuto()
	default:
		return fmt.Errorf("crypto back end %q: want auto, libcrypto or go", name)
	}
	return nil
}

func set(b backend) *backend {
	p := &b
	active.Store(p)
	return p
}

func useAuto() {
	interim := set(goBackend{})
	go func() {
		if lc, err := loadLibcrypto(); err == nil {
			// Unless Use chose again meanwhile.
			var b backend = lc
			active.CompareAndSwap(interim, &b)
		}
	}()
}

var autoOnce sync.Once

// current is the selected back end; until Use is called, auto's.
func current() backend {
	if b := active.Load(); b != nil {
		return *b
	}
	autoOnce.Do(func() {
		if active.Load() == nil {
			useAuto()
		}
	})
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
