package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// A flag line of cobra's help: `      --name string   usage (default "x")`.
	helpFlag    = regexp.MustCompile(`^\s+(?:-\w, )?--([a-z0-9-]+)(?: \w+)?\s{2,}.*?(?: \(default "([^"]*)"\))?$`)
	flagInTable = regexp.MustCompile("`--([a-z0-9-]+)`")
)

// The flags table of configuration.md lists every flag of `rewardsim serve
// --help` with the default the binary reports, so the table cannot drift
// from the flags.
func TestDocs_configurationListsEveryServeFlag(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "rewardsim")
	build := exec.Command(goTool(t), "build", "-o", bin, "./cmd/rewardsim")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	help, err := exec.Command(bin, "serve", "--help").Output()
	if err != nil {
		t.Fatalf("rewardsim serve --help: %v", err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	// flag name -> the default cell of its row in the table.
	documented := map[string]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(line, "| `--") {
			continue
		}
		for _, m := range flagInTable.FindAllStringSubmatch(cells[1], -1) {
			documented[m[1]] = cells[2]
		}
	}
	flags := 0
	for _, line := range strings.Split(string(help), "\n") {
		m := helpFlag.FindStringSubmatch(line)
		if m == nil || m[1] == "help" {
			continue
		}
		flags++
		cell, ok := documented[m[1]]
		switch {
		case !ok:
			t.Errorf("--%s is in `rewardsim serve --help` but not in configuration.md's flags table", m[1])
		case m[2] != "" && !strings.Contains(cell, "`"+m[2]+"`"):
			t.Errorf("--%s: configuration.md says the default is %q, the binary says %q", m[1], strings.TrimSpace(cell), m[2])
		}
	}
	if flags < 20 {
		t.Fatalf("read only %d flags from `rewardsim serve --help`: has its format changed?\n%s", flags, help)
	}
}

// controlRoute is a control route's line in sim/routes.go.
var controlRoute = regexp.MustCompile(`\{Control, [^,]+, "(/__sim[^"]*)"`)

// control-api.md names every control route sim/routes.go serves, so a new
// route cannot go undocumented (":param" is written "{param}").
func TestDocs_controlAPIListsEveryControlRoute(t *testing.T) {
	routes, err := os.ReadFile(filepath.Join("..", "sim", "routes.go"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("control-api.md"))
	if err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`:([A-Za-z]+)`)
	n := 0
	for _, m := range controlRoute.FindAllStringSubmatch(string(routes), -1) {
		path := m[1]
		if path == "/__sim" || strings.HasSuffix(path, "*") {
			continue // the control API's own 404 for everything else
		}
		n++
		written := param.ReplaceAllString(path, "{$1}")
		if !regexp.MustCompile(regexp.QuoteMeta(written) + "(`|[ ?,)])").Match(doc) {
			t.Errorf("control route %s (sim/routes.go) is not in control-api.md", written)
		}
	}
	if n < 30 {
		t.Fatalf("read only %d control routes from sim/routes.go: has its form changed?", n)
	}
}
