package journal

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// Issue 23, masking by meaning: a channel's secKey and an envelope's SIGN
// are masked by value wherever they are echoed (query, headers, JSON at
// any depth, path, page text), the envelope's own SIGN kept.
func TestMaskKnown_secKeysAndSignaturesByValue(t *testing.T) {
	const secKey = "h23b-SECRET-key"
	mem := secrets.New()
	mem.LearnSecKey(secKey)
	sig := strings.Repeat("Ab+/", 85) + "x9==" // 344 chars, like an RSA-2048 SIGN
	envelope := `{"CHANNELID":"X","SIGN":"` + sig + `","BDATA":"e30="}`
	// The envelope is read first (a call's request), then its echoes.
	_ = Entry{Request: Message{Body: json.RawMessage(envelope)}}.Masked(mem)

	cases := []struct {
		name string
		e    Entry
		get  func(Entry) string
	}{
		{"secKey in query", Entry{Query: "k=" + secKey}, func(e Entry) string { return e.Query }},
		{"secKey in header", Entry{Request: Message{Header: map[string]string{"X-Key": "ServiceAppKey a:" + secKey}}}, func(e Entry) string { return e.Request.Header["X-Key"] }},
		{"secKey in nested JSON", Entry{Request: Message{Body: json.RawMessage(`{"a":{"b":["` + secKey + `"]}}`)}}, func(e Entry) string { return string(e.Request.Body) }},
		{"secKey in path", Entry{Path: "/x/" + secKey + "/y"}, func(e Entry) string { return e.Path }},
		{"secKey in page", Entry{Response: Message{Text: "<p>" + secKey + "</p>"}}, func(e Entry) string { return e.Response.Text }},
		{"SIGN in query, escaped", Entry{Query: "sig=" + url.QueryEscape(sig) + "&a=1"}, func(e Entry) string { return e.Query }},
		{"SIGN in path, escaped", Entry{Path: "/echo/" + url.PathEscape(sig)}, func(e Entry) string { return e.Path }},
		{"SIGN in header", Entry{Response: Message{Header: map[string]string{"X-Sig": sig}}}, func(e Entry) string { return e.Response.Header["X-Sig"] }},
		{"SIGN in nested JSON", Entry{Response: Message{Body: json.RawMessage(`{"d":{"signature":"` + sig + `"}}`)}}, func(e Entry) string { return string(e.Response.Body) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.get(c.e.Masked(mem))
			for _, clear := range []string{secKey, sig, url.QueryEscape(sig), url.PathEscape(sig), sig[:64]} {
				if strings.Contains(got, clear) {
					t.Fatalf("%q still holds a secret in clear", got)
				}
			}
			if !strings.Contains(got, "~fp:") {
				t.Fatalf("%q has no fingerprint", got)
			}
		})
	}
	t.Run("the envelope's own SIGN is kept", func(t *testing.T) {
		got := Entry{Request: Message{Body: json.RawMessage(envelope)}}.Masked(mem)
		if string(got.Request.Body) != envelope {
			t.Fatalf("envelope changed: %s", got.Request.Body)
		}
	})
	t.Run("the same signature has one fingerprint in every form", func(t *testing.T) {
		q := Entry{Query: "sig=" + url.QueryEscape(sig)}.Masked(mem).Query
		h := Entry{Request: Message{Header: map[string]string{"S": sig}}}.Masked(mem).Request.Header["S"]
		if q != "sig="+secrets.Fingerprint(sig) || h != secrets.Fingerprint(sig) {
			t.Fatalf("query %q, header %q, want %s", q, h, secrets.Fingerprint(sig))
		}
	})
}
