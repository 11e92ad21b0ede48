package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim"
)

// Set by the linker in release builds (make build, dist, image):
// -X main.version=... -X main.commit=... -X main.date=...
var version, commit, date string

// buildInfo is what `rewardsim version` prints and /__sim/health carries.
type buildInfo struct {
	Version, Commit, Date, Go string
}

// readBuildInfo prefers the linker's values and falls back to what the Go
// toolchain recorded (module version, VCS revision and time), so a plain
// `go build` or `go install` still says where it came from.
func readBuildInfo() buildInfo {
	bi := buildInfo{Version: version, Commit: commit, Date: date, Go: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		if bi.Version == "" {
			bi.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && bi.Commit == "":
				bi.Commit = s.Value
			case s.Key == "vcs.time" && bi.Date == "":
				bi.Date = s.Value
			}
		}
	}
	if bi.Version == "" {
		bi.Version = "(devel)"
	}
	if bi.Commit == "" {
		bi.Commit = "unknown"
	}
	if bi.Date == "" {
		bi.Date = "unknown"
	}
	return bi
}

func (b buildInfo) String() string {
	return fmt.Sprintf("rewardsim %s\ncommit: %s\nbuilt: %s\ngo: %s\n", b.Version, b.Commit, b.Date, b.Go)
}

// newVersionCmd reads the same settings as serve (flags, REWARDSIM_*
// environment, --config file), so the crypto line says what serve would
// use with them: REWARDSIM_CRYPTO=go rewardsim version says go.
func newVersionCmd() *cobra.Command {
	return configCommand("version", "Print version, commit, build date, Go version and the RSA back end serve would use",
		func(cmd *cobra.Command, cfg serveConfig) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "%scrypto: %s\n", readBuildInfo(), cryptoBackend(cfg.Crypto))
			return err
		})
}

// cryptoBackend is the RSA back end serve picks for a crypto setting:
// go is go; libcrypto and auto load libcrypto (here, synchronously) and
// say why not when it does not load.
func cryptoBackend(setting string) string {
	switch setting {
	case sim.CryptoGo:
		return sim.CryptoGo
	case sim.CryptoLibcrypto, sim.CryptoAuto, "":
		if err := sim.UseCrypto(sim.CryptoLibcrypto); err != nil {
			if setting == sim.CryptoLibcrypto {
				return "none: serve would refuse to start (" + err.Error() + ")"
			}
			return sim.CryptoGo + " (" + err.Error() + ")"
		}
		return sim.CryptoLibcrypto
	}
	return "none: serve would refuse --crypto " + setting
}
