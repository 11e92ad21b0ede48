// Command mkimage builds rewardsim's OCI image from a linux binary (make
// image): a docker-loadable tarball and an OCI layout, no daemon. A
// static binary needs nothing else; a cgo one takes -libs.
//
//	go run ./cmd/mkimage -binary ../../bin/linux-amd64/rewardsim -arch amd64 -version v1.2.3 -out ../../dist/image
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"rewardsim.invalid/ci-tools/internal/ociimage"
)

func main() {
	binary := flag.String("binary", "", "static linux rewardsim binary (CGO_ENABLED=0)")
	arch := flag.String("arch", "amd64", "GOARCH the binary was built for")
	version := flag.String("version", "dev", "image version (label and tag)")
	revision := flag.String("revision", "unknown", "source revision (label)")
	out := flag.String("out", "dist/image", "folder for "+ociimage.TarballName+" and "+ociimage.LayoutDir+"/")
	repo := flag.String("repo", "rewardsim", "repository name of the tarball's tags")
	libs := flag.String("libs", "", "folder where Debian's libc6 and libssl3 .debs are unpacked: the binary is dynamic (cgo) and signs with libcrypto")
	suffix := flag.String("suffix", "", "tag suffix, such as -static")
	flag.Parse()
	if err := run(*binary, *arch, *version, *revision, *out, *repo, *libs, *suffix); err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

func run(binary, arch, version, revision, out, repo, libs, suffix string) error {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return err
	}
	var extra []ociimage.Entry
	if libs != "" {
		if extra, err = ociimage.LibsFrom(libs); err != nil {
			return err
		}
	}
	img, err := ociimage.BuildWith(bin, arch, version, revision, extra)
	if err != nil {
		return err
	}
	if err := ociimage.Write(img, out, repo, version, suffix); err != nil {
		return err
	}
	d, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("mkimage: %s:%s%s %s -> %s and %s/\n", repo, version, suffix, d, filepath.Join(out, ociimage.TarballName), filepath.Join(out, ociimage.LayoutDir))
	return nil
}
