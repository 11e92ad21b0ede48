package docs

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxFuncLines is the longest a non-test function may be, from its func
// line to its closing brace: past it a reader loses the thread, and a
// helper's name says what the block it replaces does.
const maxFuncLines = 80

// generated is the line go generate's tools put at the top of their
// output (https://go.dev/s/generatedcode); such files are not read.
var generated = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// skippedDirs hold dependencies and test inputs, wherever they are;
// outputDirs, the build's output at the root (.ci/tools/dist is code).
var (
	skippedDirs = map[string]bool{".git": true, "node_modules": true, "testdata": true}
	outputDirs  = map[string]bool{"bin": true, "dist": true}
)

// TestNoLongFunctions walks every Go file of the repository (every
// module in it, .ci and examples included) and names each non-test
// function longer than maxFuncLines.
func TestNoLongFunctions(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skippedDirs[d.Name()] || outputDirs[d.Name()] && filepath.Dir(path) == root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || isGenerated(t, path) {
			return nil
		}
		files++
		for _, long := range longFunctions(t, root, path) {
			t.Error(long)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no Go file found under %s", root)
	}
}

// longFunctions names, as file:line name (n lines), every function
// declaration and function literal of path over maxFuncLines.
func longFunctions(t *testing.T, root, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	rel, _ := filepath.Rel(root, path)
	var long []string
	ast.Inspect(f, func(n ast.Node) bool {
		var name string
		switch fn := n.(type) {
		case *ast.FuncDecl:
			if fn.Body == nil {
				return true
			}
			name = fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				name = receiverName(fn.Recv.List[0].Type) + "." + name
			}
		case *ast.FuncLit:
			name = "func literal"
		default:
			return true
		}
		from, to := fset.Position(n.Pos()), fset.Position(n.End())
		if lines := to.Line - from.Line + 1; lines > maxFuncLines {
			long = append(long, fmt.Sprintf("%s:%d: %s is %d lines, over %d", rel, from.Line, name, lines, maxFuncLines))
		}
		return true
	})
	return long
}

// receiverName is T of a method on T or *T (or T[P]).
func receiverName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverName(x.X)
	case *ast.IndexExpr:
		return receiverName(x.X)
	case *ast.IndexListExpr:
		return receiverName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

// isGenerated reports whether path's header, before its package clause,
// carries the generated-code line.
func isGenerated(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if generated.MatchString(line) {
			return true
		}
		if strings.HasPrefix(line, "package ") {
			return false
		}
	}
	return false
}
