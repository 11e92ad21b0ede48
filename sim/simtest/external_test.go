package simtest_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// exportedFuncs lists simtest's exported functions and the exported
// methods of its exported types ("Type.Method"), read from its source.
func exportedFuncs(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range pkgs["simtest"].Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv == nil {
				out = append(out, fd.Name.Name)
				continue
			}
			typ := fd.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
				out = append(out, id.Name+"."+fd.Name.Name)
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("found only %v exported functions", out)
	}
	return out
}

// goTool finds the go command that runs this test.
func goTool(t *testing.T) string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no go command on PATH or in GOROOT: %v", err)
	}
	return p
}

// clause: SIM-5
// A module outside this repository can call every exported function of
// simtest: testdata/outside is built and run as a module of its own that
// requires rewardsim through a replace directive (so it can use no
// internal package), offline, from the module cache.
func TestPublicAPI_SIM5_usableFromAnotherModule(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "outside", "outside_test.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Methods are recognised by the variables that hold their receivers
	// in testdata/outside.
	receivers := map[string]string{"Clock": `clk`, "Server": `(s|srv|again)`, "Channel": `ch`}
	for _, name := range exportedFuncs(t) {
		call := `simtest\.` + name + `\(`
		if typ, method, ok := strings.Cut(name, "."); ok {
			if receivers[typ] == "" {
				t.Errorf("no receiver variable known for type %s", typ)
				continue
			}
			call = `\b` + receivers[typ] + `\.` + method + `\(`
		}
		if !regexp.MustCompile(call).Match(src) {
			t.Errorf("testdata/outside does not call %s (%s): every exported function must be usable from another module", name, call)
		}
	}

	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	// The outside module takes rewardsim's own requirements (so every
	// dependency resolves from go.sum and the module cache, no network)
	// plus rewardsim itself from this tree.
	mod := regexp.MustCompile(`(?m)^module .*$`).ReplaceAllString(string(gomod), "module example.com/outside")
	mod += "\nrequire github.com/rewardsim/rewardsim v0.0.0-00010101000000-000000000000\n" +
		"\nreplace github.com/rewardsim/rewardsim => " + root + "\n"
	dir := t.TempDir()
	for name, data := range map[string][]byte{"go.mod": []byte(mod), "go.sum": gosum, "outside_test.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool(t), "test", "-count=1", "./...")
	cmd.Dir = dir
	// -mod=mod lets go complete go.mod from the cache; GOSUMDB off because
	// go.sum already pins every module and the checksum database may be
	// out of reach; GOWORK off so no workspace around the folder applies.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOSUMDB=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in a module outside rewardsim: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "ok  \texample.com/outside") {
		t.Fatalf("the outside module's test did not pass:\n%s", out)
	}
}
