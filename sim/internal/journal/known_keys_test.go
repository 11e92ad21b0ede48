package journal

import (
	"encoding/json"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"testing"
)

// Issue 23, masking by meaning: a channel's secKey and an envelope's SIGN
// are masked by value wherever they are echoed (query, headers, JSON at
// any depth, path, page text), the envelope's own SIGN kept.
func TestMaskKnown_secKeysAndSignaturesByValue(t *testing.T) {
	const secKey = "h23b-SECRET-key"
	LearnSecKey(secKey)
	sig := strings.Repeat("Ab+/", 85) + "x9==" // 344 chars, like an RSA-2048 SIGN
	envelope := `{"CHANNELID":"X","SIGN":"` + sig + `","BDATA":"e30="}`
	// The envelope is read first (a call's request), then its echoes.
	_ = Entry{Request: Message{Body: json.RawMessage(envelope)}}.Masked()

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
			got := c.get(c.e.Masked())
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
		got := Entry{Request: Message{Body: json.RawMessage(envelope)}}.Masked()
		if string(got.Request.Body) != envelope {
			t.Fatalf("envelope changed: %s", got.Request.Body)
		}
	})
	t.Run("the same signature has one fingerprint in every form", func(t *testing.T) {
		q := Entry{Query: "sig=" + url.QueryEscape(sig)}.Masked().Query
		h := Entry{Request: Message{Header: map[string]string{"S": sig}}}.Masked().Request.Header["S"]
		if q != "sig="+Fingerprint(sig) || h != Fingerprint(sig) {
			t.Fatalf("query %q, header %q, want %s", q, h, Fingerprint(sig))
		}
	})
}

// Issue 23: a secKey shorter than minKeyLen is masked where it stands
// alone, and left alone inside other words.
func TestMaskKnown_shortSecKeysAlone(t *testing.T) {
	LearnSecKey("q7z")
	for _, c := range []struct{ in, want string }{
		{`{"secret":"q7z"}`, `{"secret":"` + Fingerprint("q7z") + `"}`},
		{"/keys/q7z/x", "/keys/" + Fingerprint("q7z") + "/x"},
		{"k=q7z&a=1", "k=" + Fingerprint("q7z") + "&a=1"},
		{"q7z", Fingerprint("q7z")},
		{"aq7z q7zb xq7zx", "aq7z q7zb xq7zx"},
	} {
		if got := MaskKnown(c.in, Fingerprint); got != c.want {
			t.Errorf("MaskKnown(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Issue 25: what is remembered to mask by value is a hash per value, so
// a full memory of signatures stays small (as strings, 65,536 RSA-2048
// signatures in three forms held about 70 MB and kept the GC busy on
// every request).
func TestMaskKnown_memoryOfSignaturesIsSmall(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sig := []byte(strings.Repeat("Ab+/", 85) + "x9==")
	var l learner
	for i := range maxSigns {
		copy(sig, fmt.Sprintf("%08d", i))
		l.sign(sig)
	}
	l.commit(nil)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perSign := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / maxSigns
	if perSign > 64 {
		t.Fatalf("%.0f bytes of heap per remembered signature, want at most 64", perSign)
	}
	got := MaskKnown("x="+string(sig), Fingerprint)
	if got != "x="+Fingerprint(string(sig)) {
		t.Fatalf("the last signature learnt is not masked: %.80s", got)
	}
}
