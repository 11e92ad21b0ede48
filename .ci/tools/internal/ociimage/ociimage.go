// Package ociimage assembles rewardsim's OCI image without a Docker daemon
// or a base image: one layer holding the static binary, a passwd entry for
// the non-root user and the /data volume, on go-containerregistry's
// empty.Image. Write stores it as a docker-loadable tarball and an OCI layout.
package ociimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// Build assembles the image around a static linux binary built for arch.
func Build(bin []byte, arch, version, revision string) (v1.Image, error) {
	// A fixed timestamp keeps the layer's digest a function of its content.
	epoch := time.Unix(0, 0).UTC()
	layerTar, err := rootfs(bin, epoch)
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
// repo:version and repo:latest) and as an OCI layout in LayoutDir.
func Write(img v1.Image, out, repo, version string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	refs := map[name.Reference]v1.Image{}
	for _, t := range []string{repo + ":" + version, repo + ":latest"} {
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
// non-root user, and /data and /tmp owned so that user can write.
func rootfs(bin []byte, mtime time.Time) ([]byte, error) {
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
