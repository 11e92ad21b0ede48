package token

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/cputime"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// counting reads 0, 1, 2, ... one byte each: what each value read is
// plain to see.
type counting struct{ n byte }

func (c *counting) Read(p []byte) (int, error) {
	for i := range p {
		p[i], c.n = c.n, c.n+1
	}
	return len(p), nil
}

// Tokens and session ids come in runs of runLen sharing their first
// runPrefix bytes, the first of the run's own; every value is otherwise
// the 32 bytes it read, as NewOpaque's; the kinds run apart.
func TestIssue_runs(t *testing.T) {
	r := &counting{}
	s := New(newMem(), clock.One{Clock: clock.NewFake(time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC))}, r)
	first := map[string][]byte{} // each kind's run's first value
	for i := range 3*runLen + 1 {
		tok, err := s.Issue(model.ReferenceToken, "DEMOBANK", "", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		sess, err := s.IssueSession("DEMOBANK", "u1", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"token": tok.Value, "session": sess.ID} {
			b, err := base64.RawURLEncoding.DecodeString(v)
			if err != nil || len(v) != 43 || len(b) != 32 {
				t.Fatalf("%s %d: %q is not 32 bytes as base64url", k, i, v)
			}
			read := make([]byte, 32) // the bytes this value read
			for j := range read {
				read[j] = byte(64*i + 32*map[string]int{"token": 0, "session": 1}[k] + j)
			}
			if i%runLen == 0 {
				first[k] = read
			}
			want := append(append([]byte{}, first[k][:runPrefix]...), read[runPrefix:]...)
			if !bytes.Equal(b, want) {
				t.Fatalf("%s %d: % x, want % x", k, i, b, want)
			}
		}
	}
}

// With crypto/rand, every value of many issued in parallel differs from
// every other in the bytes that are its own.
func TestIssue_runsDistinct(t *testing.T) {
	s := New(newLockedMem(), clock.One{Clock: clock.Real{}}, rand.Reader)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				tok, err := s.Issue(model.UserToken, "DEMOBANK", "u1", time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := base64.RawURLEncoding.DecodeString(tok.Value)
				mu.Lock()
				if seen[string(b[runPrefix:])] {
					t.Errorf("%q repeats another value's own bytes", tok.Value)
				}
				seen[string(b[runPrefix:])] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 800 {
		t.Fatalf("%d values", len(seen))
	}
}

// lockedMem is a memStore safe for parallel issues.
type lockedMem struct {
	mu sync.Mutex
	*memStore
}

func newLockedMem() *lockedMem { return &lockedMem{memStore: newMem()} }

func (m *lockedMem) PutToken(t model.Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.memStore.PutToken(t)
}

// BenchmarkIssueStored is a token issue into a real store already
// holding 20,000 tokens, with many issues in flight, as the service
// issues them (runLen=32) and with every value random throughout
// (runLen=1, the values before runs): cpu-µs/token is the process's
// CPU per issue (state's BenchmarkPutToken, on random values, also
// counts the pages each writes).
func BenchmarkIssueStored(b *testing.B) {
	for _, n := range []int{1, runLen} {
		b.Run("runLen="+map[int]string{1: "1", runLen: "32"}[n], func(b *testing.B) {
			st, err := state.Open(b.TempDir(), state.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			s := New(st, clock.One{Clock: clock.Real{}}, rand.Reader)
			s.tokenRuns.len = n
			issue := func() {
				if _, err := s.Issue(model.ReferenceToken, "DEMOBANK", "", 15*time.Minute); err != nil {
					b.Error(err)
				}
			}
			var fill sync.WaitGroup
			for range 50 {
				fill.Go(func() {
					for range 400 {
						issue()
					}
				})
			}
			fill.Wait()
			cpu := cputime.Process()
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					issue()
				}
			})
			b.StopTimer()
			b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/token")
		})
	}
}
