package main

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

func TestControlBase(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"127.0.0.1:8090", "http://127.0.0.1:8090", ""},
		{"0.0.0.0:8090", "http://127.0.0.1:8090", ""},
		{":8090", "http://127.0.0.1:8090", ""},
		{"[::]:8090", "http://127.0.0.1:8090", ""},
		{"rewardsim:8090", "http://rewardsim:8090", ""},
		{"http://127.0.0.1:8090", "http://127.0.0.1:8090", ""},
		{"http://rewardsim:8090/", "http://rewardsim:8090", ""},
		{"https://sim.example", "https://sim.example:443", ""},
		{"http://[::1]:8090", "http://[::1]:8090", ""},
		{"ftp://x:1", "", "not an http(s) URL"},
		{"rewardsim", "", "give host:port or a URL"},
	} {
		got, err := controlBase(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %q %v, want %q", c.in, got, err, c.want)
		}
	}
}

// The report: `healthcheck --control http://127.0.0.1:8090`
// failed with "too many colons in address". Both forms, on a real serve.
func TestHealthcheckTakesURLOrHostPort(t *testing.T) {
	bin := buildBinary(t)
	cmd, urls := startServe(t, bin, t.TempDir())
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	for _, arg := range []string{urls["control"], strings.TrimPrefix(urls["control"], "http://")} {
		out, err := exec.Command(bin, "healthcheck", "--control", arg).CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "ok ") {
			t.Errorf("healthcheck --control %s: %v %s", arg, err, out)
		}
	}
	out, err := exec.Command(bin, "healthcheck", "--control", "http://127.0.0.1:1").CombinedOutput()
	if err == nil {
		t.Errorf("healthcheck of a closed port exited 0: %s", out)
	}
}
