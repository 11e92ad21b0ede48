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
// issuers share a commit.
func (s *Store) PutToken(t model.Token) error {
	if t.Value == "" {
		return errors.New("token without a value")
	}
	return s.groupUpdate(func(tx *bolt.Tx) error {
		if err := indexUser(tx, bucketTokensByUser, t.Channel, t.VirtualID, t.Value); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketTokens), []byte(t.Value), t)
	})
}

// Token looks a token up by its value; model.ErrNotFound if unknown.
func (s *Store) Token(value string) (model.Token, error) {
	var t model.Token
	err := s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketTokens), []byte(value), &t)
	})
	t.Value = value
	return t, err
}

// PutSession stores a session durably.
func (s *Store) PutSession(sess model.Session) error {
	if sess.ID == "" {
		return errors.New("session without an id")
	}
	return s.groupUpdate(func(tx *bolt.Tx) error {
		if err := indexUser(tx, bucketSessionsByUser, sess.Channel, sess.VirtualID, sess.ID); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketSessions), []byte(sess.ID), sess)
	})
}

// Session looks a session up by id; model.ErrNotFound if unknown.
func (s *Store) Session(id string) (model.Session, error) {
	var sess model.Session
	err := s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bucketSessions), []byte(id), &sess)
	})
	sess.ID = id
	return sess, err
}
