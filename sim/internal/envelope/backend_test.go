package envelope

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"
)

// libcryptoOrSkip returns the libcrypto back end. `make test` sets
// REWARDSIM_REQUIRE_LIBCRYPTO=1 (after making sure libcrypto.so.3 is
// installed), so there a missing back end fails instead of skipping.
func libcryptoOrSkip(t testing.TB) backend {
	t.Helper()
	lc, err := loadLibcrypto()
	if err != nil {
		if os.Getenv("REWARDSIM_REQUIRE_LIBCRYPTO") == "1" {
			t.Fatalf("libcrypto back end required but unavailable: %v", err)
		}
		t.Skipf("libcrypto back end unavailable: %v", err)
	}
	return lc
}

// Both back ends make byte-identical PKCS#1 v1.5 SHA-256 signatures
// (the scheme is deterministic) and each verifies the other's, over
// random payloads and keys from 2048 to 4096 bits; each refuses a
// tampered payload or signature.
func TestBackendsAgree(t *testing.T) {
	lc := libcryptoOrSkip(t)
	gb := goBackend{}
	seed := uint64(mrand.Int64())
	t.Logf("seed %d", seed)
	rng := mrand.New(mrand.NewPCG(seed, seed>>1))

	keys := []*rsa.PrivateKey{mustKey(t, "rsa2048"), mustKey(t, "rsa3072"), mustKey(t, "rsa4096")}
	// Fresh keys of random sizes (a multiple of 8 bits between the bounds).
	for range 3 {
		bits := MinKeyBits + 8*rng.IntN((MaxKeyBits-MinKeyBits)/8+1)
		k, err := rsa.GenerateKey(rand.Reader, bits)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	for _, key := range keys {
		t.Run(fmt.Sprintf("%d-bit", key.N.BitLen()), func(t *testing.T) {
			for i := range 8 {
				msg := make([]byte, rng.IntN(4096))
				for j := range msg {
					msg[j] = byte(rng.Uint32())
				}
				sigGo, err := gb.sign(key, msg)
				if err != nil {
					t.Fatal(err)
				}
				sigLC, err := lc.sign(key, msg)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(sigGo, sigLC) {
					t.Fatalf("payload %d (%d bytes): signatures differ\ngo:        %x\nlibcrypto: %x", i, len(msg), sigGo, sigLC)
				}
				if err := gb.verify(&key.PublicKey, msg, sigLC); err != nil {
					t.Errorf("go does not verify libcrypto's signature: %v", err)
				}
				if err := lc.verify(&key.PublicKey, msg, sigGo); err != nil {
					t.Errorf("libcrypto does not verify go's signature: %v", err)
				}
				bad := append([]byte(nil), sigGo...)
				bad[rng.IntN(len(bad))] ^= 1 << rng.IntN(8)
				for _, b := range []backend{gb, lc} {
					if b.verify(&key.PublicKey, msg, bad) == nil {
						t.Errorf("%s verifies a flipped signature", b.name())
					}
					if b.verify(&key.PublicKey, append(msg, 'x'), sigGo) == nil {
						t.Errorf("%s verifies a signature over another payload", b.name())
					}
					if b.verify(&key.PublicKey, msg, sigGo[1:]) == nil {
						t.Errorf("%s verifies a short signature", b.name())
					}
				}
			}
		})
	}
}

// Calls on one key from many goroutines at once (each copies the key's
// one initialised context) sign and verify as a single call does.
func TestLibcryptoConcurrent(t *testing.T) {
	lc := libcryptoOrSkip(t)
	key := mustKey(t, "rsa2048")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				msg := []byte(fmt.Sprintf("goroutine %d call %d", g, i))
				sig, err := lc.sign(key, msg)
				if err != nil {
					t.Error(err)
					return
				}
				want, _ := goBackend{}.sign(key, msg)
				if !bytes.Equal(sig, want) {
					t.Errorf("%s: libcrypto's signature differs from crypto/rsa's", msg)
				}
				if err := lc.verify(&key.PublicKey, msg, sig); err != nil {
					t.Errorf("%s: %v", msg, err)
				}
				if lc.verify(&key.PublicKey, append(msg, 'x'), sig) == nil {
					t.Errorf("%s: verifies over another payload", msg)
				}
			}
		}()
	}
	wg.Wait()
}

func TestUse(t *testing.T) {
	defer func(b *backend) { active.Store(b) }(active.Load())
	if err := Use(BackendGo); err != nil || Backend() != BackendGo {
		t.Fatalf("Use(go): %v, active %s", err, Backend())
	}
	if err := Use("openssl"); err == nil {
		t.Fatal("an unknown back end name is accepted")
	}
	_, lcErr := loadLibcrypto()
	err := Use(BackendLibcrypto)
	if (err == nil) != (lcErr == nil) {
		t.Fatalf("Use(libcrypto) = %v, but loading it gave %v", err, lcErr)
	}
	if err := Use(BackendAuto); err != nil {
		t.Fatal(err)
	}
	want := BackendGo
	if lcErr == nil {
		want = BackendLibcrypto // once its background load has switched over
	}
	for deadline := time.Now().Add(10 * time.Second); Backend() != want && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if Backend() != want {
		t.Fatalf("auto chose %s, want %s", Backend(), want)
	}
	// A choice made while auto is still loading stands.
	if err := Use(BackendAuto); err != nil {
		t.Fatal(err)
	}
	if err := Use(BackendGo); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if Backend() != BackendGo {
		t.Fatalf("auto's background switch overrode a later Use(go): %s", Backend())
	}
}

// The sign-and-verify cost of each back end, RSA-2048, same run.
func BenchmarkBackends(b *testing.B) {
	key := mustKey(b, "rsa2048")
	msg := bytes.Repeat([]byte("A"), 400)
	backends := []backend{goBackend{}}
	if lc, err := loadLibcrypto(); err == nil {
		backends = append(backends, lc)
	}
	for _, be := range backends {
		b.Run(be.name()+"/sign", func(b *testing.B) {
			for b.Loop() {
				if _, err := be.sign(key, msg); err != nil {
					b.Fatal(err)
				}
			}
		})
		sig, _ := be.sign(key, msg)
		b.Run(be.name()+"/verify", func(b *testing.B) {
			for b.Loop() {
				if err := be.verify(&key.PublicKey, msg, sig); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
