// Package docs holds rewardsim's documentation by topic. Its only code is
// tests: one runs every shell example of README.md and docs/*.md against a
// real `rewardsim serve` (see README.md in this folder: "Examples run as
// written"); reference_test.go holds configuration.md's flags table to
// `rewardsim serve --help` and control-api.md to sim/routes.go, so the docs
// cannot drift from the simulator.
package docs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// block is one ```sh example of a Markdown file.
type block struct {
	file   string
	line   int // of the opening fence
	code   string
	expect []string // "# expect: TEXT" lines: the block's output must contain each TEXT
}

var (
	skipMarker   = regexp.MustCompile(`^<!-- doctest: skip \(([^)]+)\) -->$`)
	expectMarker = regexp.MustCompile(`^\s*# expect: (.+)$`)
)

// extract returns the ```sh blocks of a Markdown file, less those right
// after a `<!-- doctest: skip (reason) -->` line, and the skipped count.
func extract(t *testing.T, path string) (run []block, skipped int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```sh" {
			continue
		}
		b := block{file: path, line: i + 1}
		prev := ""
		if i > 0 {
			prev = strings.TrimSpace(lines[i-1])
		}
		skip := skipMarker.MatchString(prev)
		if !skip && strings.HasPrefix(prev, "<!-- doctest") {
			t.Fatalf("%s:%d: %q: write <!-- doctest: skip (reason) -->", path, i, prev)
		}
		var code []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			code = append(code, lines[i])
			if m := expectMarker.FindStringSubmatch(lines[i]); m != nil {
				b.expect = append(b.expect, strings.TrimSpace(m[1]))
			}
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: a ```sh block that never closes", path, b.line)
		}
		if skip {
			skipped++
			continue
		}
		b.code = strings.Join(code, "\n")
		run = append(run, b)
	}
	return run, skipped
}

// goTool finds the go command that runs this test.
func goTool(t *testing.T) string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// serve starts `rewardsim serve` on free loopback ports with a fresh data
// folder and returns the public and control base URLs.
func serve(t *testing.T, bin string) (public, control string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--log-level", "error")
	cmd.Env = cleanEnv()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	urls := map[string]string{}
	found := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			// "rewardsim: all listening on http://127.0.0.1:NNNN"
			if f := strings.Fields(sc.Text()); len(f) == 5 && f[2] == "listening" && len(urls) < 2 {
				urls[f[1]] = f[4]
				if len(urls) == 2 {
					close(found)
				}
			}
		}
	}()
	select {
	case <-found:
	case <-time.After(30 * time.Second):
		t.Fatalf("rewardsim serve did not report its listeners; stderr: %s", stderr.String())
	}
	return urls["all"], urls["control"]
}

// cleanEnv is this process's environment without REWARDSIM_* settings, so
// the examples see only what the docs tell the reader to set.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REWARDSIM_") {
			out = append(out, kv)
		}
	}
	return out
}

// workDir is a scratch folder that looks like the repository root to the
// examples (each top-level entry a link to the tree's) so that files they
// write at the top level never land in the tree.
func workDir(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const marker = "@@doctest-block-"

// TestDocs_examplesRunAsWritten runs each Markdown file's ```sh blocks in
// order, as one bash script (so a variable set in one block serves the
// next), against its own fresh `rewardsim serve`, with $REWARDS, $BANK,
// $HOTDEALS and $CONTROL set to its free ports and `rewardsim` on PATH.
// Every file must have at least one block that runs.
func TestDocs_examplesRunAsWritten(t *testing.T) {
	for _, tool := range []string{"curl", "wrk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the docs' examples need %s (make test installs it)", tool)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	build := exec.Command(goTool(t), "build", "-o", filepath.Join(binDir, "rewardsim"), "./cmd/rewardsim")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		blocks, _ := extract(t, file)
		t.Run(rel, func(t *testing.T) {
			if len(blocks) == 0 {
				t.Fatalf("%s has no ```sh example that runs: every chapter shows at least one", rel)
			}
			public, control := serve(t, filepath.Join(binDir, "rewardsim"))
			var script strings.Builder
			script.WriteString("set -euo pipefail\n")
			for i, b := range blocks {
				fmt.Fprintf(&script, "echo '%s%d@@'\n%s\n", marker, i, b.code)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
			cmd.Dir = workDir(t, root)
			cmd.Env = append(cleanEnv(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
				"REWARDS="+public, "BANK="+public, "HOTDEALS="+public, "CONTROL="+control)
			// Its own process group, so a background job of an example is
			// stopped with it.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			cmd.WaitDelay = 5 * time.Second
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			runErr := cmd.Run()
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			outputs := splitOutput(out.String(), len(blocks))
			if runErr != nil {
				last := 0
				for i := range blocks {
					if strings.Contains(out.String(), fmt.Sprintf("%s%d@@", marker, i)) {
						last = i
					}
				}
				b := blocks[last]
				t.Fatalf("%s:%d: the example failed (%v)\n--- example\n%s\n--- output\n%s", rel, b.line, runErr, b.code, outputs[last])
			}
			for i, b := range blocks {
				for _, want := range b.expect {
					if !strings.Contains(outputs[i], want) {
						t.Errorf("%s:%d: the output lacks %q (from its `# expect:` line)\n--- example\n%s\n--- output\n%s", rel, b.line, want, b.code, outputs[i])
					}
				}
			}
		})
	}
}

// splitOutput cuts the script's output at the block markers.
func splitOutput(out string, n int) []string {
	parts := make([]string, n)
	cur := -1
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(line, marker) {
			fmt.Sscanf(strings.TrimPrefix(line, marker), "%d", &cur)
			continue
		}
		if cur >= 0 && cur < n {
			parts[cur] += line
		}
	}
	return parts
}

// clause: none (docs)
// The extractor finds blocks, skips marked ones and reads expect lines, and
// a skip marker must give its reason.
func TestDocs_extract(t *testing.T) {
	md := "x\n```sh\necho a\n# expect: a\n```\n<!-- doctest: skip (starts a server) -->\n```sh\nmake run\n```\n```text\nnot run\n```\n"
	path := filepath.Join(t.TempDir(), "x.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	run, skipped := extract(t, path)
	if len(run) != 1 || skipped != 1 || run[0].code != "echo a\n# expect: a" || run[0].line != 2 || len(run[0].expect) != 1 || run[0].expect[0] != "a" {
		t.Fatalf("extract = %+v, skipped %d", run, skipped)
	}
	if skipMarker.MatchString("<!-- doctest: skip -->") {
		t.Error("a skip marker without a reason is accepted")
	}
}
