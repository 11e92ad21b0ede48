// Package state keeps the simulator's durable state in one bbolt file. It
// and the journal (its own file) are the only importers of bbolt, both
// through boltfile. Buckets are created at open; every
// decision that must be atomic happens inside one write transaction, and
// bytes are copied out before a transaction ends.
package state

import (
	"bytes"
	"cmp"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/boltfile"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// FileName is the bbolt file inside the data folder.
const FileName = "rewardsim.db"

// formatVersion is the format of FileName: a file of another format is
// refused at open (boltfile.ErrFormat); its data is disposable. Format 2
// (issue 56) keeps recent idempotency records in the cards
// (txntail.go); format 3 stores coupon clicks in the binary encoding,
// not JSON (couponcodec.go). Files of formats 1 and 2 are read
// (readsFormats: their cards' layout and JSON clicks are cases the code
// still reads) and become 3, which an older build refuses rather than
// miss those records or fail on a binary click.
const formatVersion = 3

// readsFormats are the older formats Open reads as they are.
var readsFormats = []int{1, 2}

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
	// txnTails: idempotency records not yet in the txn buckets (txntail.go).
	txnTails txnTails
	// purgeMu serialises Purge calls; purgeAt is where the next resumes.
	purgeMu sync.Mutex
	purgeAt purgeCursor
	purge   purgeIdle
	// couponH: the running write transaction's coupon handles, nil
	// between commits (coupons.go).
	couponH *couponHandles
}

// Options tune Open.
type Options struct {
	// LockTimeout bounds the wait for the file lock; default 500ms.
	LockTimeout time.Duration
	// NoSync skips fsync on commit: every commit is still written to the
	// file before it returns, so a process kill (even kill -9) loses
	// nothing, since the data is in the OS page cache; a power loss or
	// kernel crash may lose what was not synced since the last Sync.
	NoSync bool
	// NoGrowSync skips bbolt's truncate and fsync when the file grows
	// (the file then grows by its writes). For a file not synced per
	// commit (the state in process mode): each such fsync wrote out
	// every dirty page of the file, up to 16 MiB at a time, on the
	// request path and onto the disk that other fsyncs wait on.
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

// file is FileName as boltfile opens it.
func file() boltfile.File {
	return boltfile.File{Name: FileName, Version: formatVersion, Buckets: allBuckets, Reads: readsFormats}
}

// Open opens (creating if needed) the store in dir.
func Open(dir string, opts Options) (*Store, error) {
	db, err := boltfile.Open(dir, file(), boltfile.Options{LockTimeout: opts.LockTimeout, NoSync: opts.NoSync, NoGrowSync: opts.NoGrowSync})
	if err != nil {
		return nil, err
	}
	st := &Store{db: db}
	st.group.wait, st.group.hook, st.group.log = max(0, cmp.Or(opts.GroupWait, DefaultGroupWait)), opts.TxHook, opts.Log
	return st, nil
}

// Remove deletes the store's file from dir (a reset of the data
// folder), unless a process holds it.
func Remove(dir string) error { return boltfile.Remove(dir, file(), 0) }

// Close syncs and closes the file: after a clean close nothing is left
// only in the page cache, whatever NoSync said.
func (s *Store) Close() error {
	s.group.leaders.Wait() // no commit outlives the store
	return boltfile.Close(s.db)
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

// eachJSON decodes every value of b (nil: none) under prefix, in key
// order, and calls fn with it.
func eachJSON[T any](b *bolt.Bucket, prefix []byte, fn func(T) error) error {
	if b == nil {
		return nil
	}
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var x T
		if err := json.Unmarshal(v, &x); err != nil {
			return err
		}
		if err := fn(x); err != nil {
			return err
		}
	}
	return nil
}

// Written is what the state file's commits have written since Open, and
// how many group commits there were (for `make load`'s pages per
// exchange; served under --debug-pprof).
func (s *Store) Written() (boltfile.Written, int64) {
	return boltfile.WrittenBy(s.db), s.group.commits.Load()
}
