package state

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/cputime"
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

// BenchmarkPutToken is a token issue's store work under load: many
// issues in flight into a store already holding tokens, the values as
// random as real ones. pages/token is what each issue writes to the file
// (bbolt's TxStats), the figure a layout change moves.
func BenchmarkPutToken(b *testing.B) {
	s, err := Open(b.TempDir(), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ist := time.FixedZone("IST", 19800)
	tok := func() model.Token {
		now := time.Now().In(ist).Round(0) // issue times move on, as they do in service
		v := make([]byte, 32)
		rand.Read(v)
		return model.Token{Value: base64.RawURLEncoding.EncodeToString(v), Kind: model.ReferenceToken, Channel: "DEMOBANK", IssuedAt: now, ExpiresAt: now.Add(15 * time.Minute)}
	}
	benchWrites(b, s, "token", 400, func() error { return s.PutToken(tok()) })
}

// BenchmarkPutTokenPaced is BenchmarkPutToken at a signed endpoint's
// pace: 32 issuers, each waiting 4 to 12 ms between issues (the RSA work of
// its call, served on two cores, about 4,000 issues a second), so a
// commit gathers what arrives while it waits rather than a queue.
func BenchmarkPutTokenPaced(b *testing.B) {
	s, err := Open(b.TempDir(), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var n atomic.Int64
	tok := func() model.Token {
		now := time.Now().Round(0)
		v := make([]byte, 32)
		rand.Read(v)
		// In runs of 32 sharing a prefix, as package token issues them.
		binary.BigEndian.PutUint64(v, uint64(n.Add(1)/32)*0x9e3779b97f4a7c15)
		return model.Token{Value: base64.RawURLEncoding.EncodeToString(v), Kind: model.ReferenceToken, Channel: "DEMOBANK", IssuedAt: now, ExpiresAt: now.Add(15 * time.Minute)}
	}
	commits, cpu := s.group.commits.Load(), cputime.Process()
	b.ResetTimer()
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := s.PutToken(tok()); err != nil {
					b.Error(err)
				}
				time.Sleep(time.Duration(4000+mrand.IntN(8000)) * time.Microsecond) // apart, not in step
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/token")
	b.ReportMetric(float64(b.N)/float64(s.group.commits.Load()-commits), "tokens/commit")
}
