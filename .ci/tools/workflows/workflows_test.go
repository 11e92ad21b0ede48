// Package workflows checks the GitHub Actions workflows of the repository
// with actionlint (github.com/rhysd/actionlint, pinned in this module's
// go.mod): syntax, expressions, job needs, matrix and action inputs.
package workflows

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"

	"rewardsim.invalid/ci-tools/internal/repo"
)

func TestWorkflowsPassActionlint(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	names := map[string]bool{}
	for _, f := range files {
		names[filepath.Base(f)] = true
	}
	if !names["ci.yml"] || !names["release.yml"] {
		t.Fatalf("want ci.yml and release.yml in .github/workflows, have %v", files)
	}
	var out bytes.Buffer
	linter, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := linter.LintFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Fatalf("actionlint: %d problem(s):\n%s", len(errs), out.String())
	}
	ci, _ := os.ReadFile(filepath.Join(root, ".github", "workflows", "ci.yml"))
	if !strings.Contains(string(ci), ".ci/run") && !strings.Contains(string(ci), "make test") {
		t.Error("ci.yml does not run make test")
	}
}
