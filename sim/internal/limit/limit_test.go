package limit

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

func wait(d time.Duration) model.Duration { return model.Duration(d) }

// admitN admits n calls at once, each holding its place until release
// is closed, and counts how they ended.
func admitN(t *testing.T, l *Limiter, ctx context.Context, n int, release <-chan struct{}) (admitted int, refused map[string]int) {
	t.Helper()
	var mu sync.Mutex
	refused = map[string]int{}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk, err := l.Admit(ctx)
			mu.Lock()
			var r *Refused
			switch {
			case err == nil:
				admitted++
			case errors.As(err, &r):
				refused[r.Reason]++
			default:
				refused[err.Error()]++
			}
			mu.Unlock()
			if err == nil {
				<-release
				tk.Release()
			}
		}()
	}
	// The admitted ones hold their places until release; wait until every
	// call has either its place or its refusal.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		done := admitted + sum(refused)
		mu.Unlock()
		if done == n || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	go func() { wg.Wait() }()
	return admitted, refused
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// clause: CAP-1
func TestLimiter_admitsAtMostItsBound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      Config
		calls    int
		admitted int
		reason   string
	}{
		{"in-flight, no wait: the rest refused at once", Config{InFlight: 3}, 10, 3, InFlight},
		{"rate with burst 2, no wait", Config{Rate: 0.001, Burst: 2}, 5, 2, Rate},
		{"rate, default burst is a second's worth", Config{Rate: 4}, 9, 4, Rate},
		{"in-flight tighter than the rate", Config{InFlight: 1, Rate: 100}, 4, 1, InFlight},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(tc.cfg)
			release := make(chan struct{})
			admitted, refused := admitN(t, l, context.Background(), tc.calls, release)
			close(release)
			if admitted != tc.admitted || refused[tc.reason] != tc.calls-tc.admitted {
				t.Fatalf("admitted %d, refused %v; want %d admitted and %d refused for %s", admitted, refused, tc.admitted, tc.calls-tc.admitted, tc.reason)
			}
			if s := l.Stats(); s.Refused != int64(tc.calls-tc.admitted) {
				t.Fatalf("stats %+v", s)
			}
		})
	}
}

func TestLimiter_waitingCallIsAdmittedWhenRoomComes(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		free func(first *Ticket)
	}{
		{"an in-flight place freed", Config{InFlight: 1, Wait: wait(10 * time.Second)}, func(first *Ticket) {
			time.AfterFunc(20*time.Millisecond, first.Release)
		}},
		{"the next token comes", Config{Rate: 20, Burst: 1, Wait: wait(10 * time.Second)}, func(*Ticket) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(tc.cfg)
			first, err := l.Admit(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tc.free(first)
			second, err := l.Admit(context.Background())
			if err != nil {
				t.Fatalf("the waiting call was refused: %v", err)
			}
			if second.Waited <= 0 || second.Reason == "" {
				t.Fatalf("ticket says it waited %s for %q", second.Waited, second.Reason)
			}
			second.Release()
			first.Release()
			if s := l.Stats(); s.InFlight != 0 || s.Waiting != 0 || s.Waited != 1 || s.Admitted != 2 {
				t.Fatalf("stats %+v", s)
			}
		})
	}
}

func TestLimiter_waitRunsOutThenRefuses(t *testing.T) {
	l := New(Config{InFlight: 1, Wait: wait(30 * time.Millisecond)})
	first, _ := l.Admit(context.Background())
	defer first.Release()
	start := time.Now()
	_, err := l.Admit(context.Background())
	var r *Refused
	if !errors.As(err, &r) || r.Reason != InFlight || r.Waited < 30*time.Millisecond {
		t.Fatalf("got %v (%+v), want a refusal for in-flight after 30ms", err, r)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("the wait outlived its bound")
	}
	if s := l.Stats(); s.Waiting != 0 || s.Refused != 1 {
		t.Fatalf("the refused call kept its place in the queue: %+v", s)
	}
}

