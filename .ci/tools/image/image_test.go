// Package image tests rewardsim's container image without a container
// engine: it reads the image `make image` wrote (or builds one), unpacks
// its layers into a temporary root, runs the binary from there with the
// image's own entrypoint and environment, and makes a signed call.
package image

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"rewardsim.invalid/ci-tools/internal/ociimage"
	"rewardsim.invalid/ci-tools/internal/repo"
	"rewardsim.invalid/ci-tools/internal/signcheck"
)

// imageEnv names the folder `make image` wrote; unset, the test builds
// an image of the working tree itself.
const imageEnv = "REWARDSIM_IMAGE"

func imageDir(t *testing.T) string {
	if dir := os.Getenv(imageEnv); dir != "" {
		return dir
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "rewardsim")
	if err := repo.Build(root, bin, "linux", runtime.GOARCH, "v0.0.0-imagetest", "test", "unknown"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	img, err := ociimage.Build(data, runtime.GOARCH, "v0.0.0-imagetest", "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := ociimage.Write(img, dir, "rewardsim", "v0.0.0-imagetest", ""); err != nil {
		t.Fatal(err)
	}
	return dir
}

// loadBoth reads the docker tarball and the OCI layout and checks they
// hold the same image.
func loadBoth(t *testing.T, dir string) v1.Image {
	fromTar, err := tarball.ImageFromPath(filepath.Join(dir, ociimage.TarballName), nil)
	if err != nil {
		t.Fatalf("docker tarball: %v", err)
	}
	idx, err := layout.ImageIndexFromPath(filepath.Join(dir, ociimage.LayoutDir))
	if err != nil {
		t.Fatalf("OCI layout: %v", err)
	}
	im, err := idx.IndexManifest()
	if err != nil || len(im.Manifests) != 1 {
		t.Fatalf("OCI layout index: %v, %d manifests", err, len(im.Manifests))
	}
	fromLayout, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	// The docker tarball re-synthesises its manifest with Docker media
	// types, so compare what both carry: the config and the layers.
	ct, _ := fromTar.ConfigName()
	cl, _ := fromLayout.ConfigName()
	lt, _ := fromTar.Layers()
	ll, _ := fromLayout.Layers()
	if ct != cl || len(lt) != 1 || len(ll) != 1 {
		t.Fatalf("tarball config %s (%d layers) differs from layout config %s (%d layers)", ct, len(lt), cl, len(ll))
	}
	dt, _ := lt[0].Digest()
	dl, _ := ll[0].Digest()
	if dt != dl {
		t.Fatalf("tarball layer %s differs from layout layer %s", dt, dl)
	}
	return fromLayout
}

// Both images of `make image`: the libcrypto one (dist/image) and the
// static one (REWARDSIM_IMAGE_STATIC, dist/image-static), when given.
func TestImageRunsFromItsLayers(t *testing.T) {
	t.Run("image", func(t *testing.T) { runFromLayers(t, imageDir(t)) })
	if dir := os.Getenv("REWARDSIM_IMAGE_STATIC"); dir != "" {
		t.Run("static", func(t *testing.T) { runFromLayers(t, dir) })
	}
}

func runFromLayers(t *testing.T, dir string) {
	img := loadBoth(t, dir)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	// The configuration a container engine would honour.
	if cf.OS != "linux" || len(c.Entrypoint) != 2 || c.Entrypoint[1] != "serve" {
		t.Fatalf("os %q entrypoint %q", cf.OS, c.Entrypoint)
	}
	if c.User == "" || c.User == "0" || strings.HasPrefix(c.User, "0:") || c.User == "root" {
		t.Errorf("user %q is root", c.User)
	}
	for _, p := range []string{"8080/tcp", "8090/tcp"} {
		if _, ok := c.ExposedPorts[p]; !ok {
			t.Errorf("port %s not exposed", p)
		}
	}
	if _, ok := c.Volumes["/data"]; !ok {
		t.Errorf("no /data volume: %v", c.Volumes)
	}
	for _, l := range []string{"org.opencontainers.image.version", "org.opencontainers.image.source"} {
		if c.Labels[l] == "" {
			t.Errorf("label %s missing", l)
		}
	}
	if c.Healthcheck == nil || len(c.Healthcheck.Test) < 2 || c.Healthcheck.Test[0] != "CMD" {
		t.Fatalf("healthcheck %+v", c.Healthcheck)
	}
	for _, want := range []string{"REWARDSIM_LISTEN=0.0.0.0:8080", "REWARDSIM_CONTROL_LISTEN=0.0.0.0:8090", "REWARDSIM_DATA=/data"} {
		if !slices.Contains(c.Env, want) {
			t.Errorf("env lacks %s: %v", want, c.Env)
		}
	}

	root := t.TempDir()
	unpack(t, img, root)
	bin := filepath.Join(root, c.Entrypoint[0])
	checkLinkage(t, root, bin)

	// The image's environment, with what `docker run -e` would change
	// for a shared machine: free ports (the host stays 0.0.0.0) and the
	// /data volume where this root has it.
	env := []string{}
	for _, kv := range c.Env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "REWARDSIM_LISTEN", "REWARDSIM_CONTROL_LISTEN":
			host, _, err := net.SplitHostPort(v)
			if err != nil {
				t.Fatal(err)
			}
			v = net.JoinHostPort(host, "0")
		case "REWARDSIM_DATA":
			v = filepath.Join(root, v)
		}
		env = append(env, k+"="+v)
	}
	cmd := exec.Command(bin, append(slices.Clone(c.Entrypoint[1:]), c.Cmd...)...)
	cmd.Env, cmd.Dir = env, filepath.Join(root, c.WorkingDir)
	urls, stop, err := repo.StartServe(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	public, control := loopback(t, urls["all"]), loopback(t, urls["control"])

	// The health check as the engine would run it, against this process.
	hc := exec.Command(filepath.Join(root, c.Healthcheck.Test[1]), c.Healthcheck.Test[2:]...)
	hc.Env = append(slices.Clone(env), "REWARDSIM_CONTROL_LISTEN="+strings.TrimPrefix(control, "http://"))
	if out, err := hc.CombinedOutput(); err != nil || !strings.Contains(string(out), "ok "+c.Labels["org.opencontainers.image.version"]) {
		t.Fatalf("healthcheck: %v %s", err, out)
	}

	// A signed call: the image's own `rewardsim sign` seals the payload;
	// the answer's signature is checked with the served certificate.
	sign := exec.Command(bin, "sign")
	sign.Stdin = strings.NewReader(`{"bName":"DEMOBANK"}`)
	envelope, err := sign.Output()
	if err != nil {
		t.Fatalf("rewardsim sign: %v", err)
	}
	res, err := http.Post(public+"/api/getSecuredReferenceToken", "application/json", bytes.NewReader(envelope))
	if err != nil {
		t.Fatal(err)
	}
	var ans struct{ SIGN, BDATA, STATUS, ERRORSTRING string }
	err = json.NewDecoder(res.Body).Decode(&ans)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 || ans.SIGN == "" {
		t.Fatalf("getSecuredReferenceToken: HTTP %d %+v %v", res.StatusCode, ans, err)
	}
	pub, err := signcheck.ServicePub(control)
	if err != nil {
		t.Fatal(err)
	}
	if err := signcheck.Verify(pub, ans.BDATA, ans.SIGN); err != nil {
		t.Fatalf("answer signature: %v", err)
	}
	raw, _ := base64.StdEncoding.DecodeString(ans.BDATA)
	var tok struct{ ReferenceKey string }
	if json.Unmarshal(raw, &tok) != nil || len(tok.ReferenceKey) < 16 {
		t.Fatalf("BDATA %s", raw)
	}
	if _, err := os.Stat(filepath.Join(root, "data")); err != nil {
		t.Fatalf("state not under the /data volume: %v", err)
	}
}

