package envelope

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"os"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
)

func mustKey(t testing.TB, name string) *rsa.PrivateKey {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name + ".key")
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParsePrivateKeyPEM(data)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// clause: ENV-1, ENV-2
func TestSealVerify_ENV1_ENV2(t *testing.T) {
	key, other := mustKey(t, "rsa2048"), mustKey(t, "rsa3072")
	env, err := Seal(key, "DEMOBANK", map[string]string{"bName": "DEMOBANK"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(env.BDATA)
	if err != nil || string(raw) != `{"bName":"DEMOBANK"}` {
		t.Fatalf("BDATA is not base64 of the UTF-8 JSON payload: %q, %v", raw, err)
	}
	overJSON := func() string {
		s, _ := Sign(key, string(raw))
		return s
	}()
	tampered := base64.StdEncoding.EncodeToString([]byte(`{"bName":"DEMOBANk"}`))

	cases := []struct {
		name     string
		pub      *rsa.PublicKey
		bdata    string
		sign     string
		want     error
		overJSON bool
	}{
		{"signature over the base64 BDATA string verifies", &key.PublicKey, env.BDATA, env.SIGN, nil, false},
		{"signature over the decoded JSON fails", &key.PublicKey, env.BDATA, overJSON, ErrBadSignature, true},
		{"tampered BDATA fails", &key.PublicKey, tampered, env.SIGN, ErrBadSignature, false},
		{"foreign key fails", &other.PublicKey, env.BDATA, env.SIGN, ErrBadSignature, false},
		{"missing SIGN fails", &key.PublicKey, env.BDATA, "", ErrNoSignature, false},
		{"SIGN not base64 fails", &key.PublicKey, env.BDATA, "%%%", ErrSignEncoding, false},
		{"SIGN truncated fails", &key.PublicKey, env.BDATA, env.SIGN[:20], ErrBadSignature, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := Verify(c.pub, c.bdata, c.sign); err != c.want {
				t.Fatalf("Verify = %v, want %v", err, c.want)
			}
			if got := SignedOverDecodedJSON(c.pub, c.bdata, c.sign); got != c.overJSON {
				t.Errorf("SignedOverDecodedJSON = %v, want %v", got, c.overJSON)
			}
		})
	}
}

// clause: ENV-2 (SHA256withRSA, PKCS#1 v1.5, checked against crypto/rsa directly)
func TestSignIsPKCS1v15SHA256_ENV2(t *testing.T) {
	key := mustKey(t, "rsa2048")
	bdata := "eyJhIjoxfQ=="
	sign, err := Sign(key, bdata)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := base64.StdEncoding.DecodeString(sign)
	sum := sha256.Sum256([]byte(bdata))
	if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
		t.Fatalf("not a PKCS#1 v1.5 SHA-256 signature over the BDATA string: %v", err)
	}
}

// clause: AUTH-4
func TestParsePublicKeyPEM_AUTH4(t *testing.T) {
	pemOf := func(typ string, der []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}) }
	type tc struct {
		name    string
		data    []byte
		wantErr string
	}
	var cases []tc
	for _, bits := range []string{"2048", "3072", "4096"} {
		key := mustKey(t, "rsa"+bits)
		crt, err := os.ReadFile("testdata/rsa" + bits + ".crt")
		if err != nil {
			t.Fatal(err)
		}
		pkix, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
		cases = append(cases,
			tc{"X.509 certificate RSA " + bits, crt, ""},
			tc{"PKIX public key RSA " + bits, pemOf("PUBLIC KEY", pkix), ""},
			tc{"PKCS#1 public key RSA " + bits, pemOf("RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&key.PublicKey)), ""},
		)
	}
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	cases = append(cases,
		tc{"RSA 1024 is refused", pemOf("RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&small.PublicKey)), "1024 bits"},
		tc{"EC key is refused", pemOf("PUBLIC KEY", ecDER), "not RSA"},
		tc{"not PEM", []byte("hello"), "no PEM block"},
		tc{"private key where a public one is due", pemOf("PRIVATE KEY", []byte{1}), "not a certificate or public key"},
		tc{"garbage certificate", pemOf("CERTIFICATE", []byte{1, 2, 3}), "certificate"},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePublicKeyPEM(c.data)
			if c.wantErr == "" && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("err = %v, want one containing %q", err, c.wantErr)
			}
		})
	}
}

// clause: AUTH-4 (private keys in PKCS#1 and PKCS#8)
func TestParsePrivateKeyPEM_AUTH4(t *testing.T) {
	key := mustKey(t, "rsa2048") // testdata is PKCS#8
	p1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	k1, err := ParsePrivateKeyPEM(p1)
	if err != nil || !k1.Equal(key) {
		t.Fatalf("PKCS#1: %v", err)
	}
	if _, err := ParsePrivateKeyPEM([]byte("-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n")); err == nil {
		t.Fatal("a certificate was accepted as a private key")
	}
}

