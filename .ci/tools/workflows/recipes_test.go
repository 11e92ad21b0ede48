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

// recipeMarker, on the line before a ```yaml block of docs/*.md, marks a
// whole GitHub Actions workflow the docs hand to users: it is linted like
// the repository's own.
const recipeMarker = "<!-- actionlint -->"

func TestDocRecipesPassActionlint(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	n := 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, recipe := range markedRecipes(string(data)) {
			n++
			var out bytes.Buffer
			linter, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(doc) + "#recipe" + string(rune('1'+i)) + ".yml"
			errs, err := linter.Lint(name, []byte(recipe), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(errs) > 0 {
				t.Errorf("%s: actionlint: %d problem(s):\n%s", name, len(errs), out.String())
			}
		}
	}
	if n == 0 {
		t.Fatal("no docs/*.md holds a workflow marked " + recipeMarker)
	}
}

// markedRecipes returns the ```yaml blocks right after recipeMarker.
func markedRecipes(md string) []string {
	var out []string
	lines := strings.Split(md, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != recipeMarker || strings.TrimSpace(lines[i+1]) != "```yaml" {
			continue
		}
		var b strings.Builder
		for j := i + 2; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			b.WriteString(lines[j] + "\n")
		}
		out = append(out, b.String())
	}
	return out
}
