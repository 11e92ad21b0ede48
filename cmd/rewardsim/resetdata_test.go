package main

import (
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A data folder written by another version of rewardsim (here a state
// file with no format version, as every build before versions wrote) is
// refused at start-up with a line naming --reset-data; serve
// --reset-data wipes the state and journal files and starts afresh.
func TestServe_refusesAnotherVersionsDataUntilReset(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	data := t.TempDir()
	writeOldState(t, data)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "serve", "--data", data, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "written by another version of rewardsim") || !strings.Contains(string(out), "--reset-data") {
		t.Fatalf("serve over another version's data: %v\n%s", err, out)
	}

	cmd, urls := startServe(t, bin, data, "--reset-data")
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	if _, err := demoPublisher(t, urls["all"]).UserToken(ctx, "VU-1"); err != nil {
		t.Fatalf("after --reset-data: %v", err)
	}
	if res, err := http.Get(urls["control"] + "/__sim/health"); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("health after --reset-data: %v %v", res, err)
	}
}

// writeOldState writes a state file with no format version into data, as
// every build before versions wrote.
func writeOldState(t *testing.T, data string) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(data, "rewardsim.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("cards")); return err }); err != nil {
		t.Fatal(err)
	}
	db.Close()
}
