package state

import (
	"encoding/binary"
	"maps"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// Deferred idempotency records (issue 56). A GetReward wrote its
// extTransactionId's record into the channel's txn bucket in its own
// commit: a random key, so one more tree (a leaf and two branch pages)
// rewritten by every group commit, about a quarter of its pages. The
// card itself already holds its source and extTransactionId, and cards
// are numbered in issue order, so the record is now derived from the
// card: SetIssued marks the card (cardIdempotent) and keeps the record
// in memory (txnTail); every mergeAt cards the records go into the txn
// bucket together, in one transaction, a few leaves for a thousand
// cards. The txn bucket's sequence says up to which card the bucket
// holds them (merged+1; 0: a file of format 1, whose bucket holds
// every card's record).
//
// Nothing is lost on a kill: the records not merged are those of the
// cards numbered after the merged mark, and the first write transaction
// of the channel after a start reads them back from those cards (at
// most mergeAt, never a scan of the file).
//
// The tail is a cache of what the file says, checked against it at the
// start of every use (the card bucket's sequence and the merged mark):
// a transaction rolled back, or a reset, leaves it ahead of the file,
// and it is then read again from the file.

// mergeAt is how many cards' records the tail holds before they are
// written to the txn bucket.
const mergeAt = 1024

// txnTail is one channel's idempotency records not yet in its txn
// bucket: those of cards merged+1 to last.
type txnTail struct {
	merged, last uint64
	ids          map[string][]uint64 // txnKey -> rewardIds, in issue order
	n            int                 // cards in ids
}

// txnTails are the tails of the channels written since Open. Only write
// transactions touch them, one at a time (bbolt's writer lock); mu is
// for ResetChannel's forget, which runs after its transaction.
type txnTails struct {
	mu sync.Mutex
	by map[string]*txnTail
}

func (ts *txnTails) get(channel string) *txnTail {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.by == nil {
		ts.by = map[string]*txnTail{}
	}
	t := ts.by[channel]
	if t == nil {
		t = &txnTail{}
		ts.by[channel] = t
	}
	return t
}

// forget drops every tail: the next write reads its channel's again.
func (ts *txnTails) forget() {
	ts.mu.Lock()
	ts.by = nil
	ts.mu.Unlock()
}

func txnKey(kind, key string) string { return kind + "\x00" + key }

// tail is the channel's tail, brought in line with the file.
func (t *CardTx) tail() (*txnTail, error) {
	if t.txns != nil {
		return t.txns, nil
	}
	tl := &txnTail{} // a read transaction's own
	if t.tails != nil {
		tl = t.tails.get(t.channel)
	}
	cards, txb := t.sub(subCard), t.sub(subTxn)
	merged := uint64(0)
	if txb != nil {
		if m := txb.Sequence(); m > 0 {
			merged = m - 1
		} else if cards != nil { // format 1: the bucket holds every record
			merged = cards.Sequence()
			if t.tx.Writable() {
				if err := txb.SetSequence(merged + 1); err != nil {
					return nil, err
				}
			}
		}
	}
	last := uint64(0)
	if cards != nil {
		last = cards.Sequence()
	}
	if tl.ids == nil || tl.merged != merged || tl.last != last {
		if err := tl.read(cards, merged, last); err != nil {
			return nil, err
		}
	}
	if t.tx.Writable() && tl.last-tl.merged >= mergeAt {
		if err := t.merge(tl); err != nil {
			return nil, err
		}
	}
	t.txns = tl
	return tl, nil
}

// read sets the tail from the cards after merged.
func (tl *txnTail) read(cards *bolt.Bucket, merged, last uint64) error {
	*tl = txnTail{merged: merged, last: merged, ids: map[string][]uint64{}}
	if cards == nil {
		return nil
	}
	c := cards.Cursor()
	for k, v := c.Seek(cardKey64(merged + 1)); k != nil; k, v = c.Next() {
		id := binary.BigEndian.Uint64(k)
		kind, key, once, err := cardIdempotency(v)
		if err != nil {
			return err
		}
		if once {
			tl.add(txnKey(string(kind), string(key)), id)
		}
		tl.last = id
	}
	tl.last = max(tl.last, last)
	return nil
}

func (tl *txnTail) add(k string, id uint64) {
	tl.ids[k] = append(tl.ids[k], id)
	tl.n++
}

// merge writes the tail's records into the txn bucket and empties it.
func (t *CardTx) merge(tl *txnTail) error {
	txb := t.sub(subTxn)
	// In key order: each Put's leaf is the last one's or the next.
	for _, k := range slices.Sorted(maps.Keys(tl.ids)) {
		if err := txb.Put([]byte(k), encodeUints(tl.ids[k])); err != nil {
			return err
		}
	}
	if err := txb.SetSequence(tl.last + 1); err != nil {
		return err
	}
	tl.merged, tl.ids, tl.n = tl.last, map[string][]uint64{}, 0
	return nil
}
