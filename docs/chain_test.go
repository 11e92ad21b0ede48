package docs

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxChain is the most packages an import chain of the product's code
// (cmd/ and sim/) may pass through, the importing package and the last
// imported one counted: a deeper chain means one wing leans on another's
// floors. The embedded-file packages (schemas, certs, scenarios) hold
// data, not code, import nothing and are not counted.
const maxChain = 8

// recordingWing is the file format, the replay driver and their public
// face: calibrate reads recordings, so none of these may reach it.
var recordingWing = []string{"internal/recfile", "internal/replay", "recordings"}

// codeGraph is g without the embedded-file packages.
func codeGraph(g map[string][]string) map[string][]string {
	data := []string{"schemas", "certs", "scenarios"}
	out := map[string][]string{}
	for p, imps := range g {
		if slices.Contains(data, p) {
			continue
		}
		out[p] = slices.DeleteFunc(slices.Clone(imps), func(i string) bool { return slices.Contains(data, i) })
	}
	return out
}

// longestChain is the longest import path starting at p in g (a graph
// without circles, which go list guarantees), memoised in seen.
func longestChain(g map[string][]string, p string, seen map[string][]string) []string {
	if c, ok := seen[p]; ok {
		return c
	}
	var best []string
	for _, imp := range g[p] {
		if c := longestChain(g, imp, seen); len(c) > len(best) {
			best = c
		}
	}
	c := append([]string{p}, best...)
	seen[p] = c
	return c
}

// The product's import chains stay short (at most maxChain packages),
// and the recording wing (the file format and the replay driver) does
// not import calibrate: calibrate reads recordings, never the reverse.
func TestDocs_importChainsAreShort(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	all, _ := importGraph(t, root)
	g := codeGraph(all)
	seen := map[string][]string{}
	var longest []string
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range g {
			if !yield(p) {
				return
			}
		}
	}) {
		if c := longestChain(g, p, seen); len(c) > len(longest) {
			longest = c
		}
	}
	t.Logf("longest chain (%d): %s", len(longest), strings.Join(longest, " -> "))
	if len(longest) > maxChain {
		t.Errorf("the longest import chain passes %d packages, more than %d: %s", len(longest), maxChain, strings.Join(longest, " -> "))
	}
	for _, p := range recordingWing {
		if _, ok := g[p]; !ok {
			t.Errorf("%s is not a package of the product: recordingWing names the wing's packages", p)
		}
		for _, d := range deps(g, p) {
			if d == "calibrate" {
				t.Errorf("%s reaches calibrate: the recording wing is read by calibrate, never the reverse", p)
			}
		}
	}
}

// deps is every package p reaches through its imports.
func deps(g map[string][]string, p string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(q string) {
		for _, imp := range g[q] {
			if !seen[imp] {
				seen[imp] = true
				walk(imp)
			}
		}
	}
	walk(p)
	return slices.Sorted(func(yield func(string) bool) {
		for d := range seen {
			if !yield(d) {
				return
			}
		}
	})
}
