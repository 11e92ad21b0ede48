// Package token issues and checks the service's bearer credentials:
// opaque random strings, stored with their kind, channel, user and expiry
// (TOK-2, TOK-3, TOK-4, AUTH-1, AUTH-2), and the bank's SSO sessions
// (session.go: SESS-1, SESS-2).
package token

import (
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"sync"
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
	clock clock.PerChannel
	rand  io.Reader
	// The token values and the session ids are each issued in runs
	// sharing a random prefix (runOf).
	tokenRuns, sessionRuns runs
}

// New returns a Service; rand supplies the token bytes (crypto/rand.Reader in production).
func New(store Store, clk clock.PerChannel, rand io.Reader) *Service {
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

// A credential is 32 random bytes, as base64url (43 characters), but for
// its first runPrefix bytes, which runLen credentials issued one after
// the other share, themselves random: the store keeps credentials in a
// B+tree ordered by value, and values random from their first byte put
// each issue in its own page of that tree, read, rewritten and written
// to the file in every commit (1.8 pages per token, and about two
// thirds of a token's store CPU, BenchmarkPutToken). A run's issues
// fall in the same page or two. Each value still has 28 bytes of its
// own (224 random bits); what a publisher could read from a shared
// prefix is only that two credentials were issued close together.
const (
	runPrefix = 4
	runLen    = 32
)

// runs hands out the current run's prefix.
type runs struct {
	mu     sync.Mutex
	prefix [runPrefix]byte
	left   int
	len    int // runLen; 1 makes every value random throughout (a benchmark's)
}

// opaque returns a credential value: 32 bytes read from r (as many as
// NewOpaque reads), the first runPrefix replaced by the run's, the
// first of a run giving its own to the run.
func (ru *runs) opaque(r io.Reader) (string, error) {
	var b [32]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	ru.mu.Lock()
	if ru.left == 0 {
		ru.prefix, ru.left = [runPrefix]byte(b[:runPrefix]), cmp.Or(ru.len, runLen)
	} else {
		copy(b[:runPrefix], ru.prefix[:])
	}
	ru.left--
	ru.mu.Unlock()
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Issue makes, stores and returns a new token.
func (s *Service) Issue(kind model.TokenKind, channel, virtualID string, ttl time.Duration) (model.Token, error) {
	v, err := s.tokenRuns.opaque(s.rand)
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
	ErrUnknown         = errors.New("token is unknown")
	ErrExpired   error = expired{}
	ErrWrongKind       = model.ErrWrongKind
)

// expired reads "token has expired" (not "token has expired: expired")
// and is model.ErrExpired.
type expired struct{}

func (expired) Error() string { return "token has expired" }
func (expired) Unwrap() error { return model.ErrExpired }

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
