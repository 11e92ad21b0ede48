package docs

import (
	"flag"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateImports = flag.Bool("update", false, "rewrite architecture.md's import list from go list")

const (
	module       = "github.com/rewardsim/rewardsim/"
	importsBegin = "<!-- imports: drawn from `go list`; go test ./docs -run TestDocs_architectureImports -update redraws it -->"
	importsEnd   = "<!-- end of imports -->"
)

// importGraph is every package of the product (cmd, sim, the embedded
// files) with the packages of the module it imports, as go list sees
// them; "sim/internal/" is shortened to "internal/".
func importGraph(t *testing.T, root string) (map[string][]string, map[string][]string) {
	t.Helper()
	cmd := exec.Command(goTool(t), "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./cmd/...", "./sim/...", "./certs", "./schemas", "./scenarios")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	short := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, module), "sim/") }
	own, outside := map[string][]string{}, map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		p := short(f[0])
		own[p] = []string{}
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, module) {
				own[p] = append(own[p], short(imp))
			} else if strings.Contains(imp, ".") { // a third-party module
				outside[p] = append(outside[p], imp)
			}
		}
	}
	return own, outside
}

// drawImports is the import list as architecture.md shows it.
func drawImports(g map[string][]string) string {
	var b strings.Builder
	b.WriteString("```text\n")
	pkgs := make([]string, 0, len(g))
	for p := range g {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		imps := slices.Sorted(slices.Values(g[p]))
		if len(imps) == 0 {
			imps = []string{"(none)"}
		}
		fmt.Fprintf(&b, "%-22s -> %s\n", p, strings.Join(imps, " "))
	}
	b.WriteString("```\n")
	return b.String()
}

// architecture.md's import list is the one go list sees (redrawn with
// -update), and the rules the page states hold: no package under
// internal/ imports sim or an api package but the composition root's,
// api packages never import each other, no api package imports state,
// bbolt is imported by state, journal and boltfile only, viper by cmd
// only.
func TestDocs_architectureImports(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	g, outside := importGraph(t, root)
	redrawn(t, filepath.Join(root, "docs", "architecture.md"), importsBegin, importsEnd, drawImports(g),
		"architecture.md's import list is not the code's (go test ./docs -run TestDocs_architectureImports -update redraws it); go list sees")
	for p, imps := range g {
		api := strings.HasPrefix(p, "internal/api/")
		for _, imp := range imps {
			switch {
			case strings.HasPrefix(p, "internal/") && (imp == "sim" || strings.HasPrefix(imp, "internal/api/") && !api):
				t.Errorf("%s imports %s: nothing under internal/ imports the hall or a counter", p, imp)
			case api && strings.HasPrefix(imp, "internal/api/"):
				t.Errorf("%s imports %s: api packages never import each other", p, imp)
			case api && imp == "internal/state":
				t.Errorf("%s imports state: the counters talk to the workshops, not the cellar", p)
			}
		}
		for _, imp := range outside[p] {
			if strings.HasPrefix(imp, "go.etcd.io/bbolt") && !slices.Contains([]string{"internal/state", "internal/journal", "internal/boltfile"}, p) {
				t.Errorf("%s imports bbolt: only state, journal and boltfile do", p)
			}
			if strings.HasPrefix(imp, "github.com/spf13/viper") && !strings.HasPrefix(p, "cmd/") {
				t.Errorf("%s imports viper: only cmd/ reads configuration", p)
			}
		}
	}
}
