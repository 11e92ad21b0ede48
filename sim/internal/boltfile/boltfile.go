// Package boltfile opens one of the simulator's bbolt files: under the
// file lock (another process holding it is ErrLocked), with the file's
// own top-level buckets created and its format version checked. A file
// written in another format is refused (ErrFormat), never read half
// right: a simulator's data is disposable, so there are no migrations.
package boltfile

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// ErrLocked means another process holds the data folder.
var ErrLocked = errors.New("data folder is in use by another rewardsim process")

// ErrFormat means a file was written in another format (by another
// version of rewardsim).
var ErrFormat = errors.New("written by another version of rewardsim")

// bucketFormat holds the file's format version, under keyVersion.
var (
	bucketFormat = []byte("format")
	keyVersion   = []byte("version")
)

// File is one bbolt file of the data folder.
type File struct {
	// Name is the file's name in the data folder.
	Name string
	// Version is its format version; Buckets its top-level buckets.
	Version int
	Buckets [][]byte
	// Reads are older format versions this build reads as they are
	// (its code tells the older layout apart where it differs): such a
	// file is marked Version at open, so an older build then refuses it.
	Reads []int
	// Trimmed says the file deletes its oldest records as it writes new
	// ones, as the journal does: its free list then holds many pages,
	// which bbolt's map free list sorts at every commit to save it (1.5%
	// of a listing's server CPU, make load's profile), where the array
	// free list keeps them sorted.
	Trimmed bool
}

// Options tune Open.
type Options struct {
	// LockTimeout bounds the wait for the file lock; default 500ms.
	LockTimeout time.Duration
	// NoSync and NoGrowSync are bbolt's.
	NoSync, NoGrowSync bool
}

// Open opens (creating if needed) f in dir.
func Open(dir string, f File, opts Options) (*bolt.DB, error) {
	if opts.LockTimeout == 0 {
		opts.LockTimeout = 500 * time.Millisecond
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data folder %s: %w", dir, err)
	}
	path := filepath.Join(dir, f.Name)
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout: opts.LockTimeout,
		// The free list is written with each commit (about one page, the
		// file's free pages being few): without it bbolt rebuilt it at
		// open by checking every page of the file, 1.0 to 1.3 s of
		// start-up on a 1 GB state file (make load's start-up row).
		// A file written without it is read, and gets it at open.
		NoFreelistSync: false,
		FreelistType:   freelistType(f),
		NoSync:         opts.NoSync,
		NoGrowSync:     opts.NoGrowSync,
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%s: %w (stop the other instance or use another --data folder)", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return prepare(tx, f) }); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}

// freelistType is the map free list (allocation without a scan in a
// large, fragmented file) unless f is Trimmed.
func freelistType(f File) bolt.FreelistType {
	if f.Trimmed {
		return bolt.FreelistArrayType
	}
	return bolt.FreelistMapType
}

// prepare checks the format of a file that has buckets, or makes a new
// one: its version and its buckets.
func prepare(tx *bolt.Tx, f File) error {
	want := strconv.Itoa(f.Version)
	if k, _ := tx.Cursor().First(); k != nil { // not new
		got := "none"
		if b := tx.Bucket(bucketFormat); b != nil && b.Get(keyVersion) != nil {
			got = string(b.Get(keyVersion))
		}
		if got != want && !slices.ContainsFunc(f.Reads, func(v int) bool { return strconv.Itoa(v) == got }) {
			return fmt.Errorf("%w (its format is %s, this build's is %s)", ErrFormat, got, want)
		}
	}
	b, err := tx.CreateBucketIfNotExists(bucketFormat)
	if err != nil {
		return err
	}
	if err := b.Put(keyVersion, []byte(want)); err != nil {
		return err
	}
	for _, name := range f.Buckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes f from dir, unless another process holds it
// (ErrLocked); a missing file is no error.
func Remove(dir string, f File, lockTimeout time.Duration) error {
	path := filepath.Join(dir, f.Name)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	// A shared lock waits for a running process's exclusive one; a file
	// bbolt cannot read at all is removed anyway.
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: cmp.Or(lockTimeout, 500*time.Millisecond), ReadOnly: true})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return fmt.Errorf("%s: %w", path, ErrLocked)
	}
	if err == nil {
		defer db.Close()
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("reset %s: %w", path, err)
	}
	return nil
}

// Close syncs and closes db: after a clean close nothing is left only in
// the page cache, whatever NoSync said.
func Close(db *bolt.DB) error {
	serr := db.Sync()
	if cerr := db.Close(); cerr != nil {
		return cerr
	}
	return serr
}

// Written is what a file's write transactions have written since it was
// opened, from bbolt's own counters: `make load` divides it by the
// exchanges answered to get pages written per exchange.
type Written struct {
	// Pages are the dirty pages committed (a page with overflow counts
	// each of its pages); Bytes the same in bytes. The meta page each
	// commit writes is not among them.
	Pages, Bytes int64
	// Writes are the write calls made, the meta pages' among them.
	Writes int64
}

// WrittenBy reads db's counters.
func WrittenBy(db *bolt.DB) Written {
	st := db.Stats()
	return Written{Pages: st.TxStats.GetPageCount(), Bytes: st.TxStats.GetPageAlloc(), Writes: st.TxStats.GetWrite()}
}
