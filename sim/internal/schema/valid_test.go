package schema

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

var validSeeds = []string{
	`{"channelName":"DEMOBANK","virtualId":"BV-1","amount":100.00,"n":-0.5e+10,"ok":true,"no":false,"x":null}`,
	`{"CHANNELID":"C","BDATA":"eyJ0b2tlbiI6IlQifQ==","SIGN":"a+b/c=="}`,
	`[1,[2,{"a":[]}],{},"\u00e9\n\"\\\/\b\f\r\t",0,-1,1E5,2e-3]`,
	` { "a" : [ 1 , 2 ] } `, `"s"`, `0`, `-0.0`, `true`, `null`, `[]`, `{}`, "\"\xff\xfe\"",
	`{"status":true,"rewards":[{"rewardId":1,"trackLink":["http://x?a=1&b=2"],"isSeen":false}]}`,
}

// Valid says what json.Valid says, on the seeds and on many inputs
// made from them by replacing, inserting, deleting and cutting bytes,
// with the bytes that matter to JSON most likely.
func TestValid_asJSONValid(t *testing.T) {
	alphabet := []byte("{}[]\":,\\ \t\n-+.eE0123456789tfnulrsabu/\x00\x1f\x7f\x80\xff")
	rng := rand.New(rand.NewPCG(7, 8))
	check := func(b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("%q: Valid %v, json.Valid %v", b, got, want)
		}
	}
	for _, s := range validSeeds {
		check([]byte(s))
		for i := range len(s) + 1 {
			check([]byte(s[:i]))
		}
	}
	for range 200_000 {
		b := []byte(validSeeds[rng.IntN(len(validSeeds))])
		for range 1 + rng.IntN(3) {
			switch at := rng.IntN(len(b) + 1); rng.IntN(3) {
			case 0:
				if at < len(b) {
					b[at] = alphabet[rng.IntN(len(alphabet))]
				}
			case 1:
				b = append(b[:at], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[at:]...)...)
			case 2:
				if at < len(b) {
					b = append(b[:at], b[at+1:]...)
				}
			}
		}
		check(b)
	}
	for _, depth := range []int{maxJSONDepth - 1, maxJSONDepth, maxJSONDepth + 1} {
		check([]byte(strings.Repeat("[", depth) + strings.Repeat("]", depth)))
		check([]byte(strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)))
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("%q: Valid %v, json.Valid %v", b, got, want)
		}
	})
}
