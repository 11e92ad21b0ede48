package state

// The listing's read path (issue 25). UserCards serves every reader
// (control API, microsite) with cards decoded as stored; the listing only
// renders its cards, and reads them here for less: the index walked as
// UserCards walks it (userCardIDs), its two buckets opened once, one
// cursor for all the card lookups (a bucket's Get makes a cursor each),
// and each record shown in place, inside the read transaction, instead
// of copied out and decoded into a Card (which was 43% of what a listing
// allocated).

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// ViewUserCards calls show, inside a read transaction of channel, with
// the page UserCards would return (limit of user's cards from offset, in
// listing order) as views of the stored records, and how many cards the
// user has. The views' bytes belong to the store: show must neither
// keep nor change them, and must not block (a read transaction holds
// back the store's growth).
func (s *Store) ViewUserCards(channel, user string, offset, limit int, show func(total int, page []model.CardView[[]byte]) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		t := openCards(tx, channel)
		index, byID := t.sub(subUser), t.sub(subCard)
		if index == nil || byID == nil {
			return show(0, nil)
		}
		ids, total := userCardIDs(index, user, offset, limit)
		views := viewPages.Get().(*[]model.CardView[[]byte])
		defer func() {
			clear(*views) // drop the views' references to the transaction's pages
			*views = (*views)[:0]
			if cap(*views) <= maxPooledView {
				viewPages.Put(views)
			}
		}()
		*views = slices.Grow(*views, len(ids))
		var key [8]byte
		cur := byID.Cursor()
		for _, id := range ids {
			binary.BigEndian.PutUint64(key[:], id)
			ck, raw := cur.Seek(key[:])
			if !bytes.Equal(ck, key[:]) {
				continue
			}
			*views = append(*views, model.CardView[[]byte]{})
			if err := viewCard(raw, &(*views)[len(*views)-1]); err != nil {
				return err
			}
		}
		return show(total, *views)
	})
}

// viewCard reads a stored card as the listing shows it.
func viewCard(raw []byte, v *model.CardView[[]byte]) error {
	d := cardDecoder{b: raw}
	return d.view(v)
}

// viewPages hold the views of a page while it is shown; a page longer
// than maxPooledView cards (a large limit) is not kept.
var viewPages = sync.Pool{New: func() any { return new([]model.CardView[[]byte]) }}

const maxPooledView = 256
