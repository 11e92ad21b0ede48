package sim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"testing"

	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// GET /__sim/certs/ lists every test-only file the binary embeds, and each
// listed file is served byte for byte; the publisher's PKCS#12 opens with
// the listed password and holds the publisher key.
func TestCertsListingServesTheKit(t *testing.T) {
	s := simtest.New(t)
	get := func(path string) (int, string, []byte) {
		res, err := http.Get(s.ControlURL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), b
	}
	st, _, body := get("/__sim/certs/")
	if st != 200 {
		t.Fatalf("GET /__sim/certs/: HTTP %d %s", st, body)
	}
	if err := controlSchemas().ValidateJSON("control.certs", body); err != nil {
		t.Fatalf("listing outside control.certs.json: %v: %s", err, body)
	}
	var list struct {
		P12Password string
		Files       []struct{ Name, URL, ContentType string }
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range list.Files {
		names[f.Name] = true
		st, ct, got := get(f.URL)
		want, _ := fs.ReadFile(certs.FS, f.Name)
		if st != 200 || ct != f.ContentType || !bytes.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s: HTTP %d %s, %d bytes (want %s, %d bytes)", f.URL, st, ct, len(got), f.ContentType, len(want))
		}
	}
	for _, n := range []string{"publisher-dev.p12", "publisher-dev.key", "publisher-dev.crt", "publisher-dev.key.der", "service-dev.crt", "README.md"} {
		if !names[n] {
			t.Errorf("%s not listed: %s", n, body)
		}
	}
	_, _, p12 := get("/__sim/certs/publisher-dev.p12")
	if _, cert, err := pkcs12.Decode(p12, list.P12Password); err != nil || cert.Subject.CommonName != "DEMOBANK" {
		t.Errorf("publisher-dev.p12 with the listed password: %v %v", err, cert)
	}
	for _, bad := range []string{"/__sim/certs/nope.key", "/__sim/certs/embed.go", "/__sim/certs/..%2fsim.go"} {
		st, _, out := get(bad)
		if st != 404 {
			t.Errorf("%s: HTTP %d %s, want 404", bad, st, out)
		} else if err := controlSchemas().ValidateJSON("control.error", out); err != nil {
			t.Errorf("%s: answer outside control.error.json: %v: %s", bad, err, out)
		}
	}
}
