package cards

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

var t0 = time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)

// ago is a cap event d before t0, in unix nanos.
func ago(d time.Duration) int64 { return t0.Add(-d).UnixNano() }

func caps(spec ...any) []scenario.Cap {
	var out []scenario.Cap
	for i := 0; i < len(spec); i += 2 {
		out = append(out, scenario.Cap{Max: spec[i].(int), Period: model.Duration(spec[i+1].(time.Duration))})
	}
	return out
}

// clause: GR-3 (frequency caps)
func TestApplyCaps(t *testing.T) {
	day, hour := 24*time.Hour, time.Hour
	cases := []struct {
		name   string
		caps   []scenario.Cap
		events []int64
		kept   int    // events left after pruning
		capped string // part of the reason, "" for not capped
	}{
		{"no caps keeps everything", nil, []int64{ago(400 * day)}, 1, ""},
		{"under the cap", caps(2, day), []int64{ago(hour)}, 1, ""},
		{"at the cap", caps(2, day), []int64{ago(hour), ago(2 * hour)}, 2, "frequency cap of 2 per 24h0m0s reached"},
		{"events past the period do not count and are dropped", caps(1, day), []int64{ago(day + time.Second), ago(2 * day)}, 0, ""},
		{"an event exactly one period ago has left the window", caps(1, day), []int64{ago(day)}, 0, ""},
		{"the shorter of two caps binds", caps(5, day, 1, hour), []int64{ago(30 * time.Minute)}, 1, "frequency cap of 1 per 1h0m0s"},
		{"the longer keeps what the shorter forgot", caps(2, day, 1, hour), []int64{ago(2 * hour), ago(3 * hour)}, 2, "frequency cap of 2 per 24h0m0s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kept, why := applyCaps(c.caps, append([]int64(nil), c.events...), t0)
			if len(kept) != c.kept {
				t.Errorf("kept %d events, want %d", len(kept), c.kept)
			}
			if (c.capped == "") != (why == "") || !strings.Contains(why, c.capped) {
				t.Errorf("reason %q, want %q", why, c.capped)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	card := model.Card{Channel: "DEMOBANK", RewardID: 42}
	cases := []struct {
		pattern string
		seq     uint64
		want    string // "" when only the shape is checked
	}{
		{"PLAIN", 1, "PLAIN"},
		{"C-{seq}", 7, "C-7"},
		{"C-{seq:6}", 7, "C-000007"},
		{"C-{seq:2}", 1234, "C-1234"}, // padding never truncates
		{"R{rewardId}", 1, "R42"},
		{"{unknown}-{seq}", 3, "{unknown}-3"},
		{"open {seq", 3, "open {seq"},
		{"{seq}{seq}", 5, "55"},
	}
	for _, c := range cases {
		if got := expand(c.pattern, c.seq, 9, card.Channel, card); got != c.want {
			t.Errorf("expand(%q, %d) = %q, want %q", c.pattern, c.seq, got, c.want)
		}
	}
	// {rand:N}: N characters of the alphabet, a function of seed, channel and card.
	a := expand("X-{rand:8}", 1, 9, card.Channel, card)
	if len(a) != 10 || strings.Trim(a[2:], codeAlphabet) != "" {
		t.Errorf("rand code %q: want 8 characters of %s", a, codeAlphabet)
	}
	for _, other := range []struct {
		seed int64
		card model.Card
	}{{10, card}, {9, model.Card{Channel: "OTHER", RewardID: 42}}, {9, model.Card{Channel: "DEMOBANK", RewardID: 43}}} {
		if b := expand("X-{rand:8}", 1, other.seed, other.card.Channel, other.card); b == a {
			t.Errorf("seed %d, card %+v drew the same code %q", other.seed, other.card, b)
		}
	}
	if b := expand("X-{rand:8}", 2, 9, card.Channel, card); b != a {
		t.Errorf("the same card drew %q then %q", a, b)
	}
}

func TestDraw(t *testing.T) {
	base := draw(7, "C", 1, "pick")
	if draw(7, "C", 1, "pick") != base {
		t.Fatal("draw is not a function of its arguments")
	}
	for i, d := range []uint64{draw(8, "C", 1, "pick"), draw(7, "D", 1, "pick"), draw(7, "C", 2, "pick"), draw(7, "C", 1, "other")} {
		if d == base {
			t.Errorf("variant %d draws the same number", i)
		}
	}
	// Over many cards, a draw modulo 4 lands on every value about as often.
	var seen [4]int
	for id := range uint64(4000) {
		seen[draw(7, "C", id, "pick")%4]++
	}
	for v, n := range seen {
		if n < 800 || n > 1200 {
			t.Errorf("value %d drawn %d times of 4000", v, n)
		}
	}
}

func TestEntryLimitAndWeight(t *testing.T) {
	n := func(v int) *int { return &v }
	cases := []struct {
		entry scenario.PoolEntry
		limit uint64
		ok    bool
	}{
		{scenario.PoolEntry{}, 0, false},
		{scenario.PoolEntry{Stock: n(5)}, 5, true},
		{scenario.PoolEntry{Stock: n(-1)}, 0, true},
		{scenario.PoolEntry{CouponCodes: []string{"A", "B"}}, 2, true},
		{scenario.PoolEntry{Stock: n(5), CouponCodes: []string{"A", "B"}}, 2, true},
		{scenario.PoolEntry{Stock: n(1), CouponCodes: []string{"A", "B"}}, 1, true},
	}
	for i, c := range cases {
		if limit, ok := entryLimit(&c.entry); limit != c.limit || ok != c.ok {
			t.Errorf("case %d: entryLimit = %d %v, want %d %v", i, limit, ok, c.limit, c.ok)
		}
	}
	for w, want := range map[int]int{-3: 1, 0: 1, 1: 1, 7: 7} {
		if got := weight(&scenario.PoolEntry{Weight: w}); got != want {
			t.Errorf("weight %d counts %d, want %d", w, got, want)
		}
	}
}

// clause: GR-5, SDK-1
func TestParseAmount(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		err  string
	}{
		{"0", 0, ""},
		{"250", 250, ""},
		{"250.5", 250.5, ""},
		{"250.55", 250.55, ""},
		{"250.555", 0, "more than two decimal places"},
		{"1e3", 0, "not a plain decimal"},
		{"-1", 0, "not a non-negative number"},
		{"abc", 0, "not a non-negative number"},
		{"", 0, "not a non-negative number"},
	}
	for _, c := range cases {
		got, err := ParseAmount(c.in)
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParseAmount(%q) = %v, %v; want %v, %q", c.in, got, err, c.want, c.err)
		}
	}
}

// clause: GR-7, SDK-1
func TestDecodeParams(t *testing.T) {
	cases := []struct {
		in      string
		allowed []string
		want    string // fmt of the map, or the error's part
		fails   bool
	}{
		{`{"a":"x","n":12.50,"b":true,"z":null}`, nil, "map[a:x b:true n:12.50]", false},
		{`{}`, nil, "map[]", false},
		{`{"a":"x"}`, []string{"a", "b"}, "map[a:x]", false},
		{`{"c":"x"}`, []string{"a", "b"}, `key "c" is not one of a, b`, true},
		{`{"a":[1]}`, nil, "key a is not a string, number or boolean", true},
		{`{"a":{"b":1}}`, nil, "key a is not a string, number or boolean", true},
		{`[1]`, nil, "is not a JSON-encoded object", true},
		{`null`, nil, "is not a JSON-encoded object", true},
		{`{"a":`, nil, "is not a JSON-encoded object", true},
	}
	for _, c := range cases {
		got, err := DecodeParams([]byte(c.in), c.allowed)
		if c.fails {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("DecodeParams(%s) = %v, %v; want error %q", c.in, got, err, c.want)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != c.want {
			t.Errorf("DecodeParams(%s) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
}
