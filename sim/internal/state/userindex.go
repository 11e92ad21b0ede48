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

// UserTokens lists the tokens issued to one user of one channel, in
// issue order.
func (s *Store) UserTokens(channel, virtualID string) ([]model.Token, error) {
	return userRecords(s, bucketTokensByChannel, bucketTokens, channel, virtualID, decodeToken, func(t *model.Token, v string) { t.Value = v })
}

// UserSessions lists the sessions of one user of one channel, in issue
// order.
func (s *Store) UserSessions(channel, virtualID string) ([]model.Session, error) {
	return userRecords(s, bucketSessionsByChannel, bucketSessions, channel, virtualID, decodeSession, func(x *model.Session, v string) { x.ID = v })
}

// userRecords reads the records of primary that one user holds in index
// (a scan of the channel's entries), in issue order, each given its key
// (setKey); an entry whose record is gone or does not decode is left out.
func userRecords[T any](s *Store, index, primary []byte, channel, virtualID string, decode func([]byte) (T, error), setKey func(*T, string)) ([]T, error) {
	var out []T
	err := s.db.View(func(tx *bolt.Tx) error {
		prefix, b := channelPrefix(channel), tx.Bucket(primary)
		c := tx.Bucket(index).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if string(v) != virtualID {
				continue
			}
			key := indexed(k, prefix)
			if x, err := decode(b.Get(key)); err == nil {
				setKey(&x, string(key))
				out = append(out, x)
			}
		}
		return nil
	})
	return out, err
}
