package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A generator is a steady load's virtual users, each on its own
// connection calling getCatalogue again as soon as it is answered. Its
// connections are open once it is made; start sets the users going,
// spread over ramp; stop ends them after their call in flight and says
// how many failed.
type generator interface {
	start()
	stop() (failed int64)
	// pid is the process it runs in, for its CPU time.
	pid() int
}

// inProcess is a generator on goroutines of the benchmark's own process:
// there the timer of the other channel's calls waits behind its 10,000
// goroutines, and it shares the machine's cores with the server.
type inProcess struct {
	conns   []net.Conn
	ramp    time.Duration
	quit    chan struct{}
	started bool
	failed  atomic.Int64
	wg      sync.WaitGroup
}

func newInProcess(b *testing.B, addr string, users int, ramp time.Duration) *inProcess {
	conns, err := dialConns(addr, users)
	if err != nil {
		b.Fatal(err)
	}
	return &inProcess{conns: conns, ramp: ramp, quit: make(chan struct{})}
}

func (g *inProcess) start() {
	g.started = true
	g.wg.Go(func() { g.failed.Store(runUsers(g.conns, g.ramp, g.quit)) })
}

func (g *inProcess) stop() int64 {
	if !g.started {
		for _, c := range g.conns {
			c.Close()
		}
	}
	close(g.quit)
	g.wg.Wait()
	return g.failed.Load()
}

func (g *inProcess) pid() int { return os.Getpid() }

// runUsers runs a user on each of conns until quit is closed, and
// returns how many failed; it closes conns.
func runUsers(conns []net.Conn, ramp time.Duration, quit chan struct{}) int64 {
	var failed atomic.Int64
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			defer c.Close()
			time.Sleep(ramp * time.Duration(i) / time.Duration(len(conns)))
			br := bufio.NewReader(c)
			for {
				select {
				case <-quit:
					return
				default:
				}
				if err := rawCatalogueOn(c, br, "DEMOBANK", "DEMOAPPKEY:DEMOSECKEY"); err != nil {
					failed.Add(1)
					return
				}
			}
		})
	}
	wg.Wait()
	return failed.Load()
}

// loadGenEnv tells this test binary, run as TestHelperLoadGenerator, its
// load: "ADDR USERS RAMP NICE".
const loadGenEnv = "REWARDSIM_TEST_LOADGEN"

// ownProcess is a generator in a process of its own (this test binary
// run as TestHelperLoadGenerator), as a load test's tool is: the
// benchmark's process keeps only the timer of the other channel's calls.
// At a nice above 0 the generator also yields the cores to the server
// and the timer, standing in for a load tool on another machine.
type ownProcess struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	niced int
}

func newOwnProcess(b *testing.B, addr string, users int, ramp time.Duration, nice int) *ownProcess {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHelperLoadGenerator$", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %s %d", loadGenEnv, addr, users, ramp, nice))
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	g := &ownProcess{cmd: cmd, in: in, out: bufio.NewScanner(out), niced: nice}
	if line := g.line(); line != "dialed" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		b.Fatalf("load generator: %q", line)
	}
	if n := leastNice(cmd.Process.Pid); n != nice {
		g.stop()
		b.Fatalf("load generator's threads at nice %d, not %d", n, nice)
	}
	return g
}

// line is the generator's next line of output ("" once it ended).
func (g *ownProcess) line() string {
	for g.out.Scan() {
		if l := g.out.Text(); !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- ") {
			return l
		}
	}
	return ""
}

func (g *ownProcess) start() { _, _ = io.WriteString(g.in, "go\n") }

func (g *ownProcess) stop() int64 {
	_ = g.in.Close()
	line := g.line()
	for g.out.Scan() { // its test's PASS
	}
	_ = g.cmd.Wait()
	n, err := strconv.ParseInt(strings.TrimPrefix(line, "failed "), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func (g *ownProcess) pid() int { return g.cmd.Process.Pid }

// TestHelperLoadGenerator is not a test: run by the steady benchmark
// (loadGenEnv set), it sets its threads' nice, opens the connections,
// prints "dialed", runs the users from a line on its standard input
// until that input ends, and prints "failed N".
func TestHelperLoadGenerator(t *testing.T) {
	f := strings.Fields(os.Getenv(loadGenEnv))
	if len(f) != 4 {
		t.Skip("a helper process of BenchmarkLatency_tenThousandSteady")
	}
	addr := f[0]
	users, err1 := strconv.Atoi(f[1])
	ramp, err2 := time.ParseDuration(f[2])
	nice, err3 := strconv.Atoi(f[3])
	if err := errors.Join(err1, err2, err3); err != nil {
		fmt.Println(err)
		return
	}
	if nice != 0 {
		// Linux gives each thread its own nice, and a new thread its
		// creator's: twice over every thread, in case one started between.
		reniceThreads(nice)
		reniceThreads(nice)
	}
	conns, err := dialConns(addr, users)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("dialed")
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadString('\n'); err != nil {
		return
	}
	quit := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, in); close(quit) }()
	fmt.Println("failed", runUsers(conns, ramp, quit))
}

// reniceThreads sets every thread of this process to nice n.
func reniceThreads(n int) {
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		if tid, err := strconv.Atoi(task.Name()); err == nil {
			_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, n)
		}
	}
}

// leastNice is the lowest nice of pid's threads (-100: none read).
func leastNice(pid int) int {
	least := 100
	tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	for _, task := range tasks {
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
		if n, err := strconv.Atoi(f[16]); err == nil { // field 19, nice
			least = min(least, n)
		}
	}
	if least == 100 {
		return -100
	}
	return least
}

// dialConns opens n connections to addr, paced a hundred at a time (10,000
// dials at once overflow the listen backlog, and SYNs retried after 1s and
// 3s would spread the calls).
func dialConns(addr string, n int) ([]net.Conn, error) {
	conns := make([]net.Conn, 0, n)
	for i := range n {
		if i%100 == 99 {
			time.Sleep(2 * time.Millisecond)
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			for _, c := range conns {
				c.Close()
			}
			return nil, fmt.Errorf("connection %d: %w", i, err)
		}
		conns = append(conns, c)
	}
	return conns, nil
}
