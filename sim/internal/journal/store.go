package journal

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"github.com/rewardsim/rewardsim/sim/internal/boltfile"
	"hash/maphash"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The journal's storage: its own bbolt file (StoreFile), apart from the
// service state, so journal commits never wait on or delay state commits
// (bbolt has one writer per file). Nothing on the request path fsyncs
// it: NoSync and NoGrowSync (each grown-file fsync wrote out every dirty
// page of the file, up to 16 MiB at a time).

// StoreFile is the journal's file in the data folder; storeVersion is
// its format (a file of another is refused at open: boltfile.ErrFormat).
const (
	StoreFile    = "journal.db"
	storeVersion = 1
)

// store is the journal's file.
type store struct{ db *bolt.DB }

func storeFile() boltfile.File {
	return boltfile.File{Name: StoreFile, Version: storeVersion, Buckets: [][]byte{bucketJournal, bucketJournalMasks}, Trimmed: true}
}

// openStore opens (creating if needed) the journal's file in dir.
func openStore(dir string) (*store, error) {
	db, err := boltfile.Open(dir, storeFile(), boltfile.Options{NoSync: true, NoGrowSync: true})
	if err != nil {
		return nil, err
	}
	return &store{db: db}, nil
}

// RemoveStore deletes the journal's file from dir (a reset of the data
// folder), unless a process holds it.
func RemoveStore(dir string) error { return boltfile.Remove(dir, storeFile(), 0) }

// close syncs and closes the file.
func (s *store) close() error { return boltfile.Close(s.db) }

// The journal bucket holds diagnostic records keyed by a big-endian
// sequence number. Each value is 8 bytes of the record's time (Unix
// nanoseconds, big-endian) followed by the record's bytes, so pruning by
// age never decodes a record. A record whose end (its answer's body) is
// the same as that of a higher number of its batch is stored without it:
// the time, journalShared, that record's sequence number and the length
// of the end (4 bytes, big-endian), then the record's bytes up to the
// end. A listing polled 15,000 times a second stored its 3 KB answer
// once a batch instead of once a call, and each commit wrote a page for
// a dozen records where it wrote one a record (issue 25).
//
// A record takes its end only from a higher number, so pruning, which
// drops the lowest numbers first, drops every record that takes an end
// before the record it takes it from; the rare deletes of other records
// (a channel's reset, a number stored again) copy the end back in first.
var bucketJournal = []byte("journal")

// journalShared marks a value that takes its end from another record. A
// record's bytes never begin with it (write refuses them): the
// journal's own begin with their codec's version.
const journalShared = 0xFF

// journalSharedHead is the length of a sharing value before the record's
// bytes: time, mark, sequence number, length of the end.
const journalSharedHead = 8 + 1 + 8 + 4

// minShared is the shortest end worth sharing: a shorter one saves less
// than the head costs.
const minShared = 2 * journalSharedHead

// storedRecord is one journal value as stored.
type storedRecord struct {
	Seq  uint64
	At   time.Time
	Data []byte // storeFrame free bytes, then the record's
	// Shared is how many bytes at the end of the record (after the frame)
	// may be stored once for the records of a batch that end in the same
	// bytes (0: none). Readers see every record whole.
	Shared int
	// SharedHash, when not 0, is a hash of the shared bytes (or of what
	// they encode) that the caller took already: the same for the same
	// bytes within a batch. The bytes are compared anyway.
	SharedHash uint64
}

// storeFrame is how many bytes a record's Data leaves free at its start
// for the value's head, which write fills in place instead of copying the
// record: room for the longer head.
const storeFrame = journalSharedHead

func seqKey(seq uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, seq)
	return k
}

// lastSeq is the highest stored sequence number (0 when empty).
func (s *store) lastSeq() (uint64, error) {
	var last uint64
	err := s.db.View(func(tx *bolt.Tx) error {
		if k, _ := tx.Bucket(bucketJournal).Cursor().Last(); k != nil {
			last = binary.BigEndian.Uint64(k)
		}
		return nil
	})
	return last, err
}

// storeBatch is one commit of the journal's writer.
type storeBatch struct {
	Records []storedRecord
	// MaxEntries bounds the count (0: none); records older than NotBefore
	// go (zero: no age bound).
	MaxEntries int
	NotBefore  time.Time
	// Size is the bytes (keys and values) the journal held before the
	// batch, as its one writer counts them; MaxBytes bounds them (<= 0:
	// no byte bound). The oldest records go first.
	Size, MaxBytes int64
	// Masks are remembered too, at most MaxMasks of them.
	Masks    []storedMask
	MaxMasks int
}

