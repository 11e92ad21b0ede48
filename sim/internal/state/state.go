// Package state keeps the simulator's durable state in one bbolt file. It
// is the only importer of bbolt. Buckets are created at open; every
// decision that must be atomic happens inside one write transaction, and
// bytes are copied out before a transaction ends.
package state

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// FileName is the bbolt file inside the data folder.
const FileName = "rewardsim.db"

// ErrLocked means another process holds the data folder.
var ErrLocked = errors.New("data folder is in use by another rewardsim process")

var allBuckets [][]byte

// bucket declares a top-level bucket; every declared bucket exists after Open.
func bucket(name string) []byte {
	b := []byte(name)
	allBuckets = append(allBuckets, b)
	return b
}

// Store is the durable state.
type Store struct {
	db    *bolt.DB
	group group // group commits (group.go)
	// Tokens and sessions never change once issued; a reset forgets them.
	tokens   recall[model.Token]
	sessions recall[model.Session]
	// sweepMu serialises Sweep calls; sweepAt is where the next resumes.
	sweepMu sync.Mutex
	sweepAt sweepCursor
	sweep   sweepIdle
	// couponH: the running write transaction's coupon handles, nil
	// between commits (coupons.go).
	couponH *couponHandles
}

// Options tune Open.
type Options struct {
	// LockTimeout bounds the wait for the file lock; default 500ms.
	LockTimeout time.Duration
	// File is the bbolt file's name in dir; default FileName.
	File string
	// NoSync skips fsync on commit: every commit is still written to the
	// file before it returns, so a process kill (even kill -9) loses
	// nothing, since the data is in the OS page cache; a power loss or
	// kernel crash may lose what was not synced since the last Sync.
	NoSync bool
	// NoGrowSync skips bbolt's truncate and fsync when the file grows
	// (the file then grows by its writes). For a file not synced per
	// commit (the journal, the state in process mode): each such fsync
	// wrote out every dirty page of the file, up to 16 MiB at a time, on
	// the request path and onto the disk that other fsyncs wait on.
	NoGrowSync bool
	// GroupWait is how long a busy group commit of a few calls waits for
	// more (group.go); 0: DefaultGroupWait; negative: no wait.
	GroupWait time.Duration
	// TxHook, for tests only, runs inside every group-committed
	// transaction before the caller's function (a test makes it panic).
	TxHook func()
	// Log hears of a panic in a transaction, with its stack.
	Log *slog.Logger
}

// JournalFile is the journal's own bbolt file: apart from the service
// state, so journal commits never wait on or delay state commits (bbolt
// has one writer per file).
const JournalFile = "journal.db"

// Open opens (creating if needed) the store in dir.
func Open(dir string, opts Options) (*Store, error) {
	if opts.LockTimeout == 0 {
		opts.LockTimeout = 500 * time.Millisecond
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data folder %s: %w", dir, err)
	}
	if opts.File == "" {
		opts.File = FileName
	}
	path := filepath.Join(dir, opts.File)
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:        opts.LockTimeout,
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
		NoSync:         opts.NoSync,
		NoGrowSync:     opts.NoGrowSync,
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%s: %w (stop the other instance or use another --data folder)", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return migrateUserIndex(tx)
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("prepare %s: %w", path, err)
	}
	st := &Store{db: db}
	st.group.wait, st.group.hook, st.group.log = max(0, cmp.Or(opts.GroupWait, DefaultGroupWait)), opts.TxHook, opts.Log
	return st, nil
}

// Close syncs and closes the file: after a clean close nothing is left
// only in the page cache, whatever NoSync said.
func (s *Store) Close() error {
	serr := s.db.Sync()
	if cerr := s.db.Close(); cerr != nil {
		return cerr
	}
	return serr
}

// Sync flushes the file to the disk (fdatasync). With NoSync, a periodic
// Sync bounds what a machine crash can take.
func (s *Store) Sync() error { return s.db.Sync() }

// Path is the bbolt file's path.
func (s *Store) Path() string { return s.db.Path() }

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}

// getJSON decodes the value at key; the bytes are decoded, so nothing of
// the transaction's memory escapes.
func getJSON(b *bolt.Bucket, key []byte, v any) error {
	raw := b.Get(key)
	if raw == nil {
		return errNotFound
	}
	return json.Unmarshal(raw, v)
}
