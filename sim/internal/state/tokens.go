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
	return putRemembered(s, &s.tokens, bucketTokens, bucketTokensByChannel, t.Value, t, encodeToken(t), tokenRecord(t))
}

// Token looks a token up by its value; model.ErrNotFound if unknown.
func (s *Store) Token(value string) (model.Token, error) {
	t, err := getRemembered(s, &s.tokens, bucketTokens, value, decodeToken)
	t.Value = value
	return t, err
}

// PutSession stores a session durably, and remembers it once committed.
func (s *Store) PutSession(sess model.Session) error {
	if sess.ID == "" {
		return errors.New("session without an id")
	}
	sess.IssuedAt, sess.ExpiresAt = sess.IssuedAt.Round(0), sess.ExpiresAt.Round(0)
	return putRemembered(s, &s.sessions, bucketSessions, bucketSessionsByChannel, sess.ID, sess, encodeSession(sess), sessionRecord(sess))
}

// Session looks a session up by id; model.ErrNotFound if unknown.
func (s *Store) Session(id string) (model.Session, error) {
	sess, err := getRemembered(s, &s.sessions, bucketSessions, id, decodeSession)
	sess.ID = id
	return sess, err
}

// putRemembered writes a record that never changes once written (raw,
// what it says of itself in rec, and its index entry) in one group
// commit, then remembers it as v.
func putRemembered[T any](s *Store, r *recall[T], b, index []byte, key string, v T, raw []byte, rec record) error {
	gen := r.generation()
	err := s.groupUpdate(func(tx *bolt.Tx) error {
		if err := tx.Bucket(index).Put(indexKey(rec.channel, rec.issued, key), []byte(rec.virtualID)); err != nil {
			return err
		}
		return tx.Bucket(b).Put([]byte(key), raw)
	})
	if err == nil {
		r.put(gen, key, v)
		s.noteIssued(rec.expires) // after the commit: a pass begun since reads the record
	}
	return err
}

// getRemembered reads such a record from memory, else from the store
// (and then remembers it).
func getRemembered[T any](s *Store, r *recall[T], b []byte, key string, decode func([]byte) (T, error)) (T, error) {
	if v, ok := r.get(key); ok {
		return v, nil
	}
	gen := r.generation()
	var v T
	err := s.db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(b).Get([]byte(key))
		if raw == nil {
			return errNotFound
		}
		var err error
		v, err = decode(raw)
		return err
	})
	if err == nil {
		r.put(gen, key, v)
	}
	return v, err
}
