package state

import (
	"bytes"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Tokens and sessions are keyed by their opaque value (a bearer lookup
// knows nothing else); these channel-scoped indexes, keyed
// "<channel>\x00<issue time><value>" and holding the virtualId, find them
// per channel (resets) and per user (the control API's reads, a scan of
// the channel's entries). Keyed by issue time, a commit's new entries
// land together at the end of their channel's range, so a commit
// rewrites one index page per channel instead of one per token, as the
// former index keyed "<channel>\x00<virtualId>\x00<value>" did (issue 25).
var (
	bucketTokensByChannel   = channelBucket("tokens-by-channel")
	bucketSessionsByChannel = channelBucket("sessions-by-channel")
)

// indexTimeLen is the width of an index key's issue time: 16 hex digits
// of its Unix nanoseconds, sign bit flipped so that the digits sort as
// the times do.
const indexTimeLen = 16

func indexKey(channel string, issued time.Time, value string) []byte {
	k := make([]byte, 0, len(channel)+len(Sep)+indexTimeLen+len(value))
	k = append(k, channel...)
	k = append(k, Sep...)
	n := uint64(issued.UnixNano()) ^ 1<<63
	for shift := 60; shift >= 0; shift -= 4 {
		k = append(k, "0123456789abcdef"[n>>shift&0xf])
	}
	return append(k, value...)
}

// indexed is the value an index key names, given its channel's prefix.
func indexed(k, prefix []byte) []byte {
	if len(k) < len(prefix)+indexTimeLen {
		return nil
	}
	return k[len(prefix)+indexTimeLen:]
}

// resetUserIndex deletes a channel's tokens and sessions ("" = every
// channel's); ResetChannel then deletes the index entries with the rest
// of the channel's keys.
func resetUserIndex(tx *bolt.Tx, channel string) error {
	for _, p := range [][2][]byte{{bucketTokensByChannel, bucketTokens}, {bucketSessionsByChannel, bucketSessions}} {
		if err := deleteIndexed(tx, p[0], p[1], channel); err != nil {
			return err
		}
	}
	return nil
}

// deleteIndexed deletes the primary records an index names for a channel
// ("" = the whole primary bucket).
func deleteIndexed(tx *bolt.Tx, index, primary []byte, channel string) error {
	if channel == "" {
		return deletePrefix(tx.Bucket(primary), nil)
	}
	var values [][]byte
	prefix := channelPrefix(channel)
	c := tx.Bucket(index).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		values = append(values, append([]byte(nil), indexed(k, prefix)...))
	}
	for _, v := range values {
		if err := tx.Bucket(primary).Delete(v); err != nil {
			return err
		}
	}
	return nil
}

// userValues lists the values one user holds in an index, in issue order.
func userValues(tx *bolt.Tx, index []byte, channel, virtualID string) [][]byte {
	var out [][]byte
	prefix := channelPrefix(channel)
	c := tx.Bucket(index).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if string(v) == virtualID {
			out = append(out, append([]byte(nil), indexed(k, prefix)...))
		}
	}
	return out
}

// UserTokens lists the tokens issued to one user of one channel, in
// issue order.
func (s *Store) UserTokens(channel, virtualID string) ([]model.Token, error) {
	var out []model.Token
	err := s.db.View(func(tx *bolt.Tx) error {
		for _, v := range userValues(tx, bucketTokensByChannel, channel, virtualID) {
			raw := tx.Bucket(bucketTokens).Get(v)
			if raw == nil {
				continue // reset or never committed
			}
			t, err := decodeToken(raw)
			if err != nil {
				continue
			}
			t.Value = string(v)
			out = append(out, t)
		}
		return nil
	})
	return out, err
}

// UserSessions lists the sessions of one user of one channel, in issue
// order.
func (s *Store) UserSessions(channel, virtualID string) ([]model.Session, error) {
	var out []model.Session
	err := s.db.View(func(tx *bolt.Tx) error {
		for _, v := range userValues(tx, bucketSessionsByChannel, channel, virtualID) {
			raw := tx.Bucket(bucketSessions).Get(v)
			if raw == nil {
				continue
			}
			sess, err := decodeSession(raw)
			if err != nil {
				continue
			}
			sess.ID = string(v)
			out = append(out, sess)
		}
		return nil
	})
	return out, err
}
