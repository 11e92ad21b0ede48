// Command mkdist cross-compiles rewardsim for linux, darwin and windows on
// amd64 and arm64 (static, CGO off), or the -platforms given, into release
// archives and a SHA256SUMS file in sha256sum's format (make dist;
// `sha256sum -c` checks it). Each archive stands alone: the binary, the
// README, docs/, certs/ (every form of the test-only keys, PKCS#12
// included, with their README), the default scenario and the license,
// so every link of its README resolves inside it.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rewardsim.invalid/ci-tools/internal/repo"
)

const allPlatforms = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64"

func main() {
	version := flag.String("version", "dev", "version stamped into the binaries and archive names")
	commit := flag.String("commit", "unknown", "source revision stamped into the binaries")
	date := flag.String("date", "unknown", "build date stamped into the binaries")
	out := flag.String("out", "dist", "folder for the archives and SHA256SUMS")
	platforms := flag.String("platforms", allPlatforms, "comma-separated GOOS/GOARCH pairs to build")
	flag.Parse()
	if err := run(*version, *commit, *date, *out, *platforms); err != nil {
		fmt.Fprintln(os.Stderr, "mkdist:", err)
		os.Exit(1)
	}
}

func run(version, commit, date, out, platforms string) error {
	root, err := repo.Root()
	if err != nil {
		return err
	}
	var targets [][2]string
	for _, p := range strings.Split(platforms, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(p), "/")
		if !ok || !strings.Contains(allPlatforms, goos+"/"+goarch) {
			return fmt.Errorf("platform %q: want one of %s", p, allPlatforms)
		}
		targets = append(targets, [2]string{goos, goarch})
	}
	kit, err := kitFiles(root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "mkdist")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var sums bytes.Buffer
	for _, t := range targets {
		goos, goarch := t[0], t[1]
		exe := "rewardsim"
		if goos == "windows" {
			exe += ".exe"
		}
		bin := filepath.Join(tmp, goos+"-"+goarch, exe)
		if err := repo.Build(root, bin, goos, goarch, version, commit, date); err != nil {
			return err
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		files := append([]file{{exe, 0o755, data}}, kit...)
		name := fmt.Sprintf("rewardsim_%s_%s_%s", version, goos, goarch)
		var archive []byte
		if goos == "windows" {
			name += ".zip"
			archive, err = zipOf(files)
		} else {
			name += ".tar.gz"
			archive, err = tarGzOf(files)
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, name), archive, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256(archive), name)
		fmt.Println("mkdist:", filepath.Join(out, name))
	}
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), sums.Bytes(), 0o644)
}

// kitFiles are what every archive holds beside the binary, read from the
// checkout: the README, docs/*.md and the pictures they show, certs/ (not its Go file), the default
// scenario and the license, when the repository has one.
func kitFiles(root string) ([]file, error) {
	var files []file
	add := func(rel string) error {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return err
		}
		files = append(files, file{filepath.ToSlash(rel), 0o644, data})
		return nil
	}
	for _, rel := range []string{"README.md", "scenarios/default.yaml"} {
		if err := add(rel); err != nil {
			return nil, err
		}
	}
	for _, lic := range []string{"LICENSE", "LICENSE.md", "NOTICE"} {
		if _, err := os.Stat(filepath.Join(root, lic)); err == nil {
			if err := add(lic); err != nil {
				return nil, err
			}
		}
	}
	for _, dir := range []string{"docs", "certs"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() || strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			// The docs' pages and the pictures they show (sweep.md's matrix).
			if dir == "docs" && !strings.HasSuffix(e.Name(), ".md") && !strings.HasSuffix(e.Name(), ".png") {
				continue
			}
			if err := add(dir + "/" + e.Name()); err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}

type file struct {
	name string
	mode int64
	data []byte
}

// mtime is fixed so an archive is a function of its files.
var mtime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func tarGzOf(files []file) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: mtime, Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func zipOf(files []file) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(os.FileMode(f.mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := io.Copy(w, bytes.NewReader(f.data)); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
