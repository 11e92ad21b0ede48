package sim_test

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim"
)

func errorsAs(err error, target any) bool { return err != nil && errors.As(err, target) }

func copyAll(b *strings.Builder, res *http.Response) (int64, error) { return io.Copy(b, res.Body) }

// scenarioWith is the default scenario with extra top-level YAML appended.
func scenarioWith(extra string) string {
	return `version: 1
name: test
seed: 7
channels:
  - name: DEMOBANK
    channelId: DEMOBANK
    certificateFile: builtin:publisher-dev.crt
    appKey: DEMOAPPKEY
    secKey: DEMOSECKEY
` + extra
}

func itoa(i int) string { return strconv.Itoa(i) }

// scenarioEdit replaces old with new in a valid base scenario; the result
// must be refused with a problem located in the file and containing want.
type scenarioEdit struct{ name, old, new, want string }

// checkScenarioEdits proves SIM-1's located errors for each edit, and that
// the base itself loads.
func checkScenarioEdits(t *testing.T, base string, cases []scenarioEdit) {
	t.Helper()
	dir := t.TempDir()
	for _, tc := range cases {
		if !strings.Contains(base, tc.old) {
			t.Fatalf("%s: the base scenario has no %q", tc.name, tc.old)
		}
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(strings.Replace(base, tc.old, tc.new, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		err := sim.ValidateScenario(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path+":") {
			t.Errorf("%s: %v, want a located problem containing %q", tc.name, err, tc.want)
		}
	}
	path := filepath.Join(dir, "ok.yaml")
	_ = os.WriteFile(path, []byte(base), 0o600)
	if err := sim.ValidateScenario(path); err != nil {
		t.Errorf("base scenario: %v", err)
	}
}
