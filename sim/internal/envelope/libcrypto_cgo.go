//go:build cgo && linux

package envelope

// libcrypto is loaded with dlopen, not linked: the build needs no OpenSSL
// headers or libssl-dev (the declarations below are OpenSSL 3's own, with
// opaque pointers), and a binary built here runs on a machine without
// libcrypto.so.3, falling back to crypto/rsa. Each operation is one cgo
// call, so OpenSSL's thread-local error queue is cleared on the thread
// that filled it.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

static void *(*p_d2i_AutoPrivateKey)(void **, const unsigned char **, long);
static void *(*p_d2i_PUBKEY)(void **, const unsigned char **, long);
static void (*p_EVP_PKEY_free)(void *);
static void *(*p_EVP_MD_CTX_new)(void);
static void (*p_EVP_MD_CTX_free)(void *);
static int (*p_EVP_MD_CTX_copy_ex)(void *, const void *);
static void *(*p_EVP_MD_fetch)(void *, const char *, const char *);
static int (*p_EVP_DigestSignInit)(void *, void **, const void *, void *, void *);
static int (*p_EVP_DigestSign)(void *, unsigned char *, size_t *, const unsigned char *, size_t);
static int (*p_EVP_DigestVerifyInit)(void *, void **, const void *, void *, void *);
static int (*p_EVP_DigestVerify)(void *, const unsigned char *, size_t, const unsigned char *, size_t);
static void (*p_ERR_clear_error)(void);
static const char *(*p_OpenSSL_version)(int);

static void *lc_sha256;

#define LC_SYM(h, n) if ((*(void **)(&p_##n) = dlsym(h, #n)) == NULL) return "libcrypto.so.3 lacks " #n;

// lc_load returns NULL on success, else why not.
static const char *lc_load(void) {
	void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *e = dlerror();
		return e ? e : "dlopen libcrypto.so.3 failed";
	}
	LC_SYM(h, d2i_AutoPrivateKey)
	LC_SYM(h, d2i_PUBKEY)
	LC_SYM(h, EVP_PKEY_free)
	LC_SYM(h, EVP_MD_CTX_new)
	LC_SYM(h, EVP_MD_CTX_free)
	LC_SYM(h, EVP_MD_CTX_copy_ex)
	LC_SYM(h, EVP_MD_fetch)
	LC_SYM(h, EVP_DigestSignInit)
	LC_SYM(h, EVP_DigestSign)
	LC_SYM(h, EVP_DigestVerifyInit)
	LC_SYM(h, EVP_DigestVerify)
	LC_SYM(h, ERR_clear_error)
	LC_SYM(h, OpenSSL_version)
	// Fetched once: an implicit fetch per call (EVP_sha256) costs a lookup.
	lc_sha256 = p_EVP_MD_fetch(NULL, "SHA2-256", NULL);
	if (lc_sha256 == NULL) {
		p_ERR_clear_error();
		return "libcrypto.so.3 has no SHA2-256";
	}
	return NULL;
}

static const char *lc_version(void) { return p_OpenSSL_version(0); }

// An lc_key is an EVP_PKEY and a digest context initialised for it once,
// for signing or for verifying: each call copies that context instead of
// initialising its own (the init looks the operation up in the provider
// and sets the key up; the copy duplicates what it made).
typedef struct {
	void *pkey;
	void *tpl;
} lc_key;

static lc_key *lc_key_new(void *pkey, int sign) {
	if (pkey == NULL) return NULL;
	lc_key *k = malloc(sizeof *k);
	void *ctx = p_EVP_MD_CTX_new();
	int ok = k != NULL && ctx != NULL &&
		(sign ? p_EVP_DigestSignInit(ctx, NULL, lc_sha256, NULL, pkey) : p_EVP_DigestVerifyInit(ctx, NULL, lc_sha256, NULL, pkey)) == 1;
	if (!ok) {
		p_ERR_clear_error();
		if (ctx != NULL) p_EVP_MD_CTX_free(ctx);
		p_EVP_PKEY_free(pkey);
		free(k);
		return NULL;
	}
	k->pkey = pkey;
	k->tpl = ctx;
	return k;
}

static lc_key *lc_private_key(const unsigned char *der, long n) {
	void *k = p_d2i_AutoPrivateKey(NULL, &der, n);
	if (k == NULL) p_ERR_clear_error();
	return lc_key_new(k, 1);
}

static lc_key *lc_public_key(const unsigned char *der, long n) {
	void *k = p_d2i_PUBKEY(NULL, &der, n);
	if (k == NULL) p_ERR_clear_error();
	return lc_key_new(k, 0);
}

static void lc_free_key(lc_key *k) {
	p_EVP_MD_CTX_free(k->tpl);
	p_EVP_PKEY_free(k->pkey);
	free(k);
}

