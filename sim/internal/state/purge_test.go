package state

import (
	"errors"
	"fmt"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Purge deletes exactly the tokens and sessions expired before the cutoff,
// with their per-user index entries and remembered copies, a bounded
// number per call, and keeps every other record.
func TestPurge_expiredBeyondRetentionOnly(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cutoff := now.Add(-24 * time.Hour)
	cases := []struct {
		name    string
		expires time.Time // zero: never expires
		swept   bool
	}{
		{"live", now.Add(time.Hour), false},
		{"expired within retention", now.Add(-time.Hour), false},
		{"expired at the cutoff", cutoff, false},
		{"expired before the cutoff", cutoff.Add(-time.Second), true},
		{"expired long ago", now.Add(-30 * 24 * time.Hour), true},
		{"no expiry", time.Time{}, false},
	}
	for i, c := range cases {
		tok := model.Token{Value: fmt.Sprintf("tok-%d", i), Kind: model.UserToken, Channel: "A", VirtualID: "U", IssuedAt: now.Add(-48 * time.Hour), ExpiresAt: c.expires}
		if c.expires.IsZero() {
			tok.ExpiresAt = time.Time{}
		}
		if err := s.PutToken(tok); err != nil {
			t.Fatal(err)
		}
		if err := s.PutSession(model.Session{ID: fmt.Sprintf("sess-%d", i), Channel: "A", VirtualID: "U", IssuedAt: tok.IssuedAt, ExpiresAt: c.expires}); err != nil {
			t.Fatal(err)
		}
	}
	// A card is service state: no purge touches it.
	card := model.Card{CampaignID: "C", VirtualID: "U", ExpiresAt: now.Add(-30 * 24 * time.Hour)}
	if err := s.UpdateCards("A", func(tx *CardTx) error { return tx.InsertCard(&card) }); err != nil {
		t.Fatal(err)
	}

	// limit 2: each call examines at most 2 tokens and 2 sessions.
	var total PurgeResult
	for calls := 0; ; calls++ {
		if calls > len(cases) {
			t.Fatal("purge never wrapped")
		}
		res, err := s.Purge(cutoff, 2)
		if err != nil {
			t.Fatal(err)
		}
		if res.Examined > 4 {
			t.Fatalf("one call examined %d records, limit 2+2", res.Examined)
		}
		total.Tokens += res.Tokens
		total.Sessions += res.Sessions
		if res.Wrapped {
			break
		}
	}
	if total.Tokens != 2 || total.Sessions != 2 {
		t.Fatalf("swept %d tokens, %d sessions; want 2 and 2", total.Tokens, total.Sessions)
	}
	for i, c := range cases {
		_, terr := s.Token(fmt.Sprintf("tok-%d", i))
		_, serr := s.Session(fmt.Sprintf("sess-%d", i))
		for what, err := range map[string]error{"token": terr, "session": serr} {
			if gone := errors.Is(err, model.ErrNotFound); gone != c.swept {
				t.Errorf("%s %s: gone=%v, want %v (err %v)", c.name, what, gone, c.swept, err)
			}
		}
	}
	toks, _ := s.UserTokens("A", "U")
	sess, _ := s.UserSessions("A", "U")
	if len(toks) != len(cases)-2 || len(sess) != len(cases)-2 {
		t.Fatalf("index lists %d tokens, %d sessions; want %d each", len(toks), len(sess), len(cases)-2)
	}
	nt, ns, err := s.TokenSessionCounts()
	if err != nil || nt != len(cases)-2 || ns != len(cases)-2 {
		t.Fatalf("store holds %d tokens, %d sessions (%v)", nt, ns, err)
	}
	// The index holds no entry for a swept record.
	idx := 0
	_ = s.db.View(func(tx *bolt.Tx) error {
		idx = tx.Bucket(bucketTokensByChannel).Stats().KeyN + tx.Bucket(bucketSessionsByChannel).Stats().KeyN
		return nil
	})
	if idx != 2*(len(cases)-2) {
		t.Fatalf("index entries %d, want %d", idx, 2*(len(cases)-2))
	}
	var kept bool
	_ = s.ViewCards("A", func(tx *CardTx) error { _, kept, err = tx.Card(card.RewardID); return err })
	if !kept {
		t.Fatalf("an expired card was swept (%v)", err)
	}
}

// A token remembered before the purge is forgotten by it: it answers as
// unknown, not from memory.
func TestPurge_forgetsRemembered(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tok := model.Token{Value: "old", Kind: model.ReferenceToken, Channel: "A", IssuedAt: now.Add(-3 * time.Hour), ExpiresAt: now.Add(-2 * time.Hour)}
	if err := s.PutToken(tok); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Token("old"); err != nil { // remembered
		t.Fatal(err)
	}
	if _, err := s.Purge(now.Add(-time.Hour), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Token("old"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("swept token still answers: %v", err)
	}
}

// A full pass that finds nothing due is not read again until the clock
// reaches the earliest expiry it kept, or a record issued since expires
// earlier (issue 25: a pass decoded every token once a second).
func TestPurge_idlePassesReadNothing(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	put := func(name string, expires time.Time) {
		if err := s.PutToken(model.Token{Value: name, Kind: model.UserToken, Channel: "A", VirtualID: "U", IssuedAt: now, ExpiresAt: expires}); err != nil {
			t.Fatal(err)
		}
	}
	purge := func(cutoff time.Time) PurgeResult {
		res, err := s.Purge(cutoff, 500)
		if err != nil || !res.Wrapped {
			t.Fatalf("purge: %+v %v", res, err)
		}
		return res
	}
	put("late", now.Add(10*time.Hour))
	if res := purge(now); res.Examined != 1 {
		t.Fatalf("first pass examined %d, want 1", res.Examined)
	}
	if res := purge(now.Add(time.Hour)); res.Examined != 0 {
		t.Fatalf("an idle pass examined %d", res.Examined)
	}
	put("early", now.Add(2*time.Hour))
	if res := purge(now.Add(time.Hour)); res.Examined != 0 {
		t.Fatalf("nothing is due yet, but the pass examined %d", res.Examined)
	}
	if res := purge(now.Add(3 * time.Hour)); res.Tokens != 1 || res.Examined != 2 {
		t.Fatalf("the early token is due: %+v", res)
	}
	if res := purge(now.Add(11 * time.Hour)); res.Tokens != 1 {
		t.Fatalf("the late token is due: %+v", res)
	}
	if res := purge(now.Add(100 * time.Hour)); res.Examined != 0 {
		t.Fatalf("an empty store was read: %+v", res)
	}
}
