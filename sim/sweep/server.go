package sweep

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Server is a `rewardsim serve` the sweep started on free loopback ports,
// on a data folder of its own.
type Server struct {
	PublicURL, ControlURL string
	cmd                   *exec.Cmd
	data                  string
	stdin                 io.WriteCloser
	stderr                *lockedBuffer
	done                  chan struct{}
}

// StartServer runs exe (the rewardsim binary) as `serve` on free loopback
// ports and waits until it has said where it listens.
func StartServer(ctx context.Context, exe string) (*Server, error) {
	// A path that does not exist yet: serve --remove-data-on-exit creates
	// the folder and removes only a folder it created.
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	data := filepath.Join(os.TempDir(), "rewardsim-sweep-"+hex.EncodeToString(id))
	s := &Server{data: data, stderr: &lockedBuffer{}, done: make(chan struct{})}
	// Should the sweep die unannounced (SIGKILL), the end of the
	// simulator's standard input stops it and removes its data folder.
	s.cmd = exec.Command(exe, "serve", "--data", data, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--log-level", "error",
		"--exit-on-stdin-eof", "--remove-data-on-exit")
	s.cmd.Stderr = s.stderr
	// A group of its own: Ctrl-C reaches the sweep, which stops it last.
	ownGroup(s.cmd)
	stdout, err := s.cmd.StdoutPipe()
	if err == nil {
		s.stdin, err = s.cmd.StdinPipe()
	}
	if err == nil {
		err = s.cmd.Start()
	}
	if err != nil {
		os.RemoveAll(data)
		return nil, fmt.Errorf("cannot start the simulator: %w", err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	urls := make(chan map[string]string, 1)
	go readListeners(stdout, urls)
	select {
	case u := <-urls:
		s.PublicURL, s.ControlURL = u["all"], u["control"]
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
	}
	if s.PublicURL == "" || s.ControlURL == "" {
		s.Stop()
		return nil, fmt.Errorf("the simulator did not say where it listens; its log: %s", strings.TrimSpace(s.stderr.String()))
	}
	return s, nil
}

// Scratch is a folder the sweep may keep its runs' files in: inside the
// simulator's data folder, so it goes with it, even when the sweep is
// killed outright.
func (s *Server) Scratch() string { return filepath.Join(s.data, "sweep") }

// readListeners reads "rewardsim: NAME listening on URL" lines until it
// knows the combined public listener and the control one, then drains.
func readListeners(r io.Reader, out chan<- map[string]string) {
	u := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 5 && f[2] == "listening" && f[3] == "on" {
			u[f[1]] = f[4]
		}
		if u["all"] != "" && u["control"] != "" {
			out <- u
			break
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// Stop stops the simulator (gracefully, then for good after 10 s) and
// removes its data folder.
func (s *Server) Stop() {
	stopGently(s.cmd)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	_ = s.stdin.Close()
	_ = os.RemoveAll(s.data)
}

// lockedBuffer is a bytes.Buffer written by the process and read by us.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
