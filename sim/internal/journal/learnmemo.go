package journal

import (
	"bytes"
	"hash/maphash"
)

// learnMemo skips learning from a body the writer learnt from lately when
// nothing remembered has changed since (knownGen): learning again would
// add nothing. A client polling the listing gets the same 3 KB answer
// call after call, and scanning it for credentials each time was a fifth
// of journaling it (issue 25). What is stored is the same either way: the
// records keep bodies as they came, and learning only feeds masking.
type learnMemo struct {
	seed   maphash.Seed
	seeded bool
	slots  [learnMemoSlots]learnSlot
	next   int // the slot to fill next (oldest first)
	bytes  int // the bodies' bytes held
	skips  int // bodies not learnt from again (for tests)
	// seen are the hashes of bodies learnt from once, oldest first: a
	// body is copied into a slot only when it comes again, so answers
	// that are each new (a card issued) cost a hash, not a copy.
	seen     [learnMemoSeen]uint64
	seenNext int
}

type learnSlot struct {
	hash uint64
	gen  uint64 // knownGen before the body was last learnt from
	body []byte // a copy; nil: the slot is free
	// facts are the body's as an answer, once read (hasFacts).
	facts    answerFacts
	hasFacts bool
}

// Bounds of the bodies the memo holds.
const (
	learnMemoSlots   = 32
	learnMemoSeen    = 128
	learnMemoMaxBody = MaxBodyKept
	learnMemoBytes   = 1 << 20
)

// learn learns from body through l, unless the memo says it would change
// nothing, and remembers what it learnt (appending the new masks to
// fresh). Each body's values are remembered before the next body is
// looked up: remembering one can forget a value of the next. The slot
// holding the body, if one does, is valid until the next call.
func (m *learnMemo) learn(l *learner, body []byte, fresh []Mask) ([]Mask, *learnSlot) {
	if len(body) < opaqueLen || len(body) > learnMemoMaxBody {
		return l.learnAll(body, fresh), nil
	}
	if !m.seeded {
		m.seed, m.seeded = maphash.MakeSeed(), true
	}
	h := maphash.Bytes(m.seed, body)
	gen := knownGen.Load()
	for i := range m.slots {
		s := &m.slots[i]
		if s.body != nil && s.hash == h && s.gen == gen && bytes.Equal(s.body, body) {
			m.skips++
			return fresh, s
		}
	}
	// gen is read before learning: if learning changes what is
	// remembered, the body is learnt from once more next time, and only
	// a pass that changed nothing lets the memo skip the next.
	fresh = l.learnAll(body, fresh)
	for _, s := range m.seen {
		if s == h {
			return fresh, m.keep(h, gen, body)
		}
	}
	m.seen[m.seenNext] = h
	m.seenNext = (m.seenNext + 1) % learnMemoSeen
	return fresh, nil
}

// keep stores body in the oldest slot (or the one holding the same body).
func (m *learnMemo) keep(h, gen uint64, body []byte) *learnSlot {
	for i := range m.slots {
		if s := &m.slots[i]; s.body != nil && s.hash == h && bytes.Equal(s.body, body) {
			s.gen = gen
			return s
		}
	}
	for m.bytes+len(body) > learnMemoBytes {
		m.drop(m.next)
		m.next = (m.next + 1) % learnMemoSlots
	}
	m.drop(m.next)
	s := &m.slots[m.next]
	s.hash, s.gen, s.body = h, gen, append(s.body[:0], body...)
	s.facts, s.hasFacts = answerFacts{}, false
	m.bytes += len(body)
	m.next = (m.next + 1) % learnMemoSlots
	return s
}

func (m *learnMemo) drop(i int) {
	s := &m.slots[i]
	if s.body != nil {
		m.bytes -= len(s.body)
		s.body = nil
	}
}
