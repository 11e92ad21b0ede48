package main

// The processes under load: started, stopped, their CPU time and resident
// memory read from /proc.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a child server process.
type proc struct {
	cmd     *exec.Cmd
	urls    map[string]string // by the first word of each "listening" line
	stopped sync.Once
}

func start(args []string, lines int) (*proc, error) {
	cmd := exec.Command(args[0], args[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, urls: map[string]string{}}
	sc := bufio.NewScanner(out)
	for len(p.urls) < lines && sc.Scan() {
		// "rewardsim: all listening on http://..." or "baseline listening on http://..."
		f := strings.Fields(sc.Text())
		if i := slices.Index(f, "listening"); i > 0 && i+2 < len(f) {
			p.urls[strings.TrimSuffix(f[i-1], ":")] = f[i+2]
		}
	}
	if len(p.urls) < lines {
		p.stop()
		return nil, fmt.Errorf("%s did not report its listeners", args[0])
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return p, nil
}

// stop ends the process once; later calls do nothing.
func (p *proc) stop() {
	p.stopped.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		_ = p.cmd.Wait()
	})
}

// cpu is the process's user+system CPU time so far.
func (p *proc) cpu() time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)        // utime, field 14
	st, _ := strconv.ParseInt(f[12], 10, 64)        // stime, field 15
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// rssAnon is the process's anonymous resident memory in bytes.
func (p *proc) rssAnon() int64 {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// measureStartup times exec to the first answered health check of each
// side's binary, from outside the process, five times each, alternating
// (ABBA), on a fresh data folder each time, or on the data folder keep[i]
// (its files left as they are) for side i.
func measureStartup(ss []*side, keep []string) ([][]time.Duration, error) {
	const runs = 5
	took := make([][]time.Duration, len(ss))
	for i := range runs {
		for _, j := range abba(len(ss), i) {
			d, err := startOnce(ss[j], keep[j])
			if err != nil {
				return nil, err
			}
			took[j] = append(took[j], d)
		}
	}
	return took, nil
}

// startOnce times one start-up of s's binary on keep, or on a fresh
// folder when keep is "".
func startOnce(s *side, keep string) (time.Duration, error) {
	port, err := freePort()
	if err != nil {
		return 0, err
	}
	data := keep
	if keep == "" {
		if data, err = os.MkdirTemp("", "rewardsim-start-"); err != nil {
			return 0, err
		}
		defer os.RemoveAll(data)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/__sim/health", port)
	argv := s.serve("--data", data, "--listen", "127.0.0.1:0", "--control-listen", fmt.Sprintf("127.0.0.1:%d", port), "--log-level", "error")
	var stderr bytes.Buffer
	t0 := time.Now()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-exited
	}()
	for time.Since(t0) < 10*time.Second {
		res, err := client.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return time.Since(t0), nil
			}
		}
		select {
		case <-exited: // an older build refusing the folder, say
			return 0, fmt.Errorf("%s serve exited before answering: %s", s.path, strings.TrimSpace(stderr.String()))
		case <-time.After(200 * time.Microsecond):
		}
	}
	return 0, fmt.Errorf("%s serve did not answer its health check within 10s", s.path)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func cpuModel() string {
	raw, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return runtime.GOARCH
}