// BenchmarkRawSign is the floor every signed answer pays: one RSA-2048
// SHA256withRSA signature, on every core.
func BenchmarkRawSign(b *testing.B) {
	key := mustKey(b, "rsa2048")
	bdata := base64.StdEncoding.EncodeToString([]byte(`{"referenceKey":"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG","expireDate":"2026-01-15 11:00:00.000"}`))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := Sign(key, bdata); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// clause: ENV-3
// BDATA is JSON without HTML escaping: a URL's & stays &, and the decoded
// bytes are exactly the ones encoded (no trailing newline).
func TestEncode_noHTMLEscaping(t *testing.T) {
	bdata, err := Encode(map[string]string{"url": "http://x.test/t?a=1&b=<2>"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := Decode(bdata)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"url":"http://x.test/t?a=1&b=<2>"}`; string(raw) != want {
		t.Fatalf("BDATA decodes to %s, want %s", raw, want)
	}
}

// AppendJSON writes exactly what encoding/json (without HTML escaping)
// writes, or steps aside, on envelopes whose fields are base64 as sent
// and strings of every kind that need escaping.
func TestAppendJSONAgrees(t *testing.T) {
	fields := []string{"", "RWDSIM01", "eyJiTmFtZSI6IkRFTU9CQU5LIn0=", "a+b/c==", `a"b`, `a\b`, "<&>", "é", "\x01", "\x7f", "\xff", "\u2028", " ~"}
	appended := 0
	for _, id := range fields {
		for _, sign := range fields {
			for _, bdata := range fields {
				env := Envelope{CHANNELID: id, SIGN: sign, BDATA: bdata}
				want := string(golden.Encode(t, env))
				got, ok := env.AppendJSON([]byte("x"))
				switch {
				case !ok && string(got) != "x":
					t.Errorf("%+v: refused, but appended %q", env, got)
				case ok && string(got) != "x"+want:
					t.Errorf("%+v: AppendJSON %q, encoding/json %q", env, got[1:], want)
				case ok:
					appended++
				}
			}
		}
	}
	if appended < 200 {
		t.Errorf("only %d envelopes appended", appended)
	}
}

// tokenAnswer is a payload that writes its own JSON (an Appender), and
// reflectedAnswer the same fields through encoding/json.
type (
	tokenAnswer struct {
		ExpireDate   string `json:"expireDate"`
		ReferenceKey string `json:"referenceKey"`
	}
	reflectedAnswer tokenAnswer
)

func (a tokenAnswer) AppendJSON(b []byte) []byte {
	b = append(b, `{"expireDate":"`...)
	b = append(b, a.ExpireDate...)
	b = append(b, `","referenceKey":"`...)
	b = append(b, a.ReferenceKey...)
	return append(b, `"}`...)
}

// Encode and Seal take an Appender's own JSON, and an Appender seals to
// the envelope its reflected twin seals to, with a SIGN that verifies.
func TestSeal_appender(t *testing.T) {
	key := mustKey(t, "rsa2048")
	a := tokenAnswer{ExpireDate: "2026-01-15 11:00:00.000", ReferenceKey: "3ZRLMFcSPk10yTlJG2un00pBZAAHswWMbRAasypD5OA"}
	for range 3 { // pooled buffers in use again
		got, err := Seal(key, "RWDSIM01", a)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Seal(key, "RWDSIM01", reflectedAnswer(a))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("Appender sealed %+v, reflection %+v", got, want)
		}
		if err := Verify(&key.PublicKey, got.BDATA, got.SIGN); err != nil {
			t.Fatal(err)
		}
		if bdata, _ := Encode(a); bdata != got.BDATA {
			t.Fatalf("Encode %q, Seal %q", bdata, got.BDATA)
		}
	}
	// Encode writes what AppendJSON wrote, even where encoding/json would not.
	raw, _ := Decode(must(Encode(tokenAnswer{ExpireDate: "<&>"})))
	if want := `{"expireDate":"<&>","referenceKey":""}`; string(raw) != want {
		t.Fatalf("BDATA %s, want %s", raw, want)
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// BenchmarkEncode is a token answer's BDATA made by reflection
// (encoding/json) and by its own AppendJSON.
func BenchmarkEncode(b *testing.B) {
	a := tokenAnswer{ExpireDate: "2026-01-15 11:00:00.000", ReferenceKey: "3ZRLMFcSPk10yTlJG2un00pBZAAHswWMbRAasypD5OA"}
	for _, bc := range []struct {
		name    string
		payload any
	}{{"reflected", reflectedAnswer(a)}, {"appender", a}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Encode(bc.payload); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
