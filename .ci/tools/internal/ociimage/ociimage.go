// Package ociimage assembles rewardsim's OCI image without a Docker daemon
// or a base image: one layer holding the binary, a passwd entry for the
// non-root user and the /data volume, on go-containerregistry's
// empty.Image, plus (for the cgo binary that signs with libcrypto) the
// shared libraries it needs, taken from Debian's .deb files as distroless
// images are made. Write stores it as a docker-loadable tarball and an OCI
// layout.
package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Where things sit inside the image.
const (
	BinaryPath = "/usr/local/bin/rewardsim"
	DataDir    = "/data"
	UID        = 65532 // the conventional "nonroot" of distroless images
	Source     = "https://github.com/rewardsim/rewardsim"
	// TarballName and LayoutDir are what Write puts in its folder.
	TarballName = "rewardsim-image.tar"
	LayoutDir   = "oci"
)

// Entry is one more file or symbolic link of the layer (Name without a
// leading slash).
type Entry struct {
	Name string
	Mode int64
	Data []byte
	Link string // a symbolic link's target, when set
}

// Build assembles the image around a static linux binary built for arch.
func Build(bin []byte, arch, version, revision string) (v1.Image, error) {
	return BuildWith(bin, arch, version, revision, nil)
}

// BuildWith is Build with extra entries in the layer: the shared
// libraries of a dynamically linked binary.
func BuildWith(bin []byte, arch, version, revision string, extra []Entry) (v1.Image, error) {
	// A fixed timestamp keeps the layer's digest a function of its content.
	epoch := time.Unix(0, 0).UTC()
	layerTar, err := rootfs(bin, extra, epoch)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", arch
	cfg.Created = v1.Time{Time: epoch}
	cfg.Config = Config(version, revision)
	return mutate.ConfigFile(img, cfg)
}

// Write stores img in out as TarballName (docker load; tagged
// repo:version and repo:latest, each with suffix such as "-static") and as
// an OCI layout in LayoutDir.
func Write(img v1.Image, out, repo, version, suffix string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	refs := map[name.Reference]v1.Image{}
	version += suffix
	for _, t := range []string{repo + ":" + version, repo + ":latest" + suffix} {
		tag, err := name.NewTag(t)
		if err != nil {
			return err
		}
		refs[tag] = img
	}
	if err := tarball.MultiRefWriteToFile(filepath.Join(out, TarballName), refs); err != nil {
		return err
	}
	ociDir := filepath.Join(out, LayoutDir)
	if err := os.RemoveAll(ociDir); err != nil {
		return err
	}
	p, err := layout.Write(ociDir, empty.Index)
	if err != nil {
		return err
	}
	return p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": version}))
}

// Config is the image's run configuration: `rewardsim serve` listening
// on every interface (a container's loopback is its own), state on the
// /data volume, as a non-root user, with a health check.
func Config(version, revision string) v1.Config {
	return v1.Config{
		Entrypoint: []string{BinaryPath, "serve"},
		Env: []string{
			"REWARDSIM_LISTEN=0.0.0.0:8080",
			"REWARDSIM_CONTROL_LISTEN=0.0.0.0:8090",
			"REWARDSIM_DATA=" + DataDir,
		},
		User:         fmt.Sprintf("%d:%d", UID, UID),
		WorkingDir:   DataDir,
		ExposedPorts: map[string]struct{}{"8080/tcp": {}, "8090/tcp": {}},
		Volumes:      map[string]struct{}{DataDir: {}},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "rewardsim",
			"org.opencontainers.image.description": "Hermetic contract simulator of the Rewards, Scratch Card and Coupon service",
			"org.opencontainers.image.version":     version,
			"org.opencontainers.image.revision":    revision,
			"org.opencontainers.image.source":      Source,
		},
		Healthcheck: &v1.HealthConfig{
			Test:     []string{"CMD", BinaryPath, "healthcheck"},
			Interval: 10 * time.Second, Timeout: 3 * time.Second, StartPeriod: 5 * time.Second, Retries: 3,
		},
	}
}

// rootfs is the layer: the binary, a passwd and group naming the
// non-root user, /data and /tmp owned so that user can write, and extra.
func rootfs(bin []byte, extra []Entry, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: mtime})
	}
	file := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: mtime}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	steps := []func() error{
		func() error { return dir("etc", 0o755, 0) },
		func() error {
			return file("etc/passwd", 0o644, fmt.Appendf(nil, "root:x:0:0:root:/root:/sbin/nologin\nrewardsim:x:%d:%d:rewardsim:%s:/sbin/nologin\n", UID, UID, DataDir))
		},
		func() error { return file("etc/group", 0o644, fmt.Appendf(nil, "root:x:0:\nrewardsim:x:%d:\n", UID)) },
		func() error { return dir("tmp", 0o1777, 0) },
		func() error { return dir("usr", 0o755, 0) },
		func() error { return dir("usr/local", 0o755, 0) },
		func() error { return dir("usr/local/bin", 0o755, 0) },
		func() error { return file(BinaryPath[1:], 0o755, bin) },
		func() error { return dir(DataDir[1:], 0o755, UID) },
	}
	made := map[string]bool{"etc": true, "tmp": true, "usr": true, "usr/local": true, "usr/local/bin": true, DataDir[1:]: true}
	for _, e := range extra {
		steps = append(steps, func() error {
			var parents []string
			for d := path.Dir(e.Name); d != "." && !made[d]; d = path.Dir(d) {
				parents = append([]string{d}, parents...)
			}
			for _, d := range parents {
				made[d] = true
				if err := dir(d, 0o755, 0); err != nil {
					return err
				}
			}
			if e.Link != "" {
				return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: e.Name, Linkname: e.Link, Mode: 0o777, ModTime: mtime})
			}
			return file(e.Name, e.Mode, e.Data)
		})
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sharedLibs are the files a cgo rewardsim needs from Debian's libc6 and
// libssl3 packages: the ELF interpreter, libc, libcrypto (loaded with
// dlopen) and the packages' copyright files.
var sharedLibs = regexp.MustCompile(`(^|/)(ld-linux[^/]*\.so\.[0-9]+|libc\.so\.6|libcrypto\.so\.3)$|^usr/share/doc/(libc6|libssl3)/copyright$`)

// LibsFrom reads the shared libraries out of root, where the .deb files
// were unpacked (dpkg-deb -x), keeping symbolic links as links.
func LibsFrom(root string) ([]Entry, error) {
	var out []Entry
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !sharedLibs.MatchString(rel) {
			return nil
		}
		if d.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out = append(out, Entry{Name: rel, Link: target})
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, Entry{Name: rel, Mode: int64(info.Mode().Perm()), Data: data})
		return nil
	})
	if err == nil && len(out) < 4 {
		err = fmt.Errorf("%s holds %d of the shared libraries (ld-linux, libc.so.6, libcrypto.so.3): unpack libc6 and libssl3 there", root, len(out))
	}
	return out, err
}
