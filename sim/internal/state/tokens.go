package state

import (
	"errors"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

var errNotFound = model.ErrNotFound

var (
	bucketTokens   = bucket("tokens")
	bucketSessions = bucket("sessions")
)

// PutToken stores a newly issued token durably. Group-committed: parallel
// issuers share a commit. Once committed it is also remembered, so the
// bearer checks that follow read no store.
func (s *Store) PutToken(t model.Token) error {
	if t.Value == "" {
		return errors.New("token without a value")
	}
	t.IssuedAt, t.ExpiresAt = t.IssuedAt.Round(0), t.ExpiresAt.Round(0) // as read back: no monotonic reading
	gen := s.tokens.generation()
	err := s.groupUpdate(func(tx *bolt.Tx) error {
		if err := indexUser(tx, bucketTokensByUser, t.Channel, t.VirtualID, t.Value); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketTokens), []byte(t.Value), t)
	})
	if err == nil {
		s.tokens.put(gen, t.Value, t)
	}
	return err
}

// Token looks a token up by its value; model.ErrNotFound if unknown.
func (s *Store) Token(value string) (model.Token, error) {
	if t, ok := s.tokens.get(value); ok {
		return t, nil
	}
	gen := s.tokens.generation()
	var t model.Token
	err := s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketTokens), []byte(value), &t)
	})
	t.Value = value
	if err == nil {
		s.tokens.put(gen, value, t)
	}
	return t, err
}

// PutSession stores a session durably, and remembers it once committed.
func (s *Store) PutSession(sess model.Session) error {
	if sess.ID == "" {
		return errors.New("session without an id")
	}
	sess.IssuedAt, sess.ExpiresAt = sess.IssuedAt.Round(0), sess.ExpiresAt.Round(0)
	gen := s.sessions.generation()
	err := s.groupUpdate(func(tx *bolt.Tx) error {
		if err := indexUser(tx, bucketSessionsByUser, sess.Channel, sess.VirtualID, sess.ID); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketSessions), []byte(sess.ID), sess)
	})
	if err == nil {
		s.sessions.put(gen, sess.ID, sess)
	}
	return err
}

// Session looks a session up by id; model.ErrNotFound if unknown.
func (s *Store) Session(id string) (model.Session, error) {
	if sess, ok := s.sessions.get(id); ok {
		return sess, nil
	}
	gen := s.sessions.generation()
	var sess model.Session
	err := s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketSessions), []byte(id), &sess)
	})
	sess.ID = id
	if err == nil {
		s.sessions.put(gen, id, sess)
	}
	return sess, err
}