func TestLimiter_queueIsBounded(t *testing.T) {
	l := New(Config{InFlight: 1, Wait: wait(time.Minute)})
	first, _ := l.Admit(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	defer close(release)
	admitted, refused := admitN(t, l, ctx, MaxWaiting+5, release)
	if admitted != 0 || refused[Queue] != 5 {
		t.Fatalf("admitted %d, refused %v; want 5 refused for the queue", admitted, refused)
	}
	if s := l.Stats(); s.Waiting != MaxWaiting {
		t.Fatalf("waiting %d, want %d", s.Waiting, MaxWaiting)
	}
	cancel() // every waiting caller hangs up
	deadline := time.Now().Add(10 * time.Second)
	for l.Stats().Waiting != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if s := l.Stats(); s.Waiting != 0 || s.InFlight != 1 {
		t.Fatalf("after the callers hung up: %+v", s)
	}
	first.Release()
}

func TestLimiter_hangingUpFreesItsPlace(t *testing.T) {
	l := New(Config{InFlight: 1, Wait: wait(time.Minute)})
	first, _ := l.Admit(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := l.Admit(ctx); done <- err }()
	for l.Stats().Waiting != 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the context's error", err)
	}
	// The queue is empty again: a third call that finds room goes in.
	first.Release()
	third, err := l.Admit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	third.Release()
	if s := l.Stats(); s.InFlight != 0 || s.Waiting != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestLimiter_callsAreAdmittedInOrder(t *testing.T) {
	l := New(Config{InFlight: 1, Wait: wait(time.Minute)})
	first, _ := l.Admit(context.Background())
	order := make(chan int, 3)
	for i := range 3 {
		go func() {
			tk, err := l.Admit(context.Background())
			if err == nil {
				order <- i
				tk.Release()
			}
		}()
		for l.Stats().Waiting != i+1 {
			time.Sleep(time.Millisecond)
		}
	}
	first.Release()
	for want := range 3 {
		if got := <-order; got != want {
			t.Fatalf("call %d went in before call %d", got, want)
		}
	}
}

func TestSet_overrideAndDrop(t *testing.T) {
	var s Set
	ctx := context.Background()
	if tk, err := s.Admit(ctx, "A", Config{}); tk != nil || err != nil {
		t.Fatal("a channel with no limit was held")
	}
	s.Override("A", Config{InFlight: 1, Wait: wait(time.Minute)})
	tk, err := s.Admit(ctx, "A", Config{InFlight: 50})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		t2, err := s.Admit(ctx, "A", Config{})
		t2.Release()
		done <- err
	}()
	for s.Stats("A").Waiting != 1 {
		time.Sleep(time.Millisecond)
	}
	// Another channel is not held while A is full.
	if tb, err := s.Admit(ctx, "B", Config{}); tb != nil || err != nil {
		t.Fatal("channel B was held by A's limit")
	}
	if !s.Drop("A") {
		t.Fatal("Drop found no limit")
	}
	if err := <-done; err != nil {
		t.Fatalf("the call waiting on a dropped limit: %v", err)
	}
	tk.Release()
	if len(s.Channels()) != 0 {
		t.Fatalf("limiters left: %v", s.Channels())
	}
}

func TestConfig_check(t *testing.T) {
	for _, tc := range []struct {
		cfg Config
		ok  bool
	}{
		{Config{InFlight: 1}, true},
		{Config{Rate: 0.5, Wait: wait(MaxWait)}, true},
		{Config{}, false},
		{Config{InFlight: -1}, false},
		{Config{InFlight: MaxInFlight + 1}, false},
		{Config{Rate: MaxRate + 1}, false},
		{Config{Rate: 1, Burst: -1}, false},
		{Config{Rate: 1, Wait: wait(MaxWait + 1)}, false},
		{Config{Rate: 1, Wait: -1}, false},
	} {
		if err := tc.cfg.Check(); (err == nil) != tc.ok {
			t.Errorf("%+v: Check = %v", tc.cfg, err)
		}
	}
}

// Waiting calls whose callers hang up leave nothing behind: no goroutine
// of the limiter's, no place in the queue.
func TestLimiter_noGoroutineLeftBehind(t *testing.T) {
	before := runtime.NumGoroutine()
	l := New(Config{Rate: 0.001, Burst: 1, Wait: wait(time.Minute)})
	first, _ := l.Admit(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() { defer wg.Done(); _, _ = l.Admit(ctx) }()
	}
	for l.Stats().Waiting != 200 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	first.Release()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after the callers hung up, %d before", n, before)
	}
	if s := l.Stats(); s.Waiting != 0 || s.InFlight != 0 {
		t.Fatalf("stats %+v", s)
	}
}
