package token

import (
	"errors"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
)

// The bank's SSO sessions (SESS-1, SESS-2): opaque ids bound to a
// channel and a virtualId, lapsing on the simulated clock. A sessionId is
// a credential like a token, so the same Service issues it.

// IssueSession makes, stores and returns a session of virtualID in
// channel; a ttl of 0 never lapses.
func (s *Service) IssueSession(channel, virtualID string, ttl time.Duration) (model.Session, error) {
	id, err := s.sessionRuns.opaque(s.rand)
	if err != nil {
		return model.Session{}, err
	}
	now := clock.NowFor(s.clock, channel)
	sess := model.Session{ID: id, Channel: channel, VirtualID: virtualID, IssuedAt: now}
	if ttl > 0 {
		sess.ExpiresAt = now.Add(ttl)
	}
	if err := s.store.PutSession(sess); err != nil {
		return model.Session{}, err
	}
	return sess, nil
}

// CheckSession returns the session if sessionID and virtualID come
// together (SESS-2): the session exists, was issued to virtualID (and to
// channel, when one is named) and has not lapsed. A refusal is a
// *refusal.Refusal (unauthorized); any other error is the store's.
func (s *Service) CheckSession(sessionID, virtualID, channel string) (model.Session, error) {
	if sessionID == "" || virtualID == "" {
		return model.Session{}, refusal.New(refusal.Unauthorized, "sessionId and virtualId must be supplied together (SESS-2)")
	}
	sess, err := s.store.Session(sessionID)
	if errors.Is(err, model.ErrNotFound) {
		return model.Session{}, refusal.New(refusal.Unauthorized, "sessionId is unknown: GenerateSessionInfoV2 did not issue it")
	}
	if err != nil {
		return model.Session{}, err
	}
	switch {
	case sess.VirtualID != virtualID:
		return model.Session{}, refusal.New(refusal.Unauthorized, "sessionId and virtualId do not match: the session was generated for another virtualId")
	case channel != "" && channel != sess.Channel:
		return model.Session{}, refusal.New(refusal.Unauthorized, "the session belongs to channel %s, not %s", sess.Channel, channel)
	case !sess.ExpiresAt.IsZero() && !clock.NowFor(s.clock, sess.Channel).Before(sess.ExpiresAt):
		return model.Session{}, refusal.New(refusal.Unauthorized, "the session has expired (sessions.ttl)")
	}
	return sess, nil
}
