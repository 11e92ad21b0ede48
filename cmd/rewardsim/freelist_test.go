package main

import (
	"context"
	"crypto/rsa"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// noFreelist is bbolt's meta value for a free list not saved in the file.
const noFreelist = ^uint64(0)

// savedFreelist reads the free list page the newest meta page of a bbolt
// file names (noFreelist: none saved). The meta follows each of the first
// two pages' 16-byte header: magic, version, page size, flags (4 bytes
// each), the root bucket (16), then the free list, the high water mark
// and the transaction id (8 each).
func savedFreelist(t *testing.T, path string) uint64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(binary.LittleEndian.Uint32(raw[16+8:]))
	var best, freelist uint64
	for _, off := range []int{0, pageSize} {
		m := raw[off+16:]
		if txid := binary.LittleEndian.Uint64(m[48:]); txid >= best {
			best, freelist = txid, binary.LittleEndian.Uint64(m[32:])
		}
	}
	return freelist
}

// A state file written by builds up to a9b7168 did not save bbolt's free
// list (NoFreelistSync), so each start-up rebuilt it by checking every
// page: 1.0 to 1.3 s on a 1 GB file. This build saves it with each
// commit. A file left without one is read as it is, every card there,
// and is given its free list at that first open, so the next start-up
// reads it instead of walking the file.
func TestServe_readsStateFileWithoutSavedFreelist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs real processes")
	}
	bin, data := buildBinary(t), t.TempDir()
	path := filepath.Join(data, "rewardsim.db")
	key, all := issueTwenty(t, bin, data, "FL")
	if got := savedFreelist(t, path); got == noFreelist {
		t.Fatal("this build left the state file without a saved free list")
	}

	// Leave the file as a9b7168's build did: a commit without the free list.
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoFreelistSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(*bolt.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if got := savedFreelist(t, path); got != noFreelist {
		t.Fatalf("the old build's file names free list page %d, want none", got)
	}

	sv := startBinary(t, bin, data)
	checkAcked(t, sv.demoClient(t, key), all)
	stopServed(sv)
	if got := savedFreelist(t, path); got == noFreelist {
		t.Error("the first open of an old file did not save its free list")
	}
	checkBolt(t, path)
}

// issueTwenty serves data with bin, issues twenty new cards (users and
// extTransactionIds tag-0 to tag-19) and stops the server; it returns
// the demo publisher's key and the cards acknowledged.
func issueTwenty(t *testing.T, bin, data, tag string) (*rsa.PrivateKey, []acked) {
	t.Helper()
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	sv := startBinary(t, bin, data)
	defer stopServed(sv)
	c := sv.demoClient(t, key)
	ref, err := c.ReferenceToken(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var all []acked
	for i := range 20 {
		body := map[string]any{"channelName": "DEMOBANK", "virtualId": fmt.Sprintf("%s-%d", tag, i), "triggerEventType": "UPI",
			"extTransactionId": fmt.Sprintf("%sTX-%d", tag, i), "amount": 10.0, "dateandtime": "15012026100000"}
		_, ans, err := c.GetReward(context.Background(), ref.ReferenceKey, body)
		if err != nil || !ans.Status || len(ans.Rewards) != 1 {
			t.Fatalf("GetReward: %v %+v", err, ans)
		}
		all = append(all, acked{body: body, rewardID: ans.Rewards[0].RewardID})
	}
	return key, all
}

// stopServed ends a server with SIGTERM and waits for it.
func stopServed(sv *served) {
	_ = sv.cmd.Process.Signal(syscall.SIGTERM)
	_ = sv.cmd.Wait()
}
