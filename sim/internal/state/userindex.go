package state

import (
	"bytes"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Tokens and sessions are keyed by their opaque value (a bearer lookup
// knows nothing else); these channel-scoped indexes, keyed
// "<channel>\x00<virtualId>\x00<value>", find them per channel and user
// for the control API's reads and per-channel resets.
var (
	bucketTokensByUser   = channelBucket("tokens-by-user")
	bucketSessionsByUser = channelBucket("sessions-by-user")
)

// resetUserIndex deletes a channel's token and session indexes ("" =
// every channel's).
func resetUserIndex(tx *bolt.Tx, channel string) error {
	for _, p := range [][2][]byte{{bucketTokensByUser, bucketTokens}, {bucketSessionsByUser, bucketSessions}} {
		if err := deleteIndexed(tx, p[0], p[1], channel); err != nil {
			return err
		}
	}
	return nil
}

func indexUser(tx *bolt.Tx, index []byte, channel, virtualID, value string) error {
	return tx.Bucket(index).Put(ChannelKey(channel, virtualID, value), []byte{})
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
		values = append(values, append([]byte(nil), k[bytes.LastIndexByte(k, 0)+1:]...))
	}
	for _, v := range values {
		if err := tx.Bucket(primary).Delete(v); err != nil {
			return err
		}
	}
	return nil
}

func userValues(tx *bolt.Tx, index []byte, channel, virtualID string) [][]byte {
	var out [][]byte
	prefix := ChannelKey(channel, virtualID, "")
	c := tx.Bucket(index).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		out = append(out, append([]byte(nil), k[len(prefix):]...))
	}
	return out
}

// UserTokens lists the tokens issued to one user of one channel.
func (s *Store) UserTokens(channel, virtualID string) ([]model.Token, error) {
	var out []model.Token
	err := s.db.View(func(tx *bolt.Tx) error {
		for _, v := range userValues(tx, bucketTokensByUser, channel, virtualID) {
			var t model.Token
			if err := getJSON(tx.Bucket(bucketTokens), v, &t); err != nil {
				continue // reset or never committed
			}
			t.Value = string(v)
			out = append(out, t)
		}
		return nil
	})
	return out, err
}

// UserSessions lists the sessions of one user of one channel.
func (s *Store) UserSessions(channel, virtualID string) ([]model.Session, error) {
	var out []model.Session
	err := s.db.View(func(tx *bolt.Tx) error {
		for _, v := range userValues(tx, bucketSessionsByUser, channel, virtualID) {
			var sess model.Session
			if err := getJSON(tx.Bucket(bucketSessions), v, &sess); err != nil {
				continue
			}
			sess.ID = string(v)
			out = append(out, sess)
		}
		return nil
	})
	return out, err
}
