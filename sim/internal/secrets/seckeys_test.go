package secrets

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Issue 23: a secKey shorter than minKeyLen is masked where it stands
// alone, and left alone inside other words.
func TestMaskKnown_shortSecKeysAlone(t *testing.T) {
	mem := New()
	mem.LearnSecKey("q7z")
	for _, c := range []struct{ in, want string }{
		{`{"secret":"q7z"}`, `{"secret":"` + Fingerprint("q7z") + `"}`},
		{"/keys/q7z/x", "/keys/" + Fingerprint("q7z") + "/x"},
		{"k=q7z&a=1", "k=" + Fingerprint("q7z") + "&a=1"},
		{"q7z", Fingerprint("q7z")},
		{"aq7z q7zb xq7zx", "aq7z q7zb xq7zx"},
	} {
		if got := mem.MaskKnown(c.in, Fingerprint); got != c.want {
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
	mem := New()
	l := learner{mem: mem}
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
	got := mem.MaskKnown("x="+string(sig), Fingerprint)
	if got != "x="+Fingerprint(string(sig)) {
		t.Fatalf("the last signature learnt is not masked: %.80s", got)
	}
}

// The learner reads every string of a body once, escapes included, and
// finds the credentials' fields at any depth.
func TestEachKey(t *testing.T) {
	body := `{"a":"x\"y","n":1,"list":["token","v"],"o":{"token":"T1","s":"q\\"},"SIGN" : "S1","esc\"key":"no","sessionId":"S2"}`
	var got []string
	eachKey([]byte(body), func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
	has := map[string]bool{}
	for _, g := range got {
		has[g] = true
	}
	for _, w := range []string{"token=T1", "SIGN=S1", "sessionId=S2"} {
		if !has[w] {
			t.Errorf("eachKey missed %s; got %q", w, got)
		}
	}
	for _, g := range got {
		if strings.HasPrefix(g, "token=v") || strings.Contains(g, "esc") || strings.HasPrefix(g, "a=") {
			t.Errorf("eachKey read %q, which is not a plain key and value", g)
		}
	}
}
