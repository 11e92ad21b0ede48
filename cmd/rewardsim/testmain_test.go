package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes the binary issue20Binary built once for the package's
// tests: a run leaves no temporary folder behind, pass or fail.
func TestMain(m *testing.M) {
	code := m.Run()
	if issue20Bin.path != "" {
		_ = os.RemoveAll(filepath.Dir(issue20Bin.path))
	}
	os.Exit(code)
}
