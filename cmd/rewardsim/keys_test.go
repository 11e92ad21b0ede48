package main

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	pkcs12 "software.sslmate.com/src/go-pkcs12"
)

// checkKeyForms proves every form of stem holds the same key pair.
func checkKeyForms(t *testing.T, stem string) *rsa.PrivateKey {
	t.Helper()
	read := func(suffix string) []byte {
		data, err := os.ReadFile(stem + suffix)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	block, _ := pem.Decode(read(".key"))
	if block == nil || block.Type != "PRIVATE KEY" {
		t.Fatalf("%s.key is not PEM PKCS#8", stem)
	}
	if !bytes.Equal(block.Bytes, read(".key.der")) {
		t.Fatalf("%s.key.der is not the DER of %s.key", stem, stem)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	key := k.(*rsa.PrivateKey)
	cblock, _ := pem.Decode(read(".crt"))
	if cblock == nil || !bytes.Equal(cblock.Bytes, read(".crt.der")) {
		t.Fatalf("%s.crt.der is not the DER of %s.crt", stem, stem)
	}
	pk, cert, err := pkcs12.Decode(read(".p12"), P12Password)
	if err != nil {
		t.Fatalf("%s.p12: %v", stem, err)
	}
	if !pk.(*rsa.PrivateKey).Equal(key) || !bytes.Equal(cert.Raw, cblock.Bytes) {
		t.Fatalf("%s.p12 holds another pair", stem)
	}
	return key
}

func TestKeysWritesEveryForm(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) {
		root := newRoot()
		root.SetArgs(append([]string{"keys", "--out", dir, "--name", "p"}, args...))
		root.SetOut(&bytes.Buffer{})
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
	}
	run("--cn", "ACME")
	first := checkKeyForms(t, filepath.Join(dir, "p"))
	run("--reuse")
	if again := checkKeyForms(t, filepath.Join(dir, "p")); !again.Equal(first) {
		t.Fatal("--reuse made a new key")
	}
	run()
	if fresh := checkKeyForms(t, filepath.Join(dir, "p")); fresh.Equal(first) {
		t.Fatal("without --reuse keys kept the old key")
	}
}

// The committed test-only keys come in every form, and the forms agree.
func TestCommittedDevKeyForms(t *testing.T) {
	for _, name := range []string{"publisher-dev", "service-dev"} {
		checkKeyForms(t, filepath.Join("..", "..", "certs", name))
	}
}
