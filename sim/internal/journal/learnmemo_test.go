package journal

import (
	"bytes"
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

// smallMemory makes what is remembered to mask small for the test, so
// values are forgotten often, and puts it back after.
func smallMemory(t *testing.T, opaque, keys int) {
	known.Lock()
	savedOpaque, savedSigns, savedLens := known.opaque, known.signs, known.signLens
	known.opaque = hashRing{oldestFirst[uint64, struct{}]{max: opaque}}
	known.signs, known.signLens = hashRing{oldestFirst[uint64, struct{}]{max: opaque}}, nil
	known.Unlock()
	secKeys.Lock()
	savedKeys, savedOrder := secKeys.keys, secKeys.order
	secKeys.keys, secKeys.order = oldestFirst[string, struct{}]{max: keys}, nil
	secKeys.Unlock()
	t.Cleanup(func() {
		known.Lock()
		known.opaque, known.signs, known.signLens = savedOpaque, savedSigns, savedLens
		known.Unlock()
		secKeys.Lock()
		secKeys.keys, secKeys.order = savedKeys, savedOrder
		secKeys.Unlock()
	})
}

// memoryState is what is remembered to mask, in the order it goes.
func memoryState() string {
	known.RLock()
	defer known.RUnlock()
	secKeys.RLock()
	defer secKeys.RUnlock()
	return fmt.Sprint(known.opaque.ring, known.opaque.next, known.signs.ring, known.signs.next, secKeys.keys.ring, secKeys.keys.next)
}

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
// memo and without it, learns the same masks at each step, leaves the
// same memory, and stores the same bytes; and the memo does skip.
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
		data   []byte
	}
	run := func(memo bool) ([]outcome, int) {
		smallMemory(t, 6, 3)
		b := NewBuilder()
		var out []outcome
		for _, s := range steps {
			if s.token != "" || s.secKey != "" {
				Learn(s.token)
				LearnSecKey(s.secKey)
				out = append(out, outcome{memory: memoryState()})
				continue
			}
			if !memo {
				b.learned = learnMemo{}
			}
			r := b.record(&Exchange{Method: "POST", Path: "/api/GetReward", Status: 200, ResponseBody: s.res, RequestBody: s.req})
			out = append(out, outcome{fresh: slices.Clone(b.fresh), memory: memoryState(), data: r.appendBinary(nil)})
			b.fresh = b.fresh[:0]
		}
		return out, b.learned.skips
	}
	with, skips := run(true)
	without, _ := run(false)
	for i := range steps {
		w, o := with[i], without[i]
		if !slices.Equal(w.fresh, o.fresh) || w.memory != o.memory || !bytes.Equal(w.data, o.data) {
			t.Fatalf("step %d: with the memo learnt %v, memory %s\nwithout: learnt %v, memory %s", i, w.fresh, w.memory, o.fresh, o.memory)
		}
	}
	if skips == 0 {
		t.Fatal("the memo never skipped")
	}
	t.Logf("%d of %d bodies not learnt from again", skips, 2*len(steps))
}
