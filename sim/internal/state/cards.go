package state

// Scratch cards (issue 3). Layout: six top-level buckets per channel,
// named "cards" 0x00 <channel> 0x00 <name>, so channels never see each
// other's state (shown as cards/<channel>/<name>):
//
//	cards/<channel>/card   cardKey64(rewardId)                      -> model.Card (cardcodec.go); the bucket's sequence numbers rewardIds
//	cards/<channel>/user   u16(len) virtualId state cardKey64(rewardId) -> empty; state '0' unscratched, '1' revealed
//	cards/<channel>/user   u16(len) virtualId 'c' campaignId         -> []unix-nanos (frequency caps; listcodec.go)
//	cards/<channel>/txn    kind 0x00 extTransactionId          -> []rewardId (idempotency; listcodec.go), written every mergeAt cards (txntail.go); its sequence is the last card merged + 1
//	cards/<channel>/stock  u16(len) pool entryId               -> cardKey64 handed out
//	cards/<channel>/track  cardKey64(rewardId) cardKey64(seq)               -> model.TrackEvent JSON
//	cards/<channel>/notif  cardKey64(seq)                             -> model.Notification JSON
//
// A user's cards are one prefix of "user", in listing order (unscratched
// first, then revealed, each by rewardId), so reveal and listing cost
// depends on that user's cards only, never on the size of the store.
//
// The layout is shaped by what a group commit writes (issue 25): every
// page on the path from the root to a changed key, plus the meta page,
// and on a disk whose fsync grows with the pages written, pages per
// commit are the cost. In a group commit of 14 GetRewards for new users
// (a test store of 54,000 cards, bbolt's TxStats), builds before issue
// 25 wrote 16.8 pages; now 11.8:
//   - The user's cap events follow their cards under the same prefix
//     (state byte 'c'), so the cap update dirties the leaf the new
//     card's index entry dirties anyway, not a cap tree of its own
//     (-3.0). A walk of the index that wants cards checks the state
//     byte, not only the key's length: a cap key with an 8-byte
//     campaignId has a card key's length.
//   - The channel's buckets are top-level, not nested in a bucket per
//     channel under a top bucket "cards": each level above them was a
//     page rewritten by every commit (-2.0).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

var (
	subCard  = []byte("card")
	subUser  = []byte("user")
	subTxn   = []byte("txn")
	subStock = []byte("stock")
	subTrack = []byte("track")
	subNotif = []byte("notif")
)

// The state byte of a user index key (cards.go header).
const (
	stateUnscratched = '0'
	stateRevealed    = '1'
	stateCap         = 'c'
)

// isCardState tells a card's index entry from the user's other entries.
func isCardState(st byte) bool { return st == stateUnscratched || st == stateRevealed }

// indexedCard reads a user index key: the user and state of a card; ok
// is false for the user's other entries (caps).
func indexedCard(k []byte) (user []byte, st byte, ok bool) {
	if len(k) < 2 {
		return nil, 0, false
	}
	n := int(binary.BigEndian.Uint16(k))
	if len(k) != 2+n+9 || !isCardState(k[2+n]) {
		return nil, 0, false
	}
	return k[2 : 2+n], k[2+n], true
}

// CardTx is one transaction over a channel's cards. Its methods are valid
// only inside the function given to UpdateCards or ViewCards.
type CardTx struct {
	tx      *bolt.Tx
	channel string
	// opened are the sub buckets found so far (sub): a read transaction
	// finds a bucket anew on every lookup, from the root, with its name
	// built and a Bucket allocated, and a listing looked its card bucket
	// up twice (issue 25). Only a bucket found is kept: one missing may
	// be created later in the transaction (writeCards).
	opened  [8]openedSub
	nOpened int
	// tails are the store's txn tails (nil in a read transaction: it
	// reads its own); txns is this channel's, once checked (txntail.go).
	tails *txnTails
	txns  *txnTail
	// inserted are the cards InsertCard stored in this call, for
	// SetIssued to mark without reading them back.
	inserted []insertedCard
}

type insertedCard struct {
	id        uint64
	kind, key string
	rec       []byte
}

type openedSub struct {
	name []byte
	b    *bolt.Bucket
}

// UpdateCards runs fn in one write transaction over channel's cards.
// Parallel callers share a commit (groupUpdate), so fn may run more than
// once: it must set its results afresh each time, never append to them.
func (s *Store) UpdateCards(channel string, fn func(*CardTx) error) error {
	return s.groupUpdate(func(tx *bolt.Tx) error {
		t, err := writeCards(tx, channel)
		if err != nil {
			return err
		}
		t.tails = &s.txnTails
		return fn(t)
	})
}

