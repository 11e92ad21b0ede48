package state

// The listing's read path (issue 25). UserCards serves every reader
// (control API, microsite) with cards exactly as stored; the listing only
// renders its cards, and reads them here for less: the index walked as
// UserCards walks it (userCardIDs), its two buckets opened once,
// one cursor for all the card lookups (a bucket's Get makes a cursor
// each), the records copied out of the transaction in one string, and
// times decoded without their zones.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// ListUserCards is UserCards of channel in its own read transaction, for
// a caller that only renders the cards: their times are the stored
// instants, in UTC rather than the zone they were stored with, and their
// strings share one copy of the records read.
func (s *Store) ListUserCards(channel, user string, offset, limit int) (cards []model.Card, total int, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		t := openCards(tx, channel)
		cards, total, err = listUserCards(t.sub(subUser), t.sub(subCard), user, offset, limit)
		return err
	})
	return cards, total, err
}

func listUserCards(index, byID *bolt.Bucket, user string, offset, limit int) ([]model.Card, int, error) {
	if index == nil || byID == nil {
		return nil, 0, nil
	}
	ids, total := userCardIDs(index, user, offset, limit)
	raws := make([][]byte, 0, len(ids)) // the records, in the mapped file until the transaction ends
	size := 0
	var key [8]byte
	cur := byID.Cursor()
	for _, id := range ids {
		binary.BigEndian.PutUint64(key[:], id)
		if ck, v := cur.Seek(key[:]); bytes.Equal(ck, key[:]) {
			raws = append(raws, v)
			size += len(v)
		}
	}
	var all strings.Builder
	all.Grow(size)
	for _, raw := range raws {
		all.Write(raw)
	}
	copied := all.String()
	out := make([]model.Card, len(raws))
	d := cardDecoder{instants: true}
	at := 0
	for i, raw := range raws {
		var err error
		if len(raw) > 0 && raw[0] == '{' { // written by an older build
			err = json.Unmarshal(raw, &out[i])
		} else {
			d.b, d.s, d.left = raw, copied[at:at+len(raw)], len(raws)-i
			err = d.card(&out[i])
		}
		if err != nil {
			return nil, 0, err
		}
		at += len(raw)
	}
	return out, total, nil
}