// write stores a batch and prunes to its bounds, all in one write
// transaction (one commit per batch: a separate trim was a second commit
// once the journal was full), and returns the bytes the journal holds.
func (s *store) write(jb storeBatch) (int64, error) {
	var size int64
	err := s.db.Update(func(tx *bolt.Tx) error {
		if err := putMasks(tx, jb.Masks, jb.MaxMasks); err != nil {
			return err
		}
		b := tx.Bucket(bucketJournal)
		// Keys only grow: full pages, not bbolt's half-full split.
		b.FillPercent = 1.0
		n, grown, err := putRecords(b, jb.Records, journalLen(b), jb.Size)
		if err != nil {
			return err
		}
		if n, size, err = prune(b, jb, n, grown); err != nil {
			return err
		}
		return b.SetSequence(uint64(max(n, 0))) // the count, for journalLen
	})
	return size, err
}

// putRecords stores recs in b, which holds n records of size bytes, and
// returns the count and bytes after.
func putRecords(b *bolt.Bucket, recs []storedRecord, n int, size int64) (int, int64, error) {
	var last uint64
	if k, _ := b.Cursor().Last(); k != nil {
		last = binary.BigEndian.Uint64(k)
	}
	from := shareEnds(recs, last)
	for i, r := range recs {
		data := journalBytes(r)
		if len(data) > 0 && data[0] == journalShared {
			return n, size, errJournalMark
		}
		var v []byte
		if from == nil || from[i] < 0 {
			v = journalValue(r, data, 8)
		} else {
			v = journalValue(r, data[:len(data)-r.Shared], journalSharedHead)
			v[8] = journalShared
			binary.BigEndian.PutUint64(v[9:], recs[from[i]].Seq)
			binary.BigEndian.PutUint32(v[17:], uint32(r.Shared))
		}
		binary.BigEndian.PutUint64(v, uint64(r.At.UnixNano()))
		k := seqKey(r.Seq)
		// A number past the last is new; only an older one can
		// replace a record, whose end stays with those that take it.
		if r.Seq > last {
			n++
		} else if old := b.Get(k); old == nil {
			n++
		} else {
			size -= int64(len(k) + len(old))
			grown, err := unshare(b, map[uint64]bool{r.Seq: true})
			if err != nil {
				return n, size, err
			}
			size += grown
		}
		last = max(last, r.Seq)
		if err := b.Put(k, v); err != nil {
			return n, size, err
		}
		size += int64(8 + len(v))
	}
	return n, size, nil
}

// prune drops the oldest records of b (n of them, size bytes) beyond the
// batch's bounds, and returns the count and bytes after.
func prune(b *bolt.Bucket, jb storeBatch, n int, size int64) (int, int64, error) {
	excess := 0
	if jb.MaxEntries > 0 && n > jb.MaxEntries {
		excess = n - jb.MaxEntries
	}
	// The oldest records to drop are found first, then deleted by key: a
	// cursor that deleted as it went started again from the first key
	// each time, walking every leaf already emptied, and a full journal
	// of 3 KB answers spent a tenth of its CPU there (issue 25).
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
			return n, size, err
		}
	}
	if k, _ := c.First(); k == nil {
		size = 0 // empty: whatever the writer counted
	}
	return n, size, nil
}

var errJournalMark = errors.New("journal: a record begins with the sharing mark")

// journalValue is the value of r with head bytes free before body (the
// start of r's bytes), in r's own frame.
func journalValue(r storedRecord, body []byte, head int) []byte {
	return r.Data[storeFrame-head : storeFrame+len(body)]
}

var shareSeed = maphash.MakeSeed()

// shareEnds says, for each record of a batch, which other record of it
// it takes its end from (-1: none); nil when none does. The records are
// taken in the order of their numbers, not the batch's (answers end out
// of order: a slow one comes after faster ones numbered later), and a
// group with the same end takes it from its highest number. Only a
// record numbered past every stored one and alone with its number in
// the batch shares, so none is stored again over one that gives its end.
func shareEnds(recs []storedRecord, last uint64) []int {
	var order []int // the new numbers, in order
	for i, r := range recs {
		if r.Seq > last {
			order = append(order, i)
		}
	}
	if len(order) < 2 {
		return nil
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(recs[a].Seq, recs[b].Seq) })
	from := make([]int, len(recs))
	for i := range from {
		from[i] = -1
	}
	groups := map[uint64][]int{} // hash of an end -> the highest number with it so far, per distinct end
	for k, i := range order {
		r := recs[i]
		alone := (k == 0 || recs[order[k-1]].Seq != r.Seq) && (k == len(order)-1 || recs[order[k+1]].Seq != r.Seq)
		if !alone || r.Shared < minShared || r.Shared > len(journalBytes(r)) {
			continue
		}
		end := journalEnd(r)
		h := r.SharedHash
		if h == 0 {
			h = maphash.Bytes(shareSeed, end)
		}
		g, found := groups[h], false
		for gi, at := range g {
			if bytes.Equal(journalEnd(recs[at]), end) {
				from[at], g[gi], found = i, i, true
				break
			}
		}
		if !found {
			groups[h] = append(g, i)
		}
	}
	// Each record points at the next number with its end; the highest
	// of a group gives it to all.
	for k := len(order) - 1; k >= 0; k-- {
		if i := order[k]; from[i] >= 0 && from[from[i]] >= 0 {
			from[i] = from[from[i]]
		}
	}
	return from
}

