package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/scenarios"
)

// unboundedScenario is the default scenario with a coupon pattern whose
// {rand:N} would expand to a terabyte inside the reveal's transaction
// (issue 42, item 1), and the line the pattern is on.
func unboundedScenario(t *testing.T) (yaml string, line int) {
	t.Helper()
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	yaml = strings.Replace(string(def), `"BREW-{rand:8}"`, `"X-{rand:1000000000000}"`, 1)
	yaml = strings.Replace(yaml, "name: default", "name: huge", 1)
	if yaml == string(def) {
		t.Fatal("the default scenario no longer has the BREW-{rand:8} pattern this test replaces")
	}
	line = strings.Count(yaml[:strings.Index(yaml, "X-{rand:")], "\n") + 1
	return yaml, line
}

// clause: SIM-1
// A pattern wider than its documented bound is refused where it is
// loaded, with file, line and the bound: by the control API (400), by
// `rewardsim validate` and by `rewardsim serve --scenario`; and one
// already saved in a data folder (by an earlier build) is skipped with a
// log line at the next start instead of killing it.
func TestScenarioBounds_refusedAtLoadAndSkippedAtRestore(t *testing.T) {
	bin := issue20Binary(t)
	yaml, line := unboundedScenario(t)
	want := []string{":" + strconv.Itoa(line) + ":", "couponPattern", "MaxPatternWidth", "64"}
	has := func(what, got string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", what, got, w)
			}
		}
	}
	file := filepath.Join(t.TempDir(), "huge.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command(bin, "validate", file).CombinedOutput()
	if err == nil {
		t.Errorf("validate accepted the file: %s", out)
	}
	has("validate", string(out))
	// Without the bound serve would start and run: the deadline ends it.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err = exec.CommandContext(ctx, bin, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0",
		"--control-listen", "127.0.0.1:0", "--scenario", file).CombinedOutput()
	if err == nil {
		t.Errorf("serve --scenario started with the file: %s", out)
	}
	has("serve --scenario", string(out))

	data := t.TempDir()
	cmd, urls := startServe(t, bin, data)
	res, err := http.Post(urls["control"]+"/__sim/scenarios?name=huge.yaml&activate=true", "application/yaml", strings.NewReader(yaml))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("upload: HTTP %d %s, want 400", res.StatusCode, body)
	}
	has("upload", string(body))
	// A fault's delay has its bound too, on the control API as in a file.
	st, out, _ := ctlCall(t, urls["control"], "POST", "/__sim/faults", map[string]any{"endpoint": "GetReward", "action": map[string]any{"kind": "delay", "delay": "2h"}})
	if st != http.StatusBadRequest || !strings.Contains(string(out), "MaxDelay") {
		t.Errorf("a 2h delay rule: HTTP %d %s, want 400 naming MaxDelay", st, out)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()

	// What an earlier build, which had no bound, saved and activated: the
	// control plane's records as the store keeps them ("<kind>\x00<key>"
	// in the config bucket, JSON), written here with bbolt itself since
	// the store package is internal.
	saveConfig(t, filepath.Join(data, "rewardsim.db"), map[string]any{
		"scenario\x00huge": map[string]string{"name": "huge", "yaml": yaml},
		"activation\x00*":  map[string]string{"channel": "", "scenario": "huge"},
	})
	cmd, urls, stderr := startServeLogged(t, bin, data, "--log-level", "warn")
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	res, err = http.Get(urls["control"] + "/__sim/scenarios/active")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || strings.Contains(string(body), `"huge"`) {
		t.Errorf("active scenario after restart: HTTP %d %s, want the default", res.StatusCode, body)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	log := stderr.String()
	if !strings.Contains(log, "skipping a stored control record") {
		t.Errorf("the restart did not say it skipped the stored scenario: %s", log)
	}
	has("restart log", log)
}

// saveConfig writes control-plane records straight into a stopped
// simulator's store file.
func saveConfig(t *testing.T, file string, recs map[string]any) {
	t.Helper()
	db, err := bolt.Open(file, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("config"))
		if b == nil {
			return errors.New("no config bucket")
		}
		for k, v := range recs {
			raw, err := json.Marshal(v)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(k), raw); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}
