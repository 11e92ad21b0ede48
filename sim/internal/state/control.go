package state

import (
	"bytes"
	"encoding/json"

	bolt "go.etcd.io/bbolt"
)

// The control plane's durable configuration: registered channels, fault
// rules, uploaded scenarios and their activation, the clock. Records are
// JSON under "<kind>\x00<key>"; the owning package (controlplane) picks
// the kinds and types. A reset keeps them (they are configuration, not
// state).
var bucketConfig = bucket("config")

func configKey(kind, key string) []byte { return []byte(kind + Sep + key) }

// ConfigWrite is one change of a config record: Value stored, or the
// record deleted when Delete is set (deleting an absent record is no error).
type ConfigWrite struct {
	Kind, Key string
	Value     any
	Delete    bool
}

// WriteConfig makes every change in one transaction: all land or none.
func (s *Store) WriteConfig(ws ...ConfigWrite) error {
	return s.db.Update(func(tx *bolt.Tx) error { return writeConfig(tx, ws) })
}

func writeConfig(tx *bolt.Tx, ws []ConfigWrite) error {
	b := tx.Bucket(bucketConfig)
	for _, w := range ws {
		var err error
		if w.Delete {
			err = b.Delete(configKey(w.Kind, w.Key))
		} else {
			err = putJSON(b, configKey(w.Kind, w.Key), w.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ReplaceConfig rewrites an existing record, in one transaction, only if
// newer(old) says v is newer than what is stored: concurrent savers can
// neither land out of order nor bring back a deleted record. ok reports
// whether v was written.
func (s *Store) ReplaceConfig(kind, key string, v any, newer func(old []byte) bool) (ok bool, err error) {
	err = s.db.Update(func(tx *bolt.Tx) error {
		b, k := tx.Bucket(bucketConfig), configKey(kind, key)
		old := b.Get(k)
		if ok = old != nil && newer(old); !ok {
			return nil
		}
		return putJSON(b, k, v)
	})
	return ok, err
}

// GetConfig decodes one record into v; model.ErrNotFound if absent.
func (s *Store) GetConfig(kind, key string, v any) error {
	return s.db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketConfig).Get(configKey(kind, key))
		if raw == nil {
			return errNotFound
		}
		return json.Unmarshal(raw, v) // decoded: nothing of the transaction escapes
	})
}

// ConfigList returns every record of kind, in key order.
func (s *Store) ConfigList(kind string) ([]json.RawMessage, error) {
	return s.rawPrefix(bucketConfig, configKey(kind, ""))
}

// rawPrefix copies out every value of bucket under prefix, in key order.
func (s *Store) rawPrefix(bucket, prefix []byte) ([]json.RawMessage, error) {
	var out []json.RawMessage
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucket).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			out = append(out, append(json.RawMessage(nil), v...))
		}
		return nil
	})
	return out, err
}

// Scheduled webhook pushes, keyed "<channel>\x00<id>": a channel reset
// drops that channel's pushes.
var bucketWebhooks = channelBucket("webhooks")

// PutWebhook stores a push record.
func (s *Store) PutWebhook(channel, id string, v any) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bucketWebhooks), channelKey(channel, id), v)
	})
}

// UpdateWebhook rewrites a push record only if it still exists, in one
// transaction: a delivery that finishes after a reset of its channel must
// not bring the push back. ok is false when it was gone.
func (s *Store) UpdateWebhook(channel, id string, v any) (ok bool, err error) {
	err = s.db.Update(func(tx *bolt.Tx) error {
		b, k := tx.Bucket(bucketWebhooks), channelKey(channel, id)
		if ok = b.Get(k) != nil; !ok {
			return nil
		}
		return putJSON(b, k, v)
	})
	return ok, err
}

// Webhook returns one push record; ok is false when it is gone.
func (s *Store) Webhook(channel, id string) (raw json.RawMessage, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketWebhooks).Get(channelKey(channel, id)); v != nil {
			raw, ok = append(json.RawMessage(nil), v...), true
		}
		return nil
	})
	return raw, ok, err
}

// Webhooks returns the push records of one channel ("" = every channel).
func (s *Store) Webhooks(channel string) ([]json.RawMessage, error) {
	var prefix []byte
	if channel != "" {
		prefix = channelPrefix(channel)
	}
	return s.rawPrefix(bucketWebhooks, prefix)
}
