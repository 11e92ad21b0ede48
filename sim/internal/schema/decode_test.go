package schema

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// agree fails when decodeFast decodes raw and encoding/json does not, or
// to another value; it reports whether the fast path decided.
func agree(t testing.TB, raw []byte) bool {
	t.Helper()
	fast, ok := decodeFast(raw)
	if !ok {
		return false
	}
	slow, err := decodeStd(raw)
	if err != nil {
		t.Fatalf("decodeFast decoded %q, encoding/json refuses it: %v", raw, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("decodeFast(%q) = %#v, encoding/json %#v", raw, fast, slow)
	}
	return true
}

// The fast decode makes exactly encoding/json's values, or steps aside.
// The inputs: every JSON file under fixtures/ (the golden requests and
// answers), generated documents with edge strings, numbers and spacing,
// and byte-level mutations (truncations, insertions, replacements) of
// all of them.
func TestDecodeFastAgrees(t *testing.T) {
	var docs [][]byte
	_ = filepath.WalkDir("../../../fixtures", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		raw, _ := os.ReadFile(path)
		docs = append(docs, raw)
		return nil
	})
	if len(docs) < 20 {
		t.Fatalf("only %d documents from fixtures/", len(docs))
	}
	// The golden requests and answers are what the fast path is for.
	goldenValid, goldenDecided := 0, 0
	for _, doc := range docs {
		if _, err := decodeStd(doc); err == nil {
			goldenValid++
			if agree(t, doc) {
				goldenDecided++
			}
		}
	}
	if goldenDecided < goldenValid*9/10 {
		t.Errorf("the fast path decided %d of the %d golden documents", goldenDecided, goldenValid)
	}
	r := rand.New(rand.NewPCG(25, 1))
	for range 3000 {
		docs = append(docs, genJSON(r, 0))
	}
	decided, tried := 0, 0
	for _, doc := range docs {
		tried++
		if agree(t, doc) {
			decided++
		}
		for range 8 {
			tried++
			if agree(t, mutate(r, doc)) {
				decided++
			}
		}
	}
	t.Logf("%d of %d golden documents and %d of %d generated or mutated inputs decided by the fast path", goldenDecided, goldenValid, decided, tried)
}

func FuzzDecodeFast(f *testing.F) {
	for _, s := range []string{`{"bName":"DEMOBANK"}`, `[1,-0.5e+3,"x",true,null,{}]`, `{"a":"\u00e9"}`, "\"\xff\"", `01`, `{"a":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { agree(t, raw) })
}

var (
	edgeStrings = []string{"", "a", "DEMOBANK", "é", "日本", "\u2028", "a\"b", `a\b`, "\x01", "\x7f", "\xff", "\xe2\x82", "<&>", "\U0001F600", " "}
	edgeNumbers = []string{"0", "-0", "1", "-1", "10", "01", "1.5", "1.", ".5", "1e5", "1E+5", "1e-5", "1e", "-", "+1", "12345678901234567890", "0.0", "-0.0e0", "1.5e308"}
	spaces      = []string{"", " ", "\n", "\t", "\r\n", "\v", "\u00a0"}
)

// genJSON writes a random document, mostly well-formed, with edge cases
// in every position a value can take.
func genJSON(r *rand.Rand, depth int) []byte {
	sp := func() string { return spaces[r.IntN(len(spaces))] }
	str := func() string {
		s := edgeStrings[r.IntN(len(edgeStrings))]
		if r.IntN(4) == 0 {
			b, _ := json.Marshal(s) // escaped as encoding/json writes it
			return string(b)
		}
		return `"` + s + `"`
	}
	kind := r.IntN(8)
	if depth > 3 {
		kind = 2 + r.IntN(6)
	}
	switch kind {
	case 0:
		var b strings.Builder
		b.WriteString("{" + sp())
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteString("," + sp())
			}
			b.WriteString(str() + sp() + ":" + sp())
			b.Write(genJSON(r, depth+1))
			b.WriteString(sp())
		}
		b.WriteString("}")
		return []byte(b.String())
	case 1:
		var b strings.Builder
		b.WriteString("[" + sp())
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteString("," + sp())
			}
			b.Write(genJSON(r, depth+1))
		}
		b.WriteString(sp() + "]")
		return []byte(b.String())
	case 2, 3:
		return []byte(str())
	case 4, 5:
		return []byte(edgeNumbers[r.IntN(len(edgeNumbers))])
	case 6:
		return []byte([]string{"true", "false", "null", "nul", "True"}[r.IntN(5)])
	}
	return []byte(sp() + `{"CHANNELID":"DEMO01","BDATA":"eyJiTmFtZSI6IkRFTU9CQU5LIn0="}` + sp())
}

func mutate(r *rand.Rand, doc []byte) []byte {
	if len(doc) == 0 {
		return []byte{byte(r.IntN(256))}
	}
	out := bytes.Clone(doc)
	i := r.IntN(len(out))
	switch r.IntN(4) {
	case 0:
		return out[:i]
	case 1:
		const insert = "{}[]\",:\\ 0-e."
		return append(out[:i:i], append([]byte{insert[r.IntN(len(insert))]}, doc[i:]...)...)
	case 2:
		out[i] = byte(r.IntN(256))
	case 3:
		out = append(out, "}]x ,"[r.IntN(5)])
	}
	return out
}
