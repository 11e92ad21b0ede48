package state

import (
	"encoding/binary"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The journal bucket holds diagnostic records keyed by a big-endian
// sequence number. Each value is 8 bytes of the record's time (Unix
// nanoseconds, big-endian) followed by the record's bytes, so pruning by
// age never decodes a record.
var bucketJournal = bucket("journal")

// JournalRecord is one journal value as stored.
type JournalRecord struct {
	Seq  uint64
	At   time.Time
	Data []byte
}

func seqKey(seq uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, seq)
	return k
}

// JournalLastSeq is the highest stored sequence number (0 when empty).
func (s *Store) JournalLastSeq() (uint64, error) {
	var last uint64
	err := s.db.View(func(tx *bolt.Tx) error {
		if k, _ := tx.Bucket(bucketJournal).Cursor().Last(); k != nil {
			last = binary.BigEndian.Uint64(k)
		}
		return nil
	})
	return last, err
}

// JournalAppend stores recs in one write transaction, then drops the
// oldest records beyond maxEntries (0: no count bound) and those older
// than notBefore (zero: no age bound).
func (s *Store) JournalAppend(recs []JournalRecord, maxEntries int, notBefore time.Time) error {
	_, err := s.JournalAppendSized(recs, maxEntries, notBefore, nil, 0)
	return err
}

// JournalAppendSized is JournalAppend that also returns how many bytes
// (keys and values) the journal grew by, negative when it shrank, so the
// one writer can keep its byte total without rescanning. In the same
// transaction it remembers masks (at most maxMasks are kept).
func (s *Store) JournalAppendSized(recs []JournalRecord, maxEntries int, notBefore time.Time, masks []JournalMask, maxMasks int) (int64, error) {
	var delta int64
	err := s.db.Update(func(tx *bolt.Tx) error {
		delta = 0
		if err := putMasks(tx, masks, maxMasks); err != nil {
			return err
		}
		b := tx.Bucket(bucketJournal)
		n := journalLen(b)
		for _, r := range recs {
			v := make([]byte, 8+len(r.Data))
			binary.BigEndian.PutUint64(v, uint64(r.At.UnixNano()))
			copy(v[8:], r.Data)
			k := seqKey(r.Seq)
			if b.Get(k) == nil {
				n++
			}
			if err := b.Put(k, v); err != nil {
				return err
			}
			delta += int64(8 + len(v))
		}
		excess := 0
		if maxEntries > 0 && n > maxEntries {
			excess = n - maxEntries
		}
		defer func() { _ = b.SetSequence(uint64(n)) }() // the count, for journalLen
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.First() {
			old := !notBefore.IsZero() && len(v) >= 8 && int64(binary.BigEndian.Uint64(v)) < notBefore.UnixNano()
			if excess <= 0 && !old {
				break
			}
			delta -= int64(len(k) + len(v))
			n--
			if err := c.Delete(); err != nil {
				return err
			}
			excess--
		}
		return nil
	})
	return delta, err
}

// journalLen counts records in O(1): the bucket's own sequence holds the
// count, kept by every write (sequence numbers have gaps: an answer is
// numbered before it is queued, and a channel's entries can be deleted).
// A journal written before the count was kept is counted once.
func journalLen(b *bolt.Bucket) int {
	if n := b.Sequence(); n > 0 {
		return int(n)
	}
	if k, _ := b.Cursor().First(); k == nil {
		return 0
	}
	return b.Stats().KeyN
}

// JournalDelete drops every record whose stored bytes drop says to, in
// one write transaction, and returns the bytes freed (keys and values).
func (s *Store) JournalDelete(drop func(data []byte) bool) (int64, error) {
	var freed int64
	err := s.db.Update(func(tx *bolt.Tx) error {
		freed = 0
		b := tx.Bucket(bucketJournal)
		n := journalLen(b)
		c := b.Cursor()
		for k, v := c.First(); k != nil; {
			if len(v) < 8 || !drop(v[8:]) {
				k, v = c.Next()
				continue
			}
			freed += int64(len(k) + len(v))
			n--
			at := append([]byte(nil), k...)
			if err := c.Delete(); err != nil {
				return err
			}
			k, v = c.Seek(at) // the next key: Next after Delete may skip one
		}
		return b.SetSequence(uint64(n))
	})
	return freed, err
}

// JournalCount is the number of stored records.
func (s *Store) JournalCount() (int, error) {
	var n int
	err := s.db.View(func(tx *bolt.Tx) error {
		n = journalLen(tx.Bucket(bucketJournal))
		return nil
	})
	return n, err
}

// JournalScan calls fn for each record with a sequence number of at least
// from, in ascending order, until fn returns false. Data is a copy.
func (s *Store) JournalScan(from uint64, fn func(JournalRecord) bool) error {
	return s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketJournal).Cursor()
		for k, v := c.Seek(seqKey(from)); k != nil; k, v = c.Next() {
			if len(v) < 8 {
				continue
			}
			r := JournalRecord{
				Seq:  binary.BigEndian.Uint64(k),
				At:   time.Unix(0, int64(binary.BigEndian.Uint64(v))),
				Data: append([]byte(nil), v[8:]...),
			}
			if !fn(r) {
				return nil
			}
		}
		return nil
	})
}

// JournalReset drops every record.
func (s *Store) JournalReset() error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketJournal); err != nil {
			return err
		}
		_, err := tx.CreateBucket(bucketJournal)
		return err
	})
}

// JournalBytes is the bytes of every stored journal value, keys included:
// what the byte bound of JournalTrimBytes counts.
func (s *Store) JournalBytes() (int64, error) {
	var n int64
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJournal).ForEach(func(k, v []byte) error {
			n += int64(len(k) + len(v))
			return nil
		})
	})
	return n, err
}

// JournalTrimBytes drops the oldest records while the journal holds more
// than maxBytes (keys and values), given that it holds size bytes now; it
// returns the bytes left. The caller keeps size (one writer).
func (s *Store) JournalTrimBytes(size, maxBytes int64) (int64, error) {
	if maxBytes <= 0 || size <= maxBytes {
		return size, nil
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketJournal).Cursor()
		k, v := c.First()
		b := tx.Bucket(bucketJournal)
		n := journalLen(b)
		for ; k != nil && size > maxBytes; k, v = c.First() {
			size -= int64(len(k) + len(v))
			n--
			if err := c.Delete(); err != nil {
				return err
			}
		}
		if err := b.SetSequence(uint64(max(n, 0))); err != nil {
			return err
		}
		if k == nil {
			size = 0 // empty: whatever the caller counted
		}
		return nil
	})
	return size, err
}
