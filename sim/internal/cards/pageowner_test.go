package cards

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The pooled card page (state.CardPage) is the store's buffer: only the
// store and this service touch it (Service.WithPage reads, renders and
// releases it), so no handler can release it early or keep it.
func TestCardPage_onlyTheStoreAndTheServiceHoldIt(t *testing.T) {
	root := filepath.Join("..", "..") // sim/
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if strings.HasSuffix(dir, "internal/state") || strings.HasSuffix(dir, "internal/cards") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// A page is had only through UserCardPage and held only as a
		// state.CardPage: naming neither, code cannot release one (a
		// Release of something else, a capacity limit's ticket, is not).
		for _, name := range []string{"state.CardPage", "UserCardPage("} {
			if strings.Contains(string(src), name) {
				t.Errorf("%s mentions %s: the card page is the cards service's to release", path, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
