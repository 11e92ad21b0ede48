package state

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// openGroup opens a store whose group commit waits wait for company.
func openGroup(t *testing.T, wait time.Duration) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), Options{NoSync: true, GroupWait: wait})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// putG writes key g<i> in bucketConfig.
func putG(i int) func(*bolt.Tx) error {
	return func(tx *bolt.Tx) error { return tx.Bucket(bucketConfig).Put([]byte{'g', byte(i)}, []byte{1}) }
}

func stored(t *testing.T, s *Store, i int) bool {
	t.Helper()
	var ok bool
	if err := s.db.View(func(tx *bolt.Tx) error {
		ok = tx.Bucket(bucketConfig).Get([]byte{'g', byte(i)}) != nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ok
}

// held starts a call that holds the writer until n more calls are
// pending, so those n share the next commit; it returns the held call's
// error channel.
func held(t *testing.T, s *Store, n int) chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		done <- s.groupUpdate(func(tx *bolt.Tx) error {
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				s.group.mu.Lock()
				got := len(s.group.pending)
				s.group.mu.Unlock()
				if got >= n {
					return nil
				}
			}
			return errors.New("the other calls never arrived")
		})
	}()
	for { // wait until the held call leads
		s.group.mu.Lock()
		leading := s.group.leading && len(s.group.pending) == 0
		s.group.mu.Unlock()
		if leading {
			return done
		}
		time.Sleep(time.Millisecond)
	}
}

// Calls that arrive while a commit runs share the next one, and every
// write is stored; a busy group of few calls waits for company while
// calls keep arriving: five calls arriving 2 ms apart behind a running
// commit make one more commit (with a 50 ms wait), not five.
func TestGroupUpdate_busyGroupsGather(t *testing.T) {
	s := openGroup(t, 50*time.Millisecond)
	commits0 := s.group.commits.Load()
	done := held(t, s, 1)
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() {
			if err := s.groupUpdate(putG(i)); err != nil {
				t.Error(err)
			}
		})
		time.Sleep(2 * time.Millisecond)
	}
	wg.Wait()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if commits := s.group.commits.Load() - commits0; commits > 2 {
		t.Fatalf("5 calls behind a running commit made %d commits: too few gathered", commits-1)
	}
	for i := range 5 {
		if !stored(t, s, i) {
			t.Errorf("write %d is missing", i)
		}
	}
}

// A lone call commits at once: it does not wait for company that is
// not coming, however long the wait is set.
func TestGroupUpdate_loneCallDoesNotWait(t *testing.T) {
	s := openGroup(t, 5*time.Second)
	start := time.Now()
	if err := s.groupUpdate(putG(1)); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("a lone call took %v: it waited for company", took)
	}
	if !stored(t, s, 1) {
		t.Fatal("the write is missing")
	}
}

// A panic in one caller's function is that caller's error (with the
// panic's stack), never the process's death; the other calls of its
// group are committed, each run once more at most; a failing call is
// run again alone, a panicking one is not.
func TestGroupUpdate_panicIsTheCallersError(t *testing.T) {
	s := openGroup(t, -1)
	const n = 6
	var runs [n]atomic.Int32
	fns := make([]func(*bolt.Tx) error, n)
	for i := range n {
		fns[i] = func(tx *bolt.Tx) error { runs[i].Add(1); return putG(i)(tx) }
	}
	boom := errors.New("refused")
	fns[2] = func(*bolt.Tx) error { runs[2].Add(1); panic("boom in a transaction") }
	fns[4] = func(*bolt.Tx) error { runs[4].Add(1); return boom }
	done := held(t, s, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = s.groupUpdate(fns[i]) })
	}
	wg.Wait()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var pe *PanicError
	if !errors.As(errs[2], &pe) || pe.Value != "boom in a transaction" || !strings.Contains(string(pe.Stack), "group_test.go") {
		t.Fatalf("the panicking call's error = %v, want a *PanicError with its stack", errs[2])
	}
	if runs[2].Load() != 1 {
		t.Errorf("the panicking call ran %d times, want once", runs[2].Load())
	}
	if !errors.Is(errs[4], boom) || runs[4].Load() > 3 {
		t.Errorf("the failing call: err %v after %d runs", errs[4], runs[4].Load())
	}
	for _, i := range []int{0, 1, 3, 5} {
		if errs[i] != nil || !stored(t, s, i) {
			t.Errorf("call %d: err %v, stored %v", i, errs[i], stored(t, s, i))
		}
		if r := runs[i].Load(); r > 3 {
			t.Errorf("call %d ran %d times: more than once per failure of its group", i, r)
		}
	}
	// The store still serves.
	if err := s.groupUpdate(putG(9)); err != nil || !stored(t, s, 9) {
		t.Fatalf("after the panic: %v", err)
	}
}

// The state file holds the state's buckets only (the journal keeps its
// own file) and its format version.
func TestOpen_ownBucketsOnly(t *testing.T) {
	s := openGroup(t, -1)
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			if strings.HasPrefix(string(name), "journal") {
				t.Errorf("the state file has the journal's bucket %q", name)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}
