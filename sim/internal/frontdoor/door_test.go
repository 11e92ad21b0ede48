package frontdoor

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// The door refuses a row of the contract table it cannot open or whose
// failures it cannot write, so sim.New fails instead of a request.
func TestCovers(t *testing.T) {
	open := func(echo.Context, contract.Op, []byte, error, any) (*Call, error) { return nil, nil }
	render := func(echo.Context, *Call, fault.Action) (bool, error) { return false, nil }
	fail := func(contract.Op, *Call) *httpx.Error { return &httpx.Error{} }
	d := &Door{Openers: map[contract.Auth]Opener{contract.APIKey: open}, Dialects: map[contract.Dialect]Dialect{contract.Coupon: render},
		Failures: map[contract.Dialect]Failure{contract.Coupon: fail}}
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

// A panic in an operation, or an error it left unanswered, is answered
// with the operation's platform failure in its host's shape (HTTP 500)
// and logged, the panic with its stack; an answer passes as it is.
func TestHandle_panicAndUnansweredErrorAreThePlatformFailure(t *testing.T) {
	var logs strings.Builder
	open := func(echo.Context, contract.Op, []byte, error, any) (*Call, error) {
		return &Call{Scenario: &scenario.Scenario{}}, nil
	}
	d := &Door{
		Openers:  map[contract.Auth]Opener{contract.APIKey: open},
		Failures: map[contract.Dialect]Failure{contract.Coupon: func(contract.Op, *Call) *httpx.Error { return &httpx.Error{Body: "coupon shape"} }},
		Log:      slog.New(slog.NewTextHandler(&logs, nil)),
	}
	op := contract.Op{Name: "op", Auth: contract.APIKey, Dialect: contract.Coupon}
	answer := &httpx.Error{Status: 409, Body: "own answer"}
	for _, tc := range []struct {
		name  string
		serve func() error
		want  *httpx.Error
		log   string
	}{
		{"panic", func() error { panic("boom") }, &httpx.Error{Status: 500, Body: "coupon shape", Reason: "internal error: panic: boom"}, "door_test.go"},
		{"unanswered error", func() error { return errors.New("disk full") }, &httpx.Error{Status: 500, Body: "coupon shape", Reason: "internal error: disk full"}, "disk full"},
		{"answer", func() error { return answer }, answer, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs.Reset()
			h := Handle(d, Endpoint[struct{}]{Serve: func(echo.Context, *Call, *struct{}) error { return tc.serve() }})
			c := echo.New().NewContext(httptest.NewRequest("POST", "/", strings.NewReader("{}")), httptest.NewRecorder())
			err := h(c, op)
			if !reflect.DeepEqual(err, tc.want) {
				t.Fatalf("answer = %#v, want %#v", err, tc.want)
			}
			if !strings.Contains(logs.String(), tc.log) || (tc.log == "") != (logs.Len() == 0) {
				t.Errorf("log %q, want one naming %q", logs.String(), tc.log)
			}
		})
	}
}
