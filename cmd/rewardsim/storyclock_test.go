package main

import (
	"strings"
	"syscall"
	"testing"
)

// A story's clock move is undone by `story clear`, also after the
// simulator restarted in between (issue 52, item 6; SIM-2): a channel
// that followed the global clock follows it again; a channel that had a
// clock of its own gets it back where it was.
func TestStoryClear_putsTheClockBackAfterARestart(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		name   string
		before []string // commands run before the story
		want   string   // in `clock --channel DEMOBANK --json` after clear
	}{
		{"global clock", nil, `"own": false`},
		{"own frozen clock", []string{"clock", "set", "2026-01-15T10:00:00+05:30", "--frozen", "--channel", "DEMOBANK"}, `"now": "2026-01-15T10:00:00+05:30"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := t.TempDir()
			serve := func() (stop func(), env []string) {
				cmd, urls := startServe(t, bin, data)
				return func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }, []string{envControlURL + "=" + urls["control"]}
			}
			run := func(env []string, args ...string) string {
				t.Helper()
				out, errOut, code := verbRun(t, bin, env, args...)
				if code != 0 {
					t.Fatalf("rewardsim %s: exit %d: %s%s", strings.Join(args, " "), code, out, errOut)
				}
				return out
			}
			stop, env := serve()
			if c.before != nil {
				run(env, c.before...)
			}
			before := run(env, "clock", "--channel", "DEMOBANK", "--json")
			run(env, "story", "apply", "token-expires-now")
			if moved := run(env, "clock", "--channel", "DEMOBANK", "--json"); !strings.Contains(moved, `"own": true`) || moved == before {
				t.Fatalf("token-expires-now did not move DEMOBANK's own clock: %s", moved)
			}
			stop()

			stop, env = serve()
			defer stop()
			if out := run(env, "story", "ls"); !strings.Contains(out, "applied to DEMOBANK: token-expires-now") {
				t.Errorf("after the restart, story ls does not say token-expires-now is applied: %s", out)
			}
			if cleared := run(env, "story", "clear"); !strings.Contains(cleared, "cleared token-expires-now from channel DEMOBANK") {
				t.Errorf("story clear after the restart: %s", cleared)
			}
			if after := run(env, "clock", "--channel", "DEMOBANK", "--json"); !strings.Contains(after, c.want) {
				t.Errorf("after clear DEMOBANK's clock is %s, want %s (before the story: %s)", after, c.want, before)
			}
		})
	}
}
