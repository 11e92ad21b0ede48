package state

// The listing's read path (issue 25). UserCards serves every reader
// (control API, microsite) with cards decoded as stored; the listing only
// renders its cards, and reads them here for less: the index walked as
// UserCards walks it (userCardIDs), its two buckets opened once, one
// cursor for all the card lookups (a bucket's Get makes a cursor each),
// and each record copied out whole into one buffer of the page and
// shown in place there, instead of decoded into a Card (which was 43% of
// what a listing allocated). The page is rendered after the read
// transaction ends: nothing of the transaction's memory escapes it.

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/bincodec"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// CardPage is a page of a user's cards in listing order, as views of
// the stored records copied out of the store (one buffer for the page).
// Its owner renders it, then Releases it: the views' bytes are reused.
type CardPage struct {
	// Total is how many cards the user has.
	Total int
	Views []model.CardView[[]byte]
	raw   []byte // the page's records, one after the other
	ends  []int  // where each record ends in raw
}

// Release hands the page's buffers back; the page is not used after.
func (p *CardPage) Release() {
	clear(p.Views) // drop the views' references to the buffer
	if cap(p.Views) <= maxPooledView && cap(p.raw) <= maxPooledRaw {
		p.Views, p.raw, p.ends, p.Total = p.Views[:0], p.raw[:0], p.ends[:0], 0
		cardPages.Put(p)
	}
}

// UserCardPage reads the page UserCards would return (limit of user's
// cards from offset, in listing order), its records copied out in one
// read transaction and shown as views once it has ended.
func (s *Store) UserCardPage(channel, user string, offset, limit int) (*CardPage, error) {
	p := cardPages.Get().(*CardPage)
	err := s.db.View(func(tx *bolt.Tx) error {
		t := openCards(tx, channel)
		index, byID := t.sub(subUser), t.sub(subCard)
		if index == nil || byID == nil {
			return nil
		}
		var ids []uint64
		ids, p.Total = userCardIDs(index, user, offset, limit)
		var key [8]byte
		cur := byID.Cursor()
		for _, id := range ids {
			binary.BigEndian.PutUint64(key[:], id)
			if ck, raw := cur.Seek(key[:]); bytes.Equal(ck, key[:]) {
				p.raw = append(p.raw, raw...)
				p.ends = append(p.ends, len(p.raw))
			}
		}
		return nil
	})
	if err != nil {
		p.Release()
		return nil, err
	}
	p.Views = slices.Grow(p.Views, len(p.ends))
	from := 0
	for _, end := range p.ends {
		p.Views = append(p.Views, model.CardView[[]byte]{})
		if err := viewCard(p.raw[from:end:end], &p.Views[len(p.Views)-1]); err != nil {
			p.Release()
			return nil, err
		}
		from = end
	}
	return p, nil
}

// viewCard reads a stored card as the listing shows it.
func viewCard(raw []byte, v *model.CardView[[]byte]) error {
	d := decoder{bincodec.NewDecoder(raw)}
	return d.view(v)
}

// cardPages are pages between listings; a page of more than
// maxPooledView cards or maxPooledRaw bytes (a large limit) is not kept.
var cardPages = sync.Pool{New: func() any { return new(CardPage) }}

const (
	maxPooledView = 256
	maxPooledRaw  = 256 << 10
)
