package journal

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// journalModel is what the journal should hold: every record written,
// less those pruned or deleted.
type journalModel map[uint64][]byte

// readJournal is every stored record, read as readers read them.
func readJournal(t *testing.T, s *store) ([]uint64, journalModel) {
	t.Helper()
	var seqs []uint64
	got := journalModel{}
	if err := s.scan(0, func(r storedRecord) bool {
		seqs = append(seqs, r.Seq)
		got[r.Seq] = r.Data
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return seqs, got
}

// Generated batches whose records often end in the same bytes (an answer
// polled again and again), numbered mostly in order with stragglers and
// numbers stored again, pruned by count and bytes and deleted by
// channel: every record a reader sees is the record written, byte for
// byte, and pruning keeps the newest.
func TestJournalWrite_sharedEndsReadWhole(t *testing.T) {
	ends := [][]byte{bytes.Repeat([]byte("listing "), 400), bytes.Repeat([]byte{'a'}, 300), bytes.Repeat([]byte{'b'}, 300), []byte("short")}
	for _, tc := range []struct {
		name       string
		maxEntries int
		maxBytes   int64
		deleteOdd  bool
	}{
		{"unbounded", 0, 0, false},
		{"count bound", 150, 0, false},
		{"byte bound", 0, 64 << 10, false},
		{"both, with deletes", 200, 128 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := openStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer s.close()
			rng := rand.New(rand.NewPCG(1, uint64(len(tc.name))))
			want := journalModel{}
			var size int64
			next := uint64(0)
			for range 40 {
				var batch []storedRecord
				for range 1 + rng.IntN(60) {
					next++
					seq := next
					switch rng.IntN(10) {
					case 0: // a straggler, numbered before the last stored
						seq = max(1, next-uint64(1+rng.IntN(80)))
					case 1:
						seq = next + 1 // the next one comes first
					}
					end := ends[rng.IntN(len(ends))]
					if rng.IntN(5) == 0 {
						end = fmt.Appendf(nil, "unique %d %s", seq, end)
					}
					head := fmt.Appendf([]byte{1}, "seq %d channel %d;", seq, rng.IntN(2))
					data := append(head, end...)
					r := storedRecord{Seq: seq, At: time.Unix(0, int64(seq)), Data: framed(data), Shared: len(end)}
					if rng.IntN(3) == 0 {
						// The caller's hash: the same for different ends too,
						// which must still be told apart.
						r.SharedHash = 1
					}
					batch = append(batch, r)
					want[seq] = data
				}
				size, err = s.write(storeBatch{Records: batch, MaxEntries: tc.maxEntries, Size: size, MaxBytes: tc.maxBytes})
				if err != nil {
					t.Fatal(err)
				}
				if tc.deleteOdd && rng.IntN(8) == 0 {
					freed, err := s.deleteWhere(func(data []byte) bool { return bytes.Contains(data, []byte("channel 1;")) })
					if err != nil {
						t.Fatal(err)
					}
					size -= freed
					for seq, data := range want {
						if bytes.Contains(data, []byte("channel 1;")) {
							delete(want, seq)
						}
					}
				}
				seqs, got := readJournal(t, s)
				if !slices.IsSorted(seqs) {
					t.Fatalf("records out of order: %v", seqs)
				}
				for _, seq := range seqs {
					if !bytes.Equal(got[seq], want[seq]) {
						t.Fatalf("record %d reads %.60q..., was written %.60q...", seq, got[seq], want[seq])
					}
				}
				// Pruning drops the oldest: whatever is kept, every newer
				// record written is kept too.
				for seq := range want {
					if _, ok := got[seq]; !ok && len(seqs) > 0 && seq > seqs[0] {
						t.Fatalf("record %d is missing while older %d is kept", seq, seqs[0])
					}
					if _, ok := got[seq]; !ok {
						delete(want, seq)
					}
				}
				if n, err := s.count(); err != nil || n != len(seqs) {
					t.Fatalf("JournalCount = %d, %v; %d records read", n, err, len(seqs))
				}
				if stored, err := s.bytes(); err != nil || stored != size {
					t.Fatalf("JournalBytes = %d, %v; the writer counts %d", stored, err, size)
				}
				if tc.maxBytes > 0 && size > tc.maxBytes {
					t.Fatalf("%d bytes stored, bound %d", size, tc.maxBytes)
				}
			}
		})
	}
}

// A journal written before records shared their ends (time, then the
// record, for every value) reads as it did, and takes new batches.
func TestJournalWrite_readsTheOldLayout(t *testing.T) {
	s, err := openStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	want := journalModel{}
	end := bytes.Repeat([]byte("answer "), 100)
	if err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketJournal)
		for seq := uint64(1); seq <= 50; seq++ {
			data := append(fmt.Appendf([]byte{1}, "old %d;", seq), end...)
			v := binary.BigEndian.AppendUint64(nil, uint64(seq))
			if err := b.Put(seqKey(seq), append(v, data...)); err != nil {
				return err
			}
			want[seq] = data
		}
		return b.SetSequence(50)
	}); err != nil {
		t.Fatal(err)
	}
	var batch []storedRecord
	for seq := uint64(51); seq <= 60; seq++ {
		data := append(fmt.Appendf([]byte{1}, "new %d;", seq), end...)
		batch = append(batch, storedRecord{Seq: seq, At: time.Unix(0, int64(seq)), Data: framed(data), Shared: len(end)})
		want[seq] = data
	}
	if _, err := s.write(storeBatch{Records: batch, MaxEntries: 40}); err != nil {
		t.Fatal(err)
	}
	seqs, got := readJournal(t, s)
	if len(seqs) != 40 || seqs[0] != 21 || seqs[39] != 60 {
		t.Fatalf("kept %v, want 21 to 60", seqs)
	}
	for _, seq := range seqs {
		if !bytes.Equal(got[seq], want[seq]) {
			t.Fatalf("record %d reads %.40q..., was written %.40q...", seq, got[seq], want[seq])
		}
	}
}

// A batch of answers polled again and again stores the answer once: the
// 50 records of 3 KB take a few pages, not 50, in whatever order the
// answers ended.
func TestJournalWrite_storesARepeatedEndOnce(t *testing.T) {
	s, err := openStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	end := bytes.Repeat([]byte("listing "), 400)
	var batch []storedRecord
	written := 0
	for seq := uint64(1); seq <= 50; seq++ {
		data := append(fmt.Appendf([]byte{1}, "call %d;", seq), end...)
		batch = append(batch, storedRecord{Seq: seq, At: time.Unix(0, int64(seq)), Data: framed(data), Shared: len(end)})
		written += len(data)
	}
	rand.New(rand.NewPCG(50, 50)).Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
	size, err := s.write(storeBatch{Records: batch})
	if err != nil {
		t.Fatal(err)
	}
	if size > int64(len(end)+50*64) {
		t.Fatalf("%d bytes stored for 50 records of %d bytes (%d in all)", size, len(batch[0].Data), written)
	}
}

// The journal's file holds its own buckets only, and its format version.
func TestOpenStore_ownBucketsOnly(t *testing.T) {
	s, err := openStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	var names []string
	if err := s.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error { names = append(names, string(name)); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(names); got != "[format journal journal-masks]" {
		t.Errorf("the journal's file has the buckets %s", got)
	}
}

// framed is data as the writer hands a record to the store: after
// storeFrame free bytes.
func framed(data []byte) []byte { return append(make([]byte, storeFrame), data...) }
