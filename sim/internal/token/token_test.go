package token

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
)

// memStore is a Store in memory.
type memStore struct {
	tokens   map[string]model.Token
	sessions map[string]model.Session
}

func newMem() *memStore {
	return &memStore{tokens: map[string]model.Token{}, sessions: map[string]model.Session{}}
}

func (m *memStore) PutToken(t model.Token) error             { m.tokens[t.Value] = t; return nil }
func (m *memStore) Token(v string) (model.Token, error)      { return found(m.tokens, v) }
func (m *memStore) PutSession(s model.Session) error         { m.sessions[s.ID] = s; return nil }
func (m *memStore) Session(id string) (model.Session, error) { return found(m.sessions, id) }

func found[T any](m map[string]T, k string) (T, error) {
	v, ok := m[k]
	if !ok {
		return v, model.ErrNotFound
	}
	return v, nil
}

func TestNewOpaque(t *testing.T) {
	for _, n := range []int{1, 16, 32} {
		v, err := NewOpaque(bytes.NewReader(bytes.Repeat([]byte{0xfb}, n)), n)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil || len(raw) != n || strings.ContainsAny(v, "+/=") {
			t.Errorf("NewOpaque(%d) = %q: want %d bytes as unpadded base64url (%v)", n, v, n, err)
		}
	}
	if _, err := NewOpaque(bytes.NewReader(make([]byte, 31)), 32); err == nil {
		t.Error("a short random source gave a token")
	}
}

// clause: TOK-2, TOK-3, TOK-4, AUTH-1, AUTH-2
func TestIssueAndCheck(t *testing.T) {
	t0 := time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		kind    model.TokenKind
		want    model.TokenKind
		advance time.Duration
		value   string // "" sends the issued token
		err     error
	}{
		{"live user token", model.UserToken, model.UserToken, 0, "", nil},
		{"one tick before expiry", model.UserToken, model.UserToken, 30*time.Minute - time.Nanosecond, "", nil},
		{"at expiry", model.UserToken, model.UserToken, 30 * time.Minute, "", ErrExpired},
		{"after expiry", model.ReferenceToken, model.ReferenceToken, time.Hour, "", ErrExpired},
		{"wrong kind", model.ReferenceToken, model.UserToken, 0, "", ErrWrongKind},
		{"unknown", model.UserToken, model.UserToken, 0, "nope", ErrUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			s := New(newMem(), clock.One{Clock: clk}, bytes.NewReader(bytes.Repeat([]byte{1}, 32)))
			tok, err := s.Issue(c.kind, "DEMOBANK", "VU-1", 30*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if tok.Kind != c.kind || tok.Channel != "DEMOBANK" || tok.VirtualID != "VU-1" || !tok.IssuedAt.Equal(t0) || !tok.ExpiresAt.Equal(t0.Add(30*time.Minute)) {
				t.Fatalf("issued %+v", tok)
			}
			clk.Advance(c.advance)
			v := c.value
			if v == "" {
				v = tok.Value
			}
			got, err := s.Check(v, c.want)
			if !errors.Is(err, c.err) || (c.err == nil && got != tok) {
				t.Fatalf("Check = %+v, %v; want %v", got, err, c.err)
			}
		})
	}
}

// Two issues draw two values; the random source decides them.
func TestIssue_valuesAreDistinct(t *testing.T) {
	s := New(newMem(), clock.One{Clock: clock.NewFake(time.Unix(0, 0))}, bytes.NewReader(append(bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)...)))
	a, _ := s.Issue(model.UserToken, "C", "U", time.Minute)
	b, _ := s.Issue(model.UserToken, "C", "U", time.Minute)
	if a.Value == b.Value {
		t.Fatalf("two tokens share the value %q", a.Value)
	}
	if _, err := s.Issue(model.UserToken, "C", "U", time.Minute); err == nil {
		t.Error("an exhausted random source gave a token")
	}
}

// clause: SESS-1, SESS-2
func TestSessions(t *testing.T) {
	t0 := time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name              string
		ttl, advance      time.Duration
		id, user, channel string // id "" sends the issued id; "-" sends none
		refused           string // part of the refusal, "" for a live session
	}{
		{"live", time.Hour, 0, "", "VU-1", "", ""},
		{"named channel", time.Hour, 0, "", "VU-1", "DEMOBANK", ""},
		{"no ttl never lapses", 0, 1000 * time.Hour, "", "VU-1", "", ""},
		{"one tick before expiry", time.Hour, time.Hour - time.Nanosecond, "", "VU-1", "", ""},
		{"at expiry", time.Hour, time.Hour, "", "VU-1", "", "has expired"},
		{"other user", time.Hour, 0, "", "VU-2", "", "generated for another virtualId"},
		{"other channel", time.Hour, 0, "", "VU-1", "OTHERBANK", "belongs to channel DEMOBANK, not OTHERBANK"},
		{"unknown id", time.Hour, 0, "nope", "VU-1", "", "sessionId is unknown"},
		{"no id", time.Hour, 0, "-", "VU-1", "", "must be supplied together"},
		{"no user", time.Hour, 0, "", "", "", "must be supplied together"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			s := New(newMem(), clock.One{Clock: clk}, bytes.NewReader(bytes.Repeat([]byte{3}, 32)))
			sess, err := s.IssueSession("DEMOBANK", "VU-1", c.ttl)
			if err != nil || sess.ID == "" || sess.Channel != "DEMOBANK" || sess.VirtualID != "VU-1" || !sess.IssuedAt.Equal(t0) {
				t.Fatalf("issued %+v, %v", sess, err)
			}
			clk.Advance(c.advance)
			id := c.id
			switch id {
			case "":
				id = sess.ID
			case "-":
				id = ""
			}
			got, err := s.CheckSession(id, c.user, c.channel)
			if c.refused == "" {
				if err != nil || got != sess {
					t.Fatalf("CheckSession = %+v, %v; want %+v", got, err, sess)
				}
				return
			}
			if r, ok := refusal.Of(err); !ok || r.Kind != refusal.Unauthorized || !strings.Contains(r.Msg, c.refused) {
				t.Fatalf("CheckSession = %+v, %v; want a refusal %q", got, err, c.refused)
			}
		})
	}
	if _, err := New(newMem(), clock.One{Clock: clock.NewFake(t0)}, bytes.NewReader(nil)).IssueSession("C", "U", 0); err == nil {
		t.Error("an exhausted random source gave a session")
	}
}
