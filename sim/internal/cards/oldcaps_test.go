package cards

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// A store written before caps moved into the user index (issue 25) still
// caps its users: the events in its cap bucket count.
func TestIssue_OldStoreCaps(t *testing.T) {
	dir := t.TempDir()
	st, err := state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// The old layout, written as the old cardsBucket and SetCapEvents
	// did: every sub-bucket made with the channel, the cap key
	// u16(len) campaignId u16(len) user, the value a version byte 0x01
	// and varints (listcodec.go).
	db, err := bolt.Open(filepath.Join(dir, state.FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		ch, err := tx.Bucket([]byte("cards")).CreateBucket([]byte("A"))
		if err != nil {
			return err
		}
		for _, n := range []string{"card", "user", "txn", "cap", "stock", "track", "notif"} {
			if _, err := ch.CreateBucket([]byte(n)); err != nil {
				return err
			}
		}
		key := func(s ...string) []byte {
			var k []byte
			for _, p := range s {
				k = binary.BigEndian.AppendUint16(k, uint16(len(p)))
				k = append(k, p...)
			}
			return k
		}
		return ch.Bucket([]byte("cap")).Put(key("CAMP", "OLD-USER"), binary.AppendVarint([]byte{0x01}, ago(time.Hour)))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc := &scenario.Scenario{File: scenario.File{Campaigns: []scenario.Campaign{{
		ID: "CAMP", Channel: "A", Triggers: []string{"UPI"}, CardsPerEvent: 1, Caps: caps(1, 24*time.Hour),
		Tiers: []scenario.Tier{{Pool: "P"}},
	}}}}
	svc := &Service{Store: st, Clock: fixedClock(t0)}
	issue := func(user, ext string) IssueResult {
		t.Helper()
		res, err := svc.Issue(IssueRequest{Scenario: sc, Channel: "A", VirtualID: user, Source: SourceGetReward, ExtTransactionID: ext, Trigger: "UPI"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := issue("OLD-USER", "T1"); len(res.Cards) != 0 || !strings.Contains(res.Reason, "frequency cap") {
		t.Errorf("the old store's capped user got %d cards, reason %q", len(res.Cards), res.Reason)
	}
	// Another user is not capped, and is capped after one card.
	if res := issue("NEW-USER", "T2"); len(res.Cards) != 1 {
		t.Errorf("a new user got %d cards, reason %q", len(res.Cards), res.Reason)
	}
	if res := issue("NEW-USER", "T3"); len(res.Cards) != 0 {
		t.Errorf("a new user's second event got %d cards", len(res.Cards))
	}
}
