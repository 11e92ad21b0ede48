package journal

import (
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// The journal-masks bucket holds what the journal learnt to mask (hashes
// of the tokens and signatures it saw, never the values), so masking by
// value holds across a restart. Keys are the bucket's own sequence,
// big-endian, so the oldest come first and are dropped first.
var bucketJournalMasks = []byte("journal-masks")

// storedMask is one remembered value: its kind, hash and length.
type storedMask struct {
	Kind uint8
	Hash uint64
	Len  uint16
}

const journalMaskSize = 1 + 8 + 2

// putMasks appends ms to the bucket and drops the oldest beyond max.
func putMasks(tx *bolt.Tx, ms []storedMask, max int) error {
	if len(ms) == 0 {
		return nil
	}
	b := tx.Bucket(bucketJournalMasks)
	for _, m := range ms {
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		v := make([]byte, journalMaskSize)
		v[0] = m.Kind
		binary.BigEndian.PutUint64(v[1:], m.Hash)
		binary.BigEndian.PutUint16(v[9:], m.Len)
		if err := b.Put(seqKey(seq), v); err != nil {
			return err
		}
	}
	// Keys run without gaps from the first kept to the sequence.
	c := b.Cursor()
	k, _ := c.First()
	if k == nil {
		return nil
	}
	for n := b.Sequence() - binary.BigEndian.Uint64(k) + 1; n > uint64(max) && k != nil; n-- {
		if err := c.Delete(); err != nil {
			return err
		}
		k, _ = c.First()
	}
	return nil
}

// masks calls fn with every remembered mask, oldest first.
func (s *store) masks(fn func(storedMask)) error {
	return s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJournalMasks).ForEach(func(_, v []byte) error {
			if len(v) == journalMaskSize {
				fn(storedMask{Kind: v[0], Hash: binary.BigEndian.Uint64(v[1:]), Len: binary.BigEndian.Uint16(v[9:])})
			}
			return nil
		})
	})
}
