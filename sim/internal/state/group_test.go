package state

import (
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Calls that arrive while a small group gathers share its commit: five
// writes 2 ms apart (far longer than a commit of one) within a 50 ms
// window make one or two commits, not five, and every write is stored.
func TestGroupUpdate_smallGroupsGather(t *testing.T) {
	s, err := Open(t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.group.gather = 50 * time.Millisecond
	commits0 := s.group.commits.Load()
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.groupUpdate(func(tx *bolt.Tx) error {
				return tx.Bucket(bucketConfig).Put([]byte{'g', byte(i)}, []byte{1})
			}); err != nil {
				t.Error(err)
			}
		}()
		time.Sleep(2 * time.Millisecond)
	}
	wg.Wait()
	if commits := s.group.commits.Load() - commits0; commits > 2 {
		t.Fatalf("5 calls made %d commits: none gathered", commits)
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		for i := range 5 {
			if tx.Bucket(bucketConfig).Get([]byte{'g', byte(i)}) == nil {
				t.Errorf("write %d is missing", i)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
