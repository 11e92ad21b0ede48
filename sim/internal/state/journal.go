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
	// Framed says Data begins with 8 bytes left free for the time, which
	// JournalWrite fills in place instead of copying the record.
	Framed bool
}

// JournalFrame is how many bytes a framed record leaves at its start.
const JournalFrame = 8

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
	_, err := s.JournalWrite(JournalBatch{Records: recs, MaxEntries: maxEntries, NotBefore: notBefore})
	return err
}

// JournalBatch is one commit of the journal's writer.
type JournalBatch struct {
	Records []JournalRecord
	// MaxEntries bounds the count (0: none); records older than NotBefore
	// go (zero: no age bound).
	MaxEntries int
	NotBefore  time.Time
	// Size is the bytes (keys and values) the journal held before the
	// batch, as its one writer counts them; MaxBytes bounds them (<= 0:
	// no byte bound). The oldest records go first.
	Size, MaxBytes int64
	// Masks are remembered too, at most MaxMasks of them.
	Masks    []JournalMask
	MaxMasks int
}

// JournalWrite stores a batch and prunes to its bounds, all in one write
// transaction (one commit per batch: a separate trim was a second commit
// once the journal was full), and returns the bytes the journal holds.
func (s *Store) JournalWrite(jb JournalBatch) (int64, error) {
	var size int64
	err := s.db.Update(func(tx *bolt.Tx) error {
		size = jb.Size
		if err := putMasks(tx, jb.Masks, jb.MaxMasks); err != nil {
			return err
		}
		b := tx.Bucket(bucketJournal)
		// Keys only grow: full pages, not bbolt's half-full split.
		b.FillPercent = 1.0
		n := journalLen(b)
		var last uint64
		if k, _ := b.Cursor().Last(); k != nil {
			last = binary.BigEndian.Uint64(k)
		}
		for _, r := range jb.Records {
			var v []byte
			if r.Framed {
				v = r.Data
			} else {
				v = make([]byte, 8+len(r.Data))
				copy(v[8:], r.Data)
			}
			binary.BigEndian.PutUint64(v, uint64(r.At.UnixNano()))
			k := seqKey(r.Seq)
			// A number past the last is new; only an older one can
			// replace a record.
			if r.Seq > last || b.Get(k) == nil {
				n++
			}
			last = max(last, r.Seq)
			if err := b.Put(k, v); err != nil {
				return err
			}
			size += int64(8 + len(v))
		}
		excess := 0
		if jb.MaxEntries > 0 && n > jb.MaxEntries {
			excess = n - jb.MaxEntries
		}
		defer func() { _ = b.SetSequence(uint64(max(n, 0))) }() // the count, for journalLen
		// The oldest records to drop are found first, then deleted by
		// key: a cursor that deleted as it went started again from the
		// first key each time, walking every leaf already emptied, and
		// a full journal of 3 KB answers spent a tenth of its CPU there
		// (issue 25).
		drop := make([][]byte, 0, len(jb.Records))
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			old := !jb.NotBefore.IsZero() && len(v) >= 8 && int64(binary.BigEndian.Uint64(v)) < jb.NotBefore.UnixNano()
			if excess <= 0 && !old && (jb.MaxBytes <= 0 || size <= jb.MaxBytes) {
				break
			}
			size -= int64(len(k) + len(v))
			n--
			drop = append(drop, k)
			excess--
		}
		for _, k := range drop {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		if k, _ := c.First(); k == nil {
			size = 0 // empty: whatever the writer counted
		}
		return nil
	})
	return size, err
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
