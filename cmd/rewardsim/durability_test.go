package main

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// acked is a GetReward whose answer reached the client: the card it
// names must exist after any crash of the process.
type acked struct {
	body     map[string]any
	rewardID uint64
}

// TestDurability_SIM2_everyAcknowledgedWriteSurvivesKill9 kills a real
// `rewardsim serve` with SIGKILL three times in each --durability mode
// while 8 clients issue cards, and after each restart finds every card
// whose answer arrived: the same GetReward again (GR-4, a duplicate
// extTransactionId) answers the very card it answered before the kill.
// With --durability process no commit is fsynced, so this is the proof
// that a process crash loses nothing written before the answer.
func TestDurability_SIM2_everyAcknowledgedWriteSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills real processes")
	}
	bin := buildBinary(t)
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"process", "disk"} {
		t.Run(mode, func(t *testing.T) {
			data := t.TempDir()
			var all []acked
			for round := range 3 {
				sv := startBinary(t, bin, data, "--durability", mode)
				if h := sv.ctl(t, "GET", "/__sim/health", nil); h["durability"] != mode {
					t.Fatalf("health durability: %v, want %s", h["durability"], mode)
				}
				c := sv.demoClient(t, key)
				// Everything acknowledged in earlier rounds is still there.
				checkAcked(t, c, all)
				got := issueUntilKilled(t, c, sv, fmt.Sprintf("%s-%d", mode, round))
				if len(got) == 0 {
					t.Fatalf("round %d: no GetReward was acknowledged before the kill", round)
				}
				all = append(all, got...)
			}
			sv := startBinary(t, bin, data, "--durability", mode)
			checkAcked(t, sv.demoClient(t, key), all)
			t.Logf("%s: %d acknowledged cards across 3 kills, all found", mode, len(all))
			_ = sv.cmd.Process.Signal(syscall.SIGTERM)
			_ = sv.cmd.Wait()
			for _, f := range []string{"rewardsim.db", "journal.db"} {
				checkBolt(t, filepath.Join(data, f))
			}
		})
	}
}

// issueUntilKilled runs 8 clients issuing cards for fresh users until
// the process is killed (SIGKILL) under them, and returns what was
// acknowledged.
func issueUntilKilled(t *testing.T, c *publisher.Client, sv *served, tag string) []acked {
	t.Helper()
	ctx := context.Background()
	ref, err := c.ReferenceToken(ctx)
	if err != nil {
		t.Fatalf("reference token: %v", err)
	}
	var (
		mu  sync.Mutex
		out []acked
		wg  sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body := map[string]any{"channelName": "DEMOBANK", "virtualId": fmt.Sprintf("DUR-%s-%d-%d", tag, w, i),
					"triggerEventType": "UPI", "extTransactionId": fmt.Sprintf("DURTX-%s-%d-%d", tag, w, i),
					"amount": 250.5, "dateandtime": "15012026100000"}
				res, ans, err := c.GetReward(ctx, ref.ReferenceKey, body)
				if err != nil {
					// Refused connections and answers cut by the kill
					// (no answer at all) were never acknowledged.
					if res != nil {
						t.Errorf("GetReward refused before the kill: %v", err)
					}
					return
				}
				if !ans.Status || len(ans.Rewards) != 1 {
					t.Errorf("GetReward answered %+v", ans)
					return
				}
				mu.Lock()
				out = append(out, acked{body: body, rewardID: ans.Rewards[0].RewardID})
				mu.Unlock()
			}
		})
	}
	time.Sleep(700 * time.Millisecond) // let the writers get going
	if err := sv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = sv.cmd.Wait()
	close(stop)
	wg.Wait()
	return out
}

// checkAcked asks again for every acknowledged card, 8 at a time.
func checkAcked(t *testing.T, c *publisher.Client, all []acked) {
	t.Helper()
	if len(all) == 0 {
		return
	}
	ctx := context.Background()
	ref, err := c.ReferenceToken(ctx)
	if err != nil {
		t.Fatalf("reference token after restart: %v", err)
	}
	work := make(chan acked)
	var wg sync.WaitGroup
	var lost sync.Map
	for range 8 {
		wg.Go(func() {
			for a := range work {
				_, ans, err := c.GetReward(ctx, ref.ReferenceKey, a.body)
				if err != nil || len(ans.Rewards) != 1 || ans.Rewards[0].RewardID != a.rewardID {
					lost.Store(a.body["extTransactionId"], fmt.Sprintf("%v %+v", err, ans))
				}
			}
		})
	}
	for _, a := range all {
		work <- a
	}
	close(work)
	wg.Wait()
	n := 0
	lost.Range(func(k, v any) bool {
		if n < 5 {
			t.Errorf("acknowledged card lost: %s answers %s now", k, v)
		}
		n++
		return true
	})
	if n > 0 {
		t.Fatalf("%d of %d acknowledged cards lost", n, len(all))
	}
}

// checkBolt runs bbolt's consistency check over a file: every page
// reachable once, none both free and in use, keys in order (the saved
// free list among what it checks).
func checkBolt(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		var first error
		for err := range tx.Check() { // drained: the checker ends only then
			if first == nil {
				first = err
			}
		}
		return first
	})
	if err != nil {
		t.Errorf("%s: bbolt check: %v", filepath.Base(path), err)
	}
}