// lc_ctx is a fresh copy of key's initialised context, or NULL.
static void *lc_ctx(lc_key *key) {
	void *ctx = p_EVP_MD_CTX_new();
	if (ctx != NULL && p_EVP_MD_CTX_copy_ex(ctx, key->tpl) != 1) {
		p_EVP_MD_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

// lc_done frees ctx (NULL too) and, when the operation failed, clears the
// error queue it left on this thread; it returns ok.
static int lc_done(void *ctx, int ok) {
	if (ctx != NULL) p_EVP_MD_CTX_free(ctx);
	if (!ok) p_ERR_clear_error();
	return ok;
}

// The RSA key's default padding is PKCS#1 v1.5: SHA256withRSA.
static int lc_sign(lc_key *key, const unsigned char *msg, size_t n, unsigned char *sig, size_t *siglen) {
	void *ctx = lc_ctx(key);
	return lc_done(ctx, ctx != NULL && p_EVP_DigestSign(ctx, sig, siglen, msg, n) == 1);
}

static int lc_verify(lc_key *key, const unsigned char *msg, size_t n, const unsigned char *sig, size_t siglen) {
	void *ctx = lc_ctx(key);
	return lc_done(ctx, ctx != NULL && p_EVP_DigestVerify(ctx, sig, siglen, msg, n) == 1);
}
*/
import "C"

import (
	"crypto/rsa"
	"crypto/x509"
	"errors"
	"math/big"
	"runtime"
	"sync"
	"unsafe"
	"weak"
)

var (
	loadOnce sync.Once
	loaded   *libcrypto
	loadErr  error
)

func loadLibcrypto() (backend, error) {
	loadOnce.Do(func() {
		if why := C.lc_load(); why != nil {
			loadErr = errors.New(C.GoString(why))
			return
		}
		loaded = &libcrypto{version: C.GoString(C.lc_version())}
	})
	if loadErr != nil {
		return nil, loadErr
	}
	return loaded, nil
}

// libcrypto signs through OpenSSL's EVP_DigestSign. An EVP_PKEY, with a
// digest context initialised for it, is made once per Go key (the DER
// round trip costs more than a verify; the init, about 2 µs of a 20 µs
// verify) and freed when the Go key is collected; each call works on its
// own copy of that context. Signatures and verifications themselves are
// never kept.
type libcrypto struct {
	version string
	privs   keyCache[rsa.PrivateKey]
	pubs    keyCache[rsa.PublicKey]
}

func (*libcrypto) name() string { return BackendLibcrypto }

var errLibcrypto = errors.New("libcrypto refused the operation")

func (l *libcrypto) sign(key *rsa.PrivateKey, msg []byte) ([]byte, error) {
	pk, err := l.privs.get(key, key.N, func() (unsafe.Pointer, error) {
		der := x509.MarshalPKCS1PrivateKey(key)
		return keyPtr(unsafe.Pointer(C.lc_private_key((*C.uchar)(unsafe.Pointer(&der[0])), C.long(len(der)))))
	})
	if err != nil {
		return nil, err
	}
	sig := make([]byte, key.Size())
	n := C.size_t(len(sig))
	ok := C.lc_sign((*C.lc_key)(pk), cbytes(msg), C.size_t(len(msg)), (*C.uchar)(unsafe.Pointer(&sig[0])), &n)
	runtime.KeepAlive(key) // its EVP_PKEY lives as long as it does
	if ok != 1 {
		return nil, errLibcrypto
	}
	return sig[:n], nil
}

func (l *libcrypto) verify(pub *rsa.PublicKey, msg, sig []byte) error {
	if len(sig) == 0 {
		return ErrBadSignature
	}
	pk, err := l.pubs.get(pub, pub.N, func() (unsafe.Pointer, error) {
		der, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			return nil, err
		}
		return keyPtr(unsafe.Pointer(C.lc_public_key((*C.uchar)(unsafe.Pointer(&der[0])), C.long(len(der)))))
	})
	if err != nil {
		return err
	}
	ok := C.lc_verify((*C.lc_key)(pk), cbytes(msg), C.size_t(len(msg)), (*C.uchar)(unsafe.Pointer(&sig[0])), C.size_t(len(sig)))
	runtime.KeepAlive(pub)
	if ok != 1 {
		return ErrBadSignature
	}
	return nil
}

var empty = [1]byte{}

// cbytes points C at b's bytes (a valid pointer even when b is empty).
func cbytes(b []byte) *C.uchar {
	if len(b) == 0 {
		return (*C.uchar)(unsafe.Pointer(&empty[0]))
	}
	return (*C.uchar)(unsafe.Pointer(&b[0]))
}

func keyPtr(p unsafe.Pointer) (unsafe.Pointer, error) {
	if p == nil {
		return nil, errors.New("libcrypto could not read the RSA key")
	}
	return p, nil
}

// keyCache maps a Go key (by identity, weakly) to its EVP_PKEY. The
// modulus pointer is kept too, so a key whose N was replaced in place is
// converted afresh.
type keyCache[K any] struct {
	mu sync.Mutex
	m  map[weak.Pointer[K]]cachedKey
}

type cachedKey struct {
	n   *big.Int
	ptr unsafe.Pointer
}

func (c *keyCache[K]) get(k *K, n *big.Int, make func() (unsafe.Pointer, error)) (unsafe.Pointer, error) {
	wp := weak.Make(k)
	c.mu.Lock()
	ck, ok := c.m[wp]
	c.mu.Unlock()
	if ok && ck.n == n {
		return ck.ptr, nil
	}
	p, err := make()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[weak.Pointer[K]]cachedKey{}
	}
	old, had := c.m[wp]
	c.m[wp] = cachedKey{n: n, ptr: p}
	c.mu.Unlock()
	if had {
		// Stale (N replaced): free it once no call can hold it, with the key.
		runtime.AddCleanup(k, freeKey, old.ptr)
	} else {
		runtime.AddCleanup(k, c.drop, wp)
	}
	return p, nil
}

func (c *keyCache[K]) drop(wp weak.Pointer[K]) {
	c.mu.Lock()
	ck := c.m[wp]
	delete(c.m, wp)
	c.mu.Unlock()
	freeKey(ck.ptr)
}

func freeKey(p unsafe.Pointer) {
	if p != nil {
		C.lc_free_key((*C.lc_key)(p))
	}
}