// unpack writes the image's flattened filesystem under root.
func unpack(t *testing.T, img v1.Image, root string) {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Clean("/" + h.Name)
		dst := filepath.Join(root, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode).Perm())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(f, tr); err != nil {
				t.Fatal(err)
			}
			f.Close()
		case tar.TypeSymlink: // the ELF loader's link in the libcrypto image
			if err := os.Symlink(h.Linkname, dst); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("unexpected entry %s of type %c", h.Name, h.Typeflag)
		}
	}
}

// checkLinkage passes a static binary, or a dynamic one whose ELF
// interpreter, libc and libcrypto are all in the image's root (the
// libcrypto image carries them from Debian's packages).
func checkLinkage(t *testing.T, root, bin string) {
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	interp := ""
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			data := make([]byte, p.Filesz)
			if _, err := p.ReadAt(data, 0); err != nil {
				t.Fatal(err)
			}
			interp = strings.TrimRight(string(data), "\x00")
		}
	}
	if interp == "" {
		return // static
	}
	needed, _ := f.ImportedLibraries()
	for _, want := range append([]string{interp, "libcrypto.so.3"}, needed...) {
		if !inRoot(root, want) {
			t.Errorf("dynamic binary needs %s, which the image lacks", want)
		}
	}
}

// inRoot finds a library in the image's root by path or by name under
// the multiarch library folders, following links inside the root.
func inRoot(root, lib string) bool {
	if strings.HasPrefix(lib, "/") {
		p := filepath.Join(root, lib)
		for i := 0; i < 8; i++ {
			fi, err := os.Lstat(p)
			if err != nil {
				return false
			}
			if fi.Mode()&os.ModeSymlink == 0 {
				return true
			}
			target, _ := os.Readlink(p)
			if !strings.HasPrefix(target, "/") {
				target = filepath.Join(filepath.Dir(strings.TrimPrefix(p, root)), target)
			}
			p = filepath.Join(root, target)
		}
		return false
	}
	found, _ := filepath.Glob(filepath.Join(root, "*", "lib", "*-linux-gnu", lib))
	more, _ := filepath.Glob(filepath.Join(root, "lib", "*-linux-gnu", lib))
	return len(found)+len(more) > 0
}

// loopback turns a wildcard listener's URL into one on 127.0.0.1.
func loopback(t *testing.T, u string) string {
	hostport := strings.TrimPrefix(u, "http://")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
		t.Fatalf("listener %s is not on the image's wildcard address", u)
	}
	return "http://127.0.0.1:" + port
}

// The Dockerfile (not built here: no engine) says what the Go-built image
// says: entrypoint, environment, user, ports, volume, health check.
func TestDockerfileAgreesWithTheImage(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	df := string(data)
	c := ociimage.Config("v", "r")
	quoted := func(words []string) string {
		b, _ := json.Marshal(words)
		return strings.ReplaceAll(string(b), ",", ", ")
	}
	want := []string{
		"ENTRYPOINT " + quoted(c.Entrypoint),
		"HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD " + quoted(c.Healthcheck.Test[1:]),
		"USER " + c.User,
		"WORKDIR " + c.WorkingDir,
		`VOLUME ["/data"]`,
		"EXPOSE 8080 8090",
		"\nFROM scratch\n",
		"CGO_ENABLED=0 go build",
	}
	for _, kv := range c.Env {
		want = append(want, kv)
	}
	for _, w := range want {
		if !strings.Contains(df, w) {
			t.Errorf("Dockerfile lacks %q", w)
		}
	}
}
