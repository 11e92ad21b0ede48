package state

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// A remembered token or session answers like the store, survives a
// reopen (the store is the truth), and is gone after its channel's reset
// but not after another channel's.
func TestTokensRememberedAndForgotten(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 15, 10, 0, 0, 123456789, time.FixedZone("IST", 19800))
	for _, ch := range []string{"A", "B"} {
		tok := model.Token{Value: "tok-" + ch, Kind: model.TokenKind("user"), Channel: ch, VirtualID: "U", IssuedAt: now, ExpiresAt: now.Add(time.Hour)}
		if err := s.PutToken(tok); err != nil {
			t.Fatal(err)
		}
		if err := s.PutSession(model.Session{ID: "sess-" + ch, Channel: ch, VirtualID: "U", IssuedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Token("tok-A")
	if err != nil || got.Channel != "A" || !got.ExpiresAt.Equal(now.Add(time.Hour)) || got.Value != "tok-A" {
		t.Fatalf("remembered token: %+v, %v", got, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fromDisk, err := s.Token("tok-A")
	same := fromDisk.Value == got.Value && fromDisk.Kind == got.Kind && fromDisk.Channel == got.Channel &&
		fromDisk.VirtualID == got.VirtualID && fromDisk.IssuedAt.Equal(got.IssuedAt) && fromDisk.ExpiresAt.Equal(got.ExpiresAt)
	if err != nil || !same {
		t.Fatalf("after reopen: %+v, %v; remembered %+v", fromDisk, err, got)
	}
	if _, err := s.Session("sess-A"); err != nil {
		t.Fatal(err)
	}
	if err := s.ResetChannel("A"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Token("tok-A"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("token of a reset channel: %v, want not found", err)
	}
	if _, err := s.Session("sess-A"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("session of a reset channel: %v, want not found", err)
	}
	if _, err := s.Token("tok-B"); err != nil {
		t.Fatalf("another channel's token after a reset: %v", err)
	}
}

// Issues and checks racing a whole reset never leave a token remembered
// that the store no longer holds.
func TestTokensResetRace(t *testing.T) {
	s, err := Open(t.TempDir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				v := fmt.Sprintf("t%d-%d", w, i)
				_ = s.PutToken(model.Token{Value: v, Channel: "A", VirtualID: "U"})
				_, _ = s.Token(v)
			}
		}()
	}
	for range 5 {
		_ = s.ResetChannel("")
	}
	wg.Wait()
	if err := s.ResetChannel(""); err != nil {
		t.Fatal(err)
	}
	for w := range 4 {
		for i := range 50 {
			if _, err := s.Token(fmt.Sprintf("t%d-%d", w, i)); !errors.Is(err, model.ErrNotFound) {
				t.Fatalf("token t%d-%d still answers after a reset: %v", w, i, err)
			}
		}
	}
}
