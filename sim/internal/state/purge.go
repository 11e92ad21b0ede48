package state

import (
	"bytes"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Purging (issue 11 item 4). Tokens and sessions are per-request records,
// not service state: once expired longer than a retention they are
// deleted, with their per-user index entries, a bounded slice of each
// bucket per call, in one small write transaction. Cards, coupons,
// idempotency records, stock and configuration are never purged (the fault sweep, sim/sweep, owns that word).

// PurgeResult says what one Purge call did.
type PurgeResult struct {
	Examined, Tokens, Sessions int
	// Wrapped is true when both buckets were read to their end in this
	// call (a full pass ended).
	Wrapped bool
}

// purgeIdle is what lets Purge skip passes that cannot find anything.
type purgeIdle struct {
	// open: a pass is under way (started, not yet wrapped); keptMin is
	// the earliest expiry it kept.
	open    bool
	keptMin time.Time
	// idleUntil: the last full pass kept nothing expiring before it.
	idleUntil time.Time
	// issuedMin is the earliest expiry (Unix ns) of a token or session
	// committed since the pass began; 0: none.
	issuedMin atomic.Int64
}

// neverDue stands for "nothing the last pass kept ever expires".
var neverDue = time.Unix(1<<62, 0)

// noteIssued tells the purge of a committed record's expiry.
func (s *Store) noteIssued(expires time.Time) {
	if expires.IsZero() {
		return
	}
	n := expires.UnixNano()
	for {
		cur := s.purge.issuedMin.Load()
		if cur != 0 && cur <= n || s.purge.issuedMin.CompareAndSwap(cur, n) {
			return
		}
	}
}

// purgeCursor is where the next Purge resumes in each bucket.
type purgeCursor struct{ tokens, sessions []byte }

// Purge examines at most limit tokens and limit sessions, resuming where
// the previous call stopped, and deletes those whose expiry is before
// cutoff (now minus the retention). A record with no expiry is kept. It
// is safe to call concurrently with requests: each call is one write
// transaction, and the swept values are forgotten by the in-memory
// recall after the commit.
func (s *Store) Purge(cutoff time.Time, limit int) (PurgeResult, error) {
	if limit <= 0 {
		limit = 500
	}
	s.purgeMu.Lock()
	defer s.purgeMu.Unlock()
	if !s.purge.open {
		// A full pass found nothing due before idleUntil, and nothing
		// issued since expires earlier: no record can be due yet, so the
		// pass is not read again (it decoded every token and session once
		// a second, a cost that grew with the store; issue 25).
		if !s.purge.idleUntil.IsZero() && !s.purge.idleUntil.Before(cutoff) {
			if n := s.purge.issuedMin.Load(); n == 0 || !time.Unix(0, n).Before(cutoff) {
				return PurgeResult{Wrapped: true}, nil
			}
		}
		s.purge.open, s.purge.keptMin = true, time.Time{}
		s.purge.issuedMin.Store(0)
	}
	var res PurgeResult
	var goneTokens, goneSessions []string
	next := s.purgeAt
	err := s.db.Update(func(tx *bolt.Tx) error {
		var wrapT, wrapS bool
		var err error
		goneTokens, next.tokens, wrapT, err = purgeBucket(tx, bucketTokens, bucketTokensByChannel, s.purgeAt.tokens, limit, cutoff, &res.Examined, &s.purge.keptMin)
		if err != nil {
			return err
		}
		goneSessions, next.sessions, wrapS, err = purgeBucket(tx, bucketSessions, bucketSessionsByChannel, s.purgeAt.sessions, limit, cutoff, &res.Examined, &s.purge.keptMin)
		res.Wrapped = wrapT && wrapS
		return err
	})
	if err != nil {
		return PurgeResult{}, err
	}
	s.purgeAt = next
	if res.Wrapped {
		s.purge.open, s.purge.idleUntil = false, s.purge.keptMin
		if s.purge.idleUntil.IsZero() {
			s.purge.idleUntil = neverDue
		}
	}
	s.tokens.drop(goneTokens)
	s.sessions.drop(goneSessions)
	res.Tokens, res.Sessions = len(goneTokens), len(goneSessions)
	return res, nil
}

// purgeBucket reads up to limit records of primary from after (nil: the
// start), deletes those expired before cutoff and their index entries,
// and returns the deleted keys and where to resume (nil, wrapped: the
// bucket's end was reached). A record that does not decode is kept.
func purgeBucket(tx *bolt.Tx, primary, index, after []byte, limit int, cutoff time.Time, examined *int, keptMin *time.Time) (gone []string, resume []byte, wrapped bool, err error) {
	b, idx := tx.Bucket(primary), tx.Bucket(index)
	c := b.Cursor()
	var k, v []byte
	if after == nil {
		k, v = c.First()
	} else if k, v = c.Seek(after); k != nil && bytes.Equal(k, after) {
		k, v = c.Next()
	}
	type victim struct{ key, indexKey []byte }
	var victims []victim
	n := 0
	for ; k != nil && n < limit; k, v = c.Next() {
		n++
		resume = append([]byte(nil), k...)
		rec, derr := decodeRecord(v)
		exp := rec.expires
		if derr != nil || exp.IsZero() {
			continue
		}
		if !exp.Before(cutoff) {
			if keptMin.IsZero() || exp.Before(*keptMin) {
				*keptMin = exp
			}
			continue
		}
		victims = append(victims, victim{resume, indexKey(rec.channel, rec.issued, string(k))})
	}
	*examined += n
	if k == nil {
		resume, wrapped = nil, true
	}
	for _, vi := range victims {
		if err := b.Delete(vi.key); err != nil {
			return nil, nil, false, err
		}
		if err := idx.Delete(vi.indexKey); err != nil {
			return nil, nil, false, err
		}
		gone = append(gone, string(vi.key))
	}
	return gone, resume, wrapped, nil
}

// TokenSessionCounts is how many tokens and sessions the store holds (tests and the
// purge's measurements).
func (s *Store) TokenSessionCounts() (tokens, sessions int, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		tokens = tx.Bucket(bucketTokens).Stats().KeyN
		sessions = tx.Bucket(bucketSessions).Stats().KeyN
		return nil
	})
	return tokens, sessions, err
}
