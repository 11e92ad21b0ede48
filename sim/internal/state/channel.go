package state

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// Channel-scoped keys.
//
// Every bucket that holds per-channel state keys its records as
// "<channel name>\x00<rest>", so one prefix scan finds (and a reset
// deletes) everything of one channel. Declare such a bucket with
// channelBucket instead of bucket; ResetChannel then covers it with no
// further code. Buckets keyed otherwise (tokens and sessions are keyed by
// their opaque value, because a bearer lookup knows nothing else) keep a
// channel-prefixed index bucket and register a resetHook that deletes the
// primary records the index names.

// Sep separates the channel name from the rest of a channel-scoped key.
const Sep = "\x00"

var channelBuckets [][]byte

// resetHooks are the extra work of ResetChannel ("" = whole reset),
// listed here rather than registered from init functions, so the order
// is written down: cards, coupons, then the user indexes.
var resetHooks = []func(tx *bolt.Tx, channel string) error{resetCards, resetCoupons, resetUserIndex}

// channelBucket declares a bucket whose keys start with "<channel>\x00".
func channelBucket(name string) []byte {
	b := bucket(name)
	channelBuckets = append(channelBuckets, b)
	return b
}

// channelKey is a channel-scoped key: "<channel>\x00<rest>".
func channelKey(channel, rest string) []byte { return []byte(channel + Sep + rest) }

func channelPrefix(channel string) []byte { return []byte(channel + Sep) }

// deletePrefix removes every key of b starting with prefix (all keys when
// prefix is empty).
func deletePrefix(b *bolt.Bucket, prefix []byte) error {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// ResetChannel deletes every record of one channel in one transaction;
// channel "" resets the state of every channel (tokens, sessions, and
// whatever other areas keep in channel-scoped buckets). Registered
// channels, faults, the clock and the scenario selection are
// configuration, not state, and are kept; ws are config changes made in
// the same transaction (a channel's deletion takes its configuration).
func (s *Store) ResetChannel(channel string, ws ...ConfigWrite) error {
	// Forget remembered tokens and sessions after the commit (and even if
	// it failed: a miss only costs a read).
	defer s.tokens.forget()
	defer s.sessions.forget()
	defer s.txnTails.forget()
	return s.db.Update(func(tx *bolt.Tx) error {
		var prefix []byte
		if channel != "" {
			prefix = channelPrefix(channel)
		}
		for _, f := range resetHooks {
			if err := f(tx, channel); err != nil {
				return err
			}
		}
		for _, name := range channelBuckets {
			if err := deletePrefix(tx.Bucket(name), prefix); err != nil {
				return err
			}
		}
		return writeConfig(tx, ws)
	})
}