// ViewCards runs fn in a read transaction over channel's cards.
func (s *Store) ViewCards(channel string, fn func(*CardTx) error) error {
	return s.db.View(func(tx *bolt.Tx) error { return fn(openCards(tx, channel)) })
}

// openCards finds channel's cards; its sub buckets are nil while the
// channel has none.
func openCards(tx *bolt.Tx, channel string) *CardTx {
	return &CardTx{tx: tx, channel: channel}
}

// writeCards is openCards that creates the channel's buckets if it has
// none.
func writeCards(tx *bolt.Tx, channel string) (*CardTx, error) {
	if channel == "" {
		return nil, errors.New("cards: empty channel")
	}
	t := openCards(tx, channel)
	if t.sub(subCard) != nil {
		return t, nil
	}
	// No subCap: caps live in subUser (header comment).
	for _, n := range [][]byte{subCard, subUser, subTxn, subStock, subTrack, subNotif} {
		b, err := tx.CreateBucket(flatCardsName(channel, n))
		if err != nil {
			return nil, err
		}
		if string(n) == string(subTxn) {
			// No record merged yet (txntail.go; 0 is format 1's).
			if err := b.SetSequence(1); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// flatCardsPrefix starts the name of every top-level bucket of the flat
// layout; no other top-level bucket's name holds a 0x00.
const flatCardsPrefix = "cards\x00"

// flatCardsName is the top-level bucket holding channel's sub bucket
// name: "cards" 0x00 channel 0x00 name. The name is what follows the
// last 0x00, so a channel name holding a 0x00 stays apart too.
func flatCardsName(channel string, name []byte) []byte {
	b := make([]byte, 0, len(flatCardsPrefix)+len(channel)+1+len(name))
	b = append(append(append(b, flatCardsPrefix...), channel...), 0)
	return append(b, name...)
}

// flatCardsBuckets lists the flat layout's top-level bucket names, of
// one channel or ("") of every channel, and of sub bucket name only
// when name is not nil.
func flatCardsBuckets(tx *bolt.Tx, channel string, name []byte) [][]byte {
	var out [][]byte
	prefix := []byte(flatCardsPrefix)
	if channel != "" {
		prefix = append(append(prefix, channel...), 0)
	}
	cur := tx.Cursor()
	for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
		if v != nil { // not a bucket
			continue
		}
		sub := k[bytes.LastIndexByte(k, 0)+1:]
		if channel != "" && len(k) != len(prefix)+len(sub) {
			continue // another channel whose name starts with channel 0x00
		}
		if name == nil || bytes.Equal(sub, name) {
			out = append(out, append([]byte(nil), k...))
		}
	}
	return out
}

// resetCards deletes the cards, idempotency records, caps, stock,
// tracking and notifications of one channel, or of every channel when
// channel is "". Cards live in buckets of their own rather than under
// "<channel>\x00" keys, so ResetChannel covers them through this hook.
func resetCards(tx *bolt.Tx, channel string) error {
	for _, n := range flatCardsBuckets(tx, channel, nil) {
		if err := tx.DeleteBucket(n); err != nil {
			return err
		}
	}
	return nil
}

func (t *CardTx) sub(name []byte) *bolt.Bucket {
	for _, o := range t.opened[:t.nOpened] {
		if string(o.name) == string(name) {
			return o.b
		}
	}
	b := t.tx.Bucket(flatCardsName(t.channel, name))
	if b != nil && t.nOpened < len(t.opened) {
		t.opened[t.nOpened] = openedSub{name, b}
		t.nOpened++
	}
	return b
}

func cardKey64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

func cardAppendStr(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

func cardUserKey(user string, st byte, id uint64) []byte {
	k := cardAppendStr(make([]byte, 0, len(user)+11), user)
	k = append(k, st)
	return binary.BigEndian.AppendUint64(k, id)
}

// Card reads one card; ok is false if there is none.
func (t *CardTx) Card(id uint64) (c model.Card, ok bool, err error) {
	b := t.sub(subCard)
	if b == nil {
		return c, false, nil
	}
	raw := b.Get(cardKey64(id))
	if raw == nil {
		return c, false, nil
	}
	return c, true, decodeCard(raw, &c)
}

// InsertCard numbers a new card (c.RewardID is set) and stores it with its index entry.
func (t *CardTx) InsertCard(c *model.Card) error {
	b := t.sub(subCard)
	// RewardIds only grow, so a new card always goes into the last leaf:
	// fill leaves, not bbolt's half-full split (a test store of 30,000
	// cards: 0.6 fewer pages written per commit of 15 new cards, of 18.1,
	// and 28% less file).
	b.FillPercent = 1.0
	tl, err := t.tail()
	if err != nil {
		return err
	}
	id, err := b.NextSequence()
	if err != nil {
		return err
	}
	c.RewardID = id
	rec := encodeCard(c)
	if err := b.Put(cardKey64(id), rec); err != nil {
		return err
	}
	tl.last = id
	t.inserted = append(t.inserted, insertedCard{id, c.Source, c.ExtTransactionID, rec})
	st := byte(stateUnscratched)
	if c.Revealed() {
		st = stateRevealed
	}
	return t.sub(subUser).Put(cardUserKey(c.VirtualID, st, id), nil)
}

// SaveReveal stores a card whose reward was just chosen and moves it to
// the revealed part of its user's index.
func (t *CardTx) SaveReveal(c model.Card) error {
	b, k := t.sub(subCard), cardKey64(c.RewardID)
	rec := encodeCard(&c)
	if old := b.Get(k); old != nil {
		// Keep SetIssued's mark: a tail read back needs it.
		if _, _, once, err := cardIdempotency(old); err == nil && once {
			if rec, err = markIdempotent(rec); err != nil {
				return err
			}
		}
	}
	if err := b.Put(k, rec); err != nil {
		return err
	}
	u := t.sub(subUser)
	if err := u.Delete(cardUserKey(c.VirtualID, stateUnscratched, c.RewardID)); err != nil {
		return err
	}
	return u.Put(cardUserKey(c.VirtualID, stateRevealed, c.RewardID), nil)
}

// userCardIDs walks user's part of the user index: the rewardIds of
// limit of their cards from offset, in listing order (unscratched first,
// then revealed), and how many they have.
func userCardIDs(index *bolt.Bucket, user string, offset, limit int) (ids []uint64, total int) {
	prefix := cardAppendStr(nil, user)
	ids = make([]uint64, 0, max(0, min(limit, 64))) // a page at once, not grown from one
	cur := index.Cursor()
	// The user's cap entries sort after their cards ('c' > '1'): the
	// first key that is not a card's ends the walk.
	for k, _ := cur.Seek(prefix); k != nil && len(k) == len(prefix)+9 && string(k[:len(prefix)]) == string(prefix) && isCardState(k[len(prefix)]); k, _ = cur.Next() {
		if total >= offset && len(ids) < limit {
			ids = append(ids, binary.BigEndian.Uint64(k[len(prefix)+1:]))
		}
		total++
	}
	return ids, total
}

// EachCard calls fn with every card of the channel, by rewardId (a
// dashboard read, not a request path).
func (t *CardTx) EachCard(fn func(model.Card) error) error {
	b := t.sub(subCard)
	if b == nil {
		return nil
	}
	return b.ForEach(func(_, v []byte) error {
		var c model.Card
		if err := decodeCard(v, &c); err != nil {
			return err
		}
		return fn(c)
	})
}

// EachIndexed calls fn with the user and state of every card of the
// channel, in the user index's order: a user's cards one after the
// other (a dashboard read). user is valid only during the call.
func (t *CardTx) EachIndexed(fn func(user []byte, revealed bool)) {
	if u := t.sub(subUser); u != nil {
		cur := u.Cursor()
		for k, _ := cur.First(); k != nil; k, _ = cur.Next() {
			if user, st, ok := indexedCard(k); ok {
				fn(user, st == stateRevealed)
			}
		}
	}
}

// UserCards returns limit of user's cards from offset, in listing order
// (unscratched first, then revealed), and how many the user has.
func (t *CardTx) UserCards(user string, offset, limit int) ([]model.Card, int, error) {
	u := t.sub(subUser)
	if u == nil {
		return nil, 0, nil
	}
	ids, total := userCardIDs(u, user, offset, limit)
	out := make([]model.Card, 0, len(ids))
	for _, id := range ids {
		c, ok, err := t.Card(id)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			out = append(out, c)
		}
	}
	return out, total, nil
}

// Issued returns the rewardIds recorded for an idempotency key.
func (t *CardTx) Issued(kind, key string) ([]uint64, bool, error) {
	b := t.sub(subTxn)
	if b == nil {
		return nil, false, nil
	}
	tl, err := t.tail()
	if err != nil {
		return nil, false, err
	}
	k := txnKey(kind, key)
	if ids, ok := tl.ids[k]; ok {
		return slices.Clone(ids), true, nil
	}
	raw := b.Get([]byte(k))
	if raw == nil {
		return nil, false, nil
	}
	ids, err := decodeUints(raw)
	return ids, true, err
}

// SetIssued records the rewardIds of an idempotency key. Cards of this
// source and extTransactionId not yet merged are marked and held in the
// txn tail (txntail.go); any other id list is written as it is.
func (t *CardTx) SetIssued(kind, key string, ids []uint64) error {
	tl, err := t.tail()
	if err != nil {
		return err
	}
	cards, k := t.sub(subCard), txnKey(kind, key)
	if _, held := tl.ids[k]; held || !t.tailHolds(tl, kind, key, ids) {
		return t.sub(subTxn).Put([]byte(k), encodeUints(ids))
	}
	for _, id := range ids {
		raw := cards.Get(cardKey64(id))
		if i := slices.IndexFunc(t.inserted, func(c insertedCard) bool { return c.id == id }); i >= 0 {
			raw = t.inserted[i].rec
		}
		rec, err := markIdempotent(raw)
		if err != nil {
			return err
		}
		if err := cards.Put(cardKey64(id), rec); err != nil {
			return err
		}
		tl.add(k, id)
	}
	return nil
}

// tailHolds tells whether ids, in issue order, are cards after the
// tail's merged mark whose source and extTransactionId are kind and
// key: a tail read back from the cards would hold exactly them.
func (t *CardTx) tailHolds(tl *txnTail, kind, key string, ids []uint64) bool {
	cards := t.sub(subCard)
	for i, id := range ids {
		if id <= tl.merged || id > tl.last || i > 0 && id <= ids[i-1] {
			return false
		}
		if j := slices.IndexFunc(t.inserted, func(c insertedCard) bool { return c.id == id }); j >= 0 {
			if c := t.inserted[j]; c.kind != kind || c.key != key {
				return false
			}
			continue
		}
		raw := cards.Get(cardKey64(id))
		if raw == nil {
			return false
		}
		kd, ky, _, err := cardIdempotency(raw)
		if err != nil || string(kd) != kind || string(ky) != key {
			return false
		}
	}
	return len(ids) > 0
}

// cardCapKey is a user's cap events' key in the user index.
func cardCapKey(user, campaign string) []byte {
	k := cardAppendStr(make([]byte, 0, 3+len(user)+len(campaign)), user)
	k = append(k, stateCap)
	return append(k, campaign...)
}

// CapEvents returns the recorded issuance times of a user in a campaign (unix nanos).
func (t *CardTx) CapEvents(campaign, user string) ([]int64, error) {
	if u := t.sub(subUser); u != nil {
		if raw := u.Get(cardCapKey(user, campaign)); raw != nil {
			return decodeInts(raw)
		}
	}
	return nil, nil
}

// SetCapEvents replaces them, in the user index.
func (t *CardTx) SetCapEvents(campaign, user string, ev []int64) error {
	return t.sub(subUser).Put(cardCapKey(user, campaign), encodeInts(ev))
}

func cardStockKey(pool, entry string) []byte { return append(cardAppendStr(nil, pool), entry...) }

// StockUsed tells how often a pool entry was handed out in this channel.
func (t *CardTx) StockUsed(pool, entry string) uint64 {
	b := t.sub(subStock)
	if b == nil {
		return 0
	}
	raw := b.Get(cardStockKey(pool, entry))
	if len(raw) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(raw)
}

// SetStockUsed records it.
func (t *CardTx) SetStockUsed(pool, entry string, n uint64) error {
	return t.sub(subStock).Put(cardStockKey(pool, entry), cardKey64(n))
}

// AddTrack records one tracking GET.
func (t *CardTx) AddTrack(ev model.TrackEvent) error {
	b := t.sub(subTrack)
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	return putJSON(b, append(cardKey64(ev.RewardID), cardKey64(seq)...), ev)
}

// Tracks lists the tracking GETs of one card in the order they came.
func (t *CardTx) Tracks(rewardID uint64) ([]model.TrackEvent, error) {
	out := []model.TrackEvent{}
	err := eachJSON(t.sub(subTrack), cardKey64(rewardID), func(ev model.TrackEvent) error {
		out = append(out, ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachTrack calls fn with every tracking GET of the channel, by card and
// then in the order they came (a dashboard read).
func (t *CardTx) EachTrack(fn func(model.TrackEvent) error) error {
	return eachJSON(t.sub(subTrack), nil, fn)
}

// AddNotification records a push to a deviceToken (Seq is set).
func (t *CardTx) AddNotification(n *model.Notification) error {
	b := t.sub(subNotif)
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	n.Seq = seq
	return putJSON(b, cardKey64(seq), n)
}

// Notifications lists the channel's recorded pushes, oldest first,
// optionally only those to one deviceToken.
func (t *CardTx) Notifications(deviceToken string) ([]model.Notification, error) {
	out := []model.Notification{}
	err := eachJSON(t.sub(subNotif), nil, func(n model.Notification) error {
		if deviceToken == "" || n.DeviceToken == deviceToken {
			out = append(out, n)
		}
		return nil
	})
	return out, err
}
