package secrets

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// smallMemory is a memory that remembers little, so values are
// forgotten often.
func smallMemory(opaque, keys int) *Memory {
	m := New()
	m.opaque = hashRing{oldestFirst[uint64, struct{}]{max: opaque}}
	m.signs = hashRing{oldestFirst[uint64, struct{}]{max: opaque}}
	m.keys.Store(&keySet{keys: oldestFirst[string, struct{}]{max: keys}})
	return m
}

// state is what mem remembers to mask, in the order it goes.
func (mem *Memory) state() string {
	mem.mu.RLock()
	defer mem.mu.RUnlock()
	ks := mem.keys.Load()
	return fmt.Sprint(mem.opaque.ring, mem.opaque.next, mem.signs.ring, mem.signs.next, ks.keys.ring, ks.keys.next)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// learnStep is one step of a run: an exchange journaled, or a secret
// learnt elsewhere (the handlers, a reader).
type learnStep struct {
	res, req []byte
	token    string
	secKey   string
}

// The memo skips learning from a repeated body only when learning would
// change nothing: the same sequence of repeated bodies, with new secrets
// learnt in between and what is remembered forgotten often, run with the
// memo and without it, learns the same masks at each step and leaves the
// same memory; and the memo does skip.
func TestLearnMemo_asLearningEachTime(t *testing.T) {
	tok := []string{newToken(), newToken(), newToken(), newToken()}
	bodies := [][]byte{
		[]byte(`{"status":true,"token":"` + tok[0] + `","referenceKey":"` + tok[1] + `"}`),
		[]byte(`{"status":true,"rewards":[{"rewardId":1,"title":"` + strings.Repeat("x", 200) + `"}]}`),
		[]byte(`{"appKey":"A","secKey":"` + tok[2][:10] + `","sessionId":"` + tok[2] + `"}`),
		[]byte(`{"status":true,"token":"` + tok[3] + `"}`),
		[]byte(`{"BDATA":"` + b64(`{"token":"`+tok[1]+`"}`) + `","SIGN":"` + tok[0] + tok[3] + `"}`),
	}
	rng := mrand.New(mrand.NewPCG(3, 4))
	var steps []learnStep
	for range 3000 {
		switch rng.IntN(10) {
		case 0:
			steps = append(steps, learnStep{token: newToken()})
		case 1:
			steps = append(steps, learnStep{secKey: newToken()[:12]})
		default:
			steps = append(steps, learnStep{res: bodies[rng.IntN(len(bodies))], req: bodies[rng.IntN(len(bodies))]})
		}
	}
	type outcome struct {
		fresh  []Mask
		memory string
	}
	run := func(memo bool) ([]outcome, int) {
		mem := smallMemory(6, 3)
		lm := NewMemo[struct{}](mem)
		var out []outcome
		for _, s := range steps {
			if s.token != "" || s.secKey != "" {
				mem.learn(s.token)
				mem.LearnSecKey(s.secKey)
				out = append(out, outcome{memory: mem.state()})
				continue
			}
			if !memo {
				lm = NewMemo[struct{}](mem)
			}
			var d Decoded
			fresh, _, _ := lm.Learn(s.res, &d, nil)
			fresh, _, _ = lm.Learn(s.req, &d, fresh)
			out = append(out, outcome{fresh: slices.Clone(fresh), memory: mem.state()})
		}
		return out, lm.skips
	}
	with, skips := run(true)
	without, _ := run(false)
	for i := range steps {
		w, o := with[i], without[i]
		if !slices.Equal(w.fresh, o.fresh) || w.memory != o.memory {
			t.Fatalf("step %d: with the memo learnt %v, memory %s\nwithout: learnt %v, memory %s", i, w.fresh, w.memory, o.fresh, o.memory)
		}
	}
	if skips == 0 {
		t.Fatal("the memo never skipped")
	}
	t.Logf("%d of %d bodies not learnt from again", skips, 2*len(steps))
}

// learn remembers tokens as if an exchange had named them (a secret
// learnt elsewhere than the memo, in a test).
func (mem *Memory) learn(values ...string) {
	mem.mu.Lock()
	defer mem.mu.Unlock()
	for _, v := range values {
		if len(v) == OpaqueLen {
			mem.opaque.add(hashOf(v))
		}
	}
}
