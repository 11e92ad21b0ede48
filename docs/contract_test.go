package docs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var clauseRow = regexp.MustCompile("(?m)^\\| ([A-Z]+-[0-9]+) \\| [^|]+ \\| `([^`]+)` \\| (.+) \\|$")

// contract.md restates every clause: each ID once, its code path present,
// each test file it names naming the clause; and every clause a test names
// (`// clause: X`) is on the page.
func TestDocs_contractNamesEveryClauseWithCodeAndTests(t *testing.T) {
	page, err := os.ReadFile("contract.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range clauseRow.FindAllStringSubmatch(string(page), -1) {
		id, code, tests := m[1], m[2], m[3]
		if seen[id] {
			t.Errorf("%s listed twice", id)
		}
		seen[id] = true
		if _, err := os.Stat(filepath.Join("..", code)); err != nil {
			t.Errorf("%s: code %s: %v", id, code, err)
		}
		files := regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(tests, -1)
		if len(files) == 0 {
			t.Errorf("%s names no test", id)
		}
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join("..", f[1]))
			if err != nil || !regexp.MustCompile(`\b`+id+`\b`).Match(data) {
				t.Errorf("%s: test file %s does not name it (%v)", id, f[1], err)
			}
		}
	}
	if len(seen) < 60 {
		t.Fatalf("read only %d clauses from contract.md: has the table's form changed?", len(seen))
	}
	named := regexp.MustCompile(`clause: ([A-Z]+-[0-9]+(?:, [A-Z]+-[0-9]+)*)`)
	for _, f := range trackedFiles(t) {
		if !strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, _ := os.ReadFile(filepath.Join("..", f))
		for _, m := range named.FindAllStringSubmatch(string(data), -1) {
			for _, id := range strings.Split(m[1], ", ") {
				if !seen[id] {
					t.Errorf("%s names clause %s, which contract.md does not list", f, id)
				}
			}
		}
	}
}

// trackedFiles lists the repository's files as git knows them.
func trackedFiles(t *testing.T) []string {
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a checkout)", err)
	}
	return strings.Fields(string(out))
}

var mdLink = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)

// The repository stands alone: no file points at our workspace outside it,
// and every relative Markdown link resolves to a file inside it. The
// README and every chapter send readers to contract.md.
func TestDocs_nothingPointsOutsideTheRepository(t *testing.T) {
	root, _ := filepath.Abs("..")
	outside := [][]byte{[]byte("../shared"), []byte("/work/shared"), []byte("/work/wt/")}
	for _, f := range trackedFiles(t) {
		if f == "docs/contract_test.go" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the work tree
		}
		for _, o := range outside {
			if i := bytes.Index(data, o); i >= 0 {
				line := bytes.Count(data[:i], []byte("\n")) + 1
				t.Errorf("%s:%d refers to %q, outside the repository", f, line, o)
			}
		}
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p := filepath.Clean(filepath.Join(root, filepath.Dir(f), target))
			if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s links %s, outside the repository", f, target)
			} else if _, err := os.Stat(p); err != nil {
				t.Errorf("%s links %s, which does not exist", f, target)
			}
		}
		if (f == "README.md" || strings.HasPrefix(f, "docs/")) && f != "docs/contract.md" &&
			!strings.Contains(string(data), "contract.md)") {
			t.Errorf("%s does not link contract.md", f)
		}
	}
}
