// Package token issues and checks the service's bearer credentials:
// opaque random strings, stored with their kind, channel, user and expiry
// (TOK-2, TOK-3, TOK-4, AUTH-1, AUTH-2), and the bank's SSO sessions
// (session.go: SESS-1, SESS-2).
package token

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Store is what the service needs of durable state.
type Store interface {
	PutToken(model.Token) error
	Token(value string) (model.Token, error)
	PutSession(model.Session) error
	Session(id string) (model.Session, error)
}

// Service issues and checks tokens and sessions.
type Service struct {
	store Store
	clock clock.Clock
	rand  io.Reader
}

// New returns a Service; rand supplies the token bytes (crypto/rand.Reader in production).
func New(store Store, clk clock.Clock, rand io.Reader) *Service {
	return &Service{store: store, clock: clk, rand: rand}
}

// NewOpaque returns n random bytes as unpadded base64url: an opaque value
// with no structure for a publisher to parse.
func NewOpaque(r io.Reader, n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Issue makes, stores and returns a new token.
func (s *Service) Issue(kind model.TokenKind, channel, virtualID string, ttl time.Duration) (model.Token, error) {
	v, err := NewOpaque(s.rand, 32)
	if err != nil {
		return model.Token{}, err
	}
	now := clock.NowFor(s.clock, channel)
	t := model.Token{Value: v, Kind: kind, Channel: channel, VirtualID: virtualID, IssuedAt: now, ExpiresAt: now.Add(ttl)}
	if err := s.store.PutToken(t); err != nil {
		return model.Token{}, fmt.Errorf("store token: %w", err)
	}
	return t, nil
}

// Reason texts of a refused token, kept apart for the 401 message.
var (
	ErrUnknown   = errors.New("token is unknown")
	ErrExpired   = fmt.Errorf("token has expired: %w", model.ErrExpired)
	ErrWrongKind = model.ErrWrongKind
)

// Check returns the token if value is a live token of kind want.
func (s *Service) Check(value string, want model.TokenKind) (model.Token, error) {
	t, err := s.store.Token(value)
	if errors.Is(err, model.ErrNotFound) {
		return t, ErrUnknown
	}
	if err != nil {
		return t, err
	}
	if t.Kind != want {
		return t, fmt.Errorf("%w: a %s token was sent where a %s token is due", ErrWrongKind, t.Kind, want)
	}
	if !clock.NowFor(s.clock, t.Channel).Before(t.ExpiresAt) {
		return t, ErrExpired
	}
	return t, nil
}
