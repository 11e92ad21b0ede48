package state

import (
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Calls that arrive while a small group gathers share its commit, and
// every write is stored: five writes 2 ms apart (far longer than a
// commit of one) within a 50 ms window make one or two commits, not
// five; six writes 20 ms apart with a 30 ms window make one or two, as
// the group waits again while calls keep arriving (one window at a time
// made three or more).
func TestGroupUpdate_smallGroupsGather(t *testing.T) {
	for _, tc := range []struct {
		name          string
		window, apart time.Duration
		calls         int
	}{
		{"within one window", 50 * time.Millisecond, 2 * time.Millisecond, 5},
		{"while calls arrive", 30 * time.Millisecond, 20 * time.Millisecond, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(t.TempDir(), Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.group.gather = tc.window
			commits0 := s.group.commits.Load()
			var wg sync.WaitGroup
			for i := range tc.calls {
				wg.Go(func() {
					if err := s.groupUpdate(func(tx *bolt.Tx) error {
						return tx.Bucket(bucketConfig).Put([]byte{'g', byte(i)}, []byte{1})
					}); err != nil {
						t.Error(err)
					}
				})
				time.Sleep(tc.apart)
			}
			wg.Wait()
			if commits := s.group.commits.Load() - commits0; commits > 2 {
				t.Fatalf("%d calls made %d commits: too few gathered", tc.calls, commits)
			}
			err = s.db.View(func(tx *bolt.Tx) error {
				for i := range tc.calls {
					if tx.Bucket(bucketConfig).Get([]byte{'g', byte(i)}) == nil {
						t.Errorf("write %d is missing", i)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