// journalBytes is r's bytes, after its frame.
func journalBytes(r storedRecord) []byte { return r.Data[storeFrame:] }

// journalEnd is the end r may share.
func journalEnd(r storedRecord) []byte {
	data := journalBytes(r)
	return data[len(data)-r.Shared:]
}

// journalData is the record a value holds, whole: a sharing one's end is
// read from the record it takes it from. A copy when it has to be one;
// ok is false when the end cannot be found (then data is what is there).
func journalData(b *bolt.Bucket, v []byte) (data []byte, copied, ok bool) {
	if len(v) < 8 {
		return nil, false, false
	}
	if len(v) < journalSharedHead || v[8] != journalShared {
		return v[8:], false, true
	}
	body, n := v[journalSharedHead:], int(binary.BigEndian.Uint32(v[17:]))
	src := b.Get(v[9:17])
	if len(src) < 8+n || (len(src) >= journalSharedHead && src[8] == journalShared) {
		return body, false, false
	}
	data = make([]byte, 0, len(body)+n)
	return append(append(data, body...), src[len(src)-n:]...), true, true
}

// unshare copies the end back into every record that takes it from one
// of gone (which are about to go or be replaced), and returns the bytes
// that added.
func unshare(b *bolt.Bucket, gone map[uint64]bool) (int64, error) {
	type whole struct {
		k, v []byte
		was  int
	}
	var fix []whole
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(v) < journalSharedHead || v[8] != journalShared || gone[binary.BigEndian.Uint64(k)] || !gone[binary.BigEndian.Uint64(v[9:])] {
			continue
		}
		data, _, ok := journalData(b, v)
		if !ok {
			continue
		}
		w := make([]byte, 8+len(data))
		copy(w, v[:8])
		copy(w[8:], data)
		fix = append(fix, whole{append([]byte(nil), k...), w, len(v)})
	}
	var grown int64
	for _, f := range fix {
		grown += int64(len(f.v) - f.was)
		if err := b.Put(f.k, f.v); err != nil {
			return grown, err
		}
	}
	return grown, nil
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

// deleteWhere drops every record whose bytes drop says to, in one
// write transaction, and returns the bytes freed (keys and values).
func (s *store) deleteWhere(drop func(data []byte) bool) (int64, error) {
	var freed int64
	err := s.db.Update(func(tx *bolt.Tx) error {
		freed = 0
		b := tx.Bucket(bucketJournal)
		n := journalLen(b)
		// The records to drop are found first: those that take their end
		// from one of them get it back before it goes.
		var keys [][]byte
		gone := map[uint64]bool{}
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			data, _, _ := journalData(b, v)
			if len(v) < 8 || !drop(data) {
				continue
			}
			freed += int64(len(k) + len(v))
			keys = append(keys, append([]byte(nil), k...))
			gone[binary.BigEndian.Uint64(k)] = true
		}
		grown, err := unshare(b, gone)
		freed -= grown
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := b.Delete(k); err != nil {
				return err
			}
			n--
		}
		return b.SetSequence(uint64(n))
	})
	return freed, err
}

// count is the number of stored records.
func (s *store) count() (int, error) {
	var n int
	err := s.db.View(func(tx *bolt.Tx) error {
		n = journalLen(tx.Bucket(bucketJournal))
		return nil
	})
	return n, err
}

// scan calls fn for each record with a sequence number of at least
// from, in ascending order, until fn returns false. Data is a copy, and
// whole.
func (s *store) scan(from uint64, fn func(storedRecord) bool) error {
	return s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketJournal)
		c := b.Cursor()
		for k, v := c.Seek(seqKey(from)); k != nil; k, v = c.Next() {
			if len(v) < 8 {
				continue
			}
			data, copied, _ := journalData(b, v)
			if !copied {
				data = append([]byte(nil), data...)
			}
			r := storedRecord{
				Seq:  binary.BigEndian.Uint64(k),
				At:   time.Unix(0, int64(binary.BigEndian.Uint64(v))),
				Data: data,
			}
			if !fn(r) {
				return nil
			}
		}
		return nil
	})
}

// reset drops every record.
func (s *store) reset() error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketJournal); err != nil {
			return err
		}
		_, err := tx.CreateBucket(bucketJournal)
		return err
	})
}

// bytes is the bytes of every stored journal value, keys included:
// what the byte bound of bytes counts.
func (s *store) bytes() (int64, error) {
	var n int64
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJournal).ForEach(func(k, v []byte) error {
			n += int64(len(k) + len(v))
			return nil
		})
	})
	return n, err
}
