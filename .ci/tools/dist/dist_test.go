// Package dist checks a release archive stands alone: `make dist
// PLATFORMS=linux/<this machine's arch>` builds only that archive, which
// holds the binary, README, docs/, certs/ (PKCS#12 included), the default
// scenario; every link of its Markdown resolves inside it; and the binary
// serves the archive's own scenario file from a folder holding nothing else.
package dist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"rewardsim.invalid/ci-tools/internal/repo"
)

const version = "v0.0.0-disttest"

func TestArchiveStandsAlone(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	platform := "linux/" + runtime.GOARCH
	mk := exec.Command("make", "dist", "PLATFORMS="+platform, "VERSION="+version)
	mk.Dir = root
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make dist PLATFORMS=%s: %v\n%s", platform, err, out)
	}
	archives, _ := filepath.Glob(filepath.Join(root, "dist", "rewardsim_*"))
	want := filepath.Join(root, "dist", "rewardsim_"+version+"_linux_"+runtime.GOARCH+".tar.gz")
	if len(archives) != 1 || archives[0] != want {
		t.Fatalf("make dist PLATFORMS=%s wrote %v, want only %s", platform, archives, want)
	}

	dir := t.TempDir()
	untar(t, want, dir)
	for _, f := range []string{"rewardsim", "README.md", "scenarios/default.yaml", "docs/README.md", "docs/contract.md",
		"certs/README.md", "certs/publisher-dev.p12", "certs/publisher-dev.key", "certs/publisher-dev.crt", "certs/service-dev.crt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("archive lacks %s", f)
		}
	}
	p12, _ := os.ReadFile(filepath.Join(dir, "certs", "publisher-dev.p12"))
	if orig, _ := os.ReadFile(filepath.Join(root, "certs", "publisher-dev.p12")); !bytes.Equal(p12, orig) || len(p12) == 0 {
		t.Errorf("certs/publisher-dev.p12 in the archive differs from the repository's")
	}

	// Every relative Markdown link resolves inside the archive.
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, _ := os.ReadFile(p)
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			if strings.Contains(m[1], "://") || strings.HasPrefix(m[1], "mailto:") {
				continue
			}
			n++
			target := filepath.Clean(filepath.Join(filepath.Dir(p), m[1]))
			rel, _ := filepath.Rel(dir, target)
			if _, err := os.Stat(target); err != nil || strings.HasPrefix(rel, "..") {
				r, _ := filepath.Rel(dir, p)
				t.Errorf("%s links %s, not in the archive", r, m[1])
			}
		}
		return nil
	})
	if n < 20 {
		t.Errorf("only %d links checked: has the archive lost its docs?", n)
	}

	// The binary, run from the unpacked folder with the archive's scenario.
	bin := filepath.Join(dir, "rewardsim")
	if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.HasPrefix(string(out), "rewardsim "+version+"\n") {
		t.Fatalf("rewardsim version: %v %s", err, out)
	}
	serve := exec.Command(bin, "serve", "--scenario", "scenarios/default.yaml", "--data", "data",
		"--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--log-level", "error")
	serve.Dir = dir
	urls, stop, err := repo.StartServe(serve)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if out, err := exec.Command(bin, "healthcheck", "--control", urls["control"]).CombinedOutput(); err != nil {
		t.Fatalf("healthcheck --control %s: %v %s", urls["control"], err, out)
	}
	res, err := http.Get(urls["control"] + "/__sim/certs/publisher-dev.p12")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(served, p12) {
		t.Errorf("GET /__sim/certs/publisher-dev.p12: HTTP %d, %d bytes, want the archive's %d", res.StatusCode, len(served), len(p12))
	}
	_ = serve.Process.Signal(syscall.SIGTERM)
}

func untar(t *testing.T, archive, dir string) {
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.Clean("/"+h.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, os.FileMode(h.Mode).Perm())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		out.Close()
	}
}
