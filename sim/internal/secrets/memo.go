package secrets

import (
	"bytes"
	"hash/maphash"
	"slices"
)

// Memo skips learning from a body the writer learnt from lately
// when every value it names is still remembered: learning again would
// change nothing (a value already remembered is not moved). A client
// polling the listing gets the same 3 KB answer call after call, and
// scanning it for credentials each time was a fifth of journaling it
// (issue 25). What is stored is the same either way: the records keep
// bodies as they came, and learning only feeds masking.
// F is what its user reads once of a body it keeps (the journal: an
// answer's facts). A Memo belongs to one goroutine.
type Memo[F any] struct {
	mem    *Memory
	l      learner
	seed   maphash.Seed
	seeded bool
	slots  [learnMemoSlots]Slot[F]
	next   int // the slot to fill next (oldest first)
	bytes  int // the bodies' bytes held
	skips  int // bodies not learnt from again (for tests)
	// seen are the hashes of bodies learnt from once, oldest first: a
	// body is copied into a slot only when it comes again, so answers
	// that are each new (a card issued) cost a hash, not a copy.
	seen     [learnMemoSeen]uint64
	seenNext int
}

// Slot is a body the memo keeps, with what was learnt from it.
type Slot[F any] struct {
	hash uint64
	body []byte // a copy; nil: the slot is free
	// ms and keys are the values body names (what learning it gathers).
	ms   []Mask
	keys []string
	// Facts are what the memo's user read of body, once (HasFacts).
	Facts    F
	HasFacts bool
}

// NewMemo returns a memo that learns into mem.
func NewMemo[F any](mem *Memory) *Memo[F] { return &Memo[F]{mem: mem} }

// Bounds of the bodies the memo holds.
const (
	learnMemoSlots   = 32
	learnMemoSeen    = 128
	learnMemoMaxBody = 64 << 10 // the journal's MaxBodyKept
	learnMemoBytes   = 1 << 20
)

// keep frees slots until a body fits: a body larger than the whole bound
// would never fit, so the build fails if the bounds ever allow one.
var _ [learnMemoBytes - learnMemoMaxBody]struct{}

// Learn learns from body, unless every value body names is
// remembered already, and remembers what it learnt (appending the new
// masks to fresh). Each body's values are remembered before the next
// body is looked up: remembering one can forget a value of the next. The
// slot holding the body, if one does, is valid until the next call. h is
// the body's hash (0: not hashed), the same for the same bytes: the
// journal's store finds the answers it can keep once a batch by it.
// bdata decodes BDATA for all of one exchange's readings (nil: each
// decodes).
func (m *Memo[F]) Learn(body []byte, bdata *Decoded, fresh []Mask) (_ []Mask, _ *Slot[F], h uint64) {
	l := &m.l // its slices are used again, call after call
	l.mem, l.bdata = m.mem, bdata
	if len(body) < OpaqueLen || len(body) > learnMemoMaxBody {
		return l.learnAll(body, fresh), nil, 0
	}
	if !m.seeded {
		m.seed, m.seeded = maphash.MakeSeed(), true
	}
	// The slots are compared before the body is hashed: comparing a
	// listing's 5 KB answer with the one slot of its length costs about
	// a sixth of hashing it (0.12 against 0.75 µs, issue 25), and a slot
	// keeps its body's hash.
	if s := m.holding(body); s != nil {
		if m.mem.allRemembered(s.ms, s.keys) {
			m.skips++
			return fresh, s, s.hash
		}
		return l.learnAll(body, fresh), s, s.hash
	}
	h = maphash.Bytes(m.seed, body)
	l.learnFrom(body, "")
	var s *Slot[F]
	if slices.Contains(m.seen[:], h) {
		s = m.keep(h, body, l.ms, l.keys)
	} else {
		m.seen[m.seenNext] = h
		m.seenNext = (m.seenNext + 1) % learnMemoSeen
	}
	fresh = l.commit(fresh)
	l.ms, l.keys = l.ms[:0], l.keys[:0]
	return fresh, s, h
}

// holding is the slot that holds body, nil: none.
func (m *Memo[F]) holding(body []byte) *Slot[F] {
	for i := range m.slots {
		s := &m.slots[i]
		if s.body != nil && bytes.Equal(s.body, body) {
			return s
		}
	}
	return nil
}

// allRemembered reports whether every one of ms and keys is remembered.
func (mem *Memory) allRemembered(ms []Mask, keys []string) bool {
	if len(ms) > 0 {
		mem.mu.RLock()
		for _, m := range ms {
			ring := &mem.opaque
			if m.Kind == MaskSign {
				ring = &mem.signs
			}
			if !ring.has(m.Hash) {
				mem.mu.RUnlock()
				return false
			}
		}
		mem.mu.RUnlock()
	}
	return mem.keys.Load().hasAll(keys)
}

// keep stores body and the values it names in the oldest slot.
func (m *Memo[F]) keep(h uint64, body []byte, ms []Mask, keys []string) *Slot[F] {
	for m.bytes+len(body) > learnMemoBytes {
		m.drop(m.next)
		m.next = (m.next + 1) % learnMemoSlots
	}
	m.drop(m.next)
	s := &m.slots[m.next]
	s.hash, s.body = h, append(s.body[:0], body...)
	s.ms, s.keys = append(s.ms[:0], ms...), append(s.keys[:0], keys...)
	var none F
	s.Facts, s.HasFacts = none, false
	m.bytes += len(body)
	m.next = (m.next + 1) % learnMemoSlots
	return s
}

func (m *Memo[F]) drop(i int) {
	s := &m.slots[i]
	if s.body != nil {
		m.bytes -= len(s.body)
		s.body = nil
	}
}
