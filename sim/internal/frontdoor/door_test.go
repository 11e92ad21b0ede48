package frontdoor

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
)

// The door refuses a row of the contract table it cannot open or whose
// failures it cannot write, so sim.New fails instead of a request.
func TestCovers(t *testing.T) {
	open := func(echo.Context, contract.Op, []byte, error, any) (*Call, error) { return nil, nil }
	render := func(echo.Context, *Call, fault.Action) (bool, error) { return false, nil }
	d := &Door{Openers: map[contract.Auth]Opener{contract.APIKey: open}, Dialects: map[contract.Dialect]Dialect{contract.Coupon: render}}
	if err := d.Covers([]contract.Op{{Name: "a", Auth: contract.APIKey, Dialect: contract.Coupon}, {Name: "na", Dialect: contract.NotAvailable}}); err != nil {
		t.Fatalf("covered ops refused: %v", err)
	}
	for _, op := range []contract.Op{{Name: "noOpener", Auth: contract.BearerRef, Dialect: contract.Coupon}, {Name: "noDialect", Auth: contract.APIKey, Dialect: contract.SDK}} {
		if err := d.Covers([]contract.Op{op}); err == nil || !strings.Contains(err.Error(), op.Name) {
			t.Errorf("%s: %v, want a refusal naming it", op.Name, err)
		}
	}
	if err := (&Door{}).Covers(contract.Ops); err == nil {
		t.Error("an empty door covers the contract table")
	}
}

// The fault decision (fault.First) is called from this package's door.go
// only, and a request body is read (httpx.ReadBody) there too, but for the
// control API's own bodies and the microsite pages' (not operations of the
// contract table).
func TestOneDecisionOneRead(t *testing.T) {
	allowedReads := map[string]bool{
		"internal/frontdoor/door.go": true, "internal/api/control/control.go": true, "internal/api/control/scenarios.go": true,
		"internal/api/control/diagram.go": true, "internal/api/microsite/page.go": true,
	}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, _ := sel.X.(*ast.Ident)
			switch {
			case pkg == nil:
			case pkg.Name == "fault" && sel.Sel.Name == "First" && rel != "internal/frontdoor/door.go":
				t.Errorf("%s calls fault.First: the fault decision belongs to the front door", rel)
			case pkg.Name == "httpx" && sel.Sel.Name == "ReadBody" && !allowedReads[rel]:
				t.Errorf("%s reads a request body itself: the front door reads it once", rel)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
