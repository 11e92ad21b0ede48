package cards

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/internal/jsonw"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// wireJSON is what the listing wrote before AppendWire: Wire's cards
// through encoding/json without HTML escaping (httpx.JSONSerializer),
// without the encoder's newline.
func wireJSON(t testing.TB, base string, sc *scenario.Scenario, cards []model.Card) []byte {
	wire, _ := Wire(base, sc, cards)
	return golden.Encode(t, wire)
}

// Pieces of generated strings: HTML characters, quotes and backslashes,
// every control character class, multi-byte runes, U+2028/9, invalid
// UTF-8 (a lone continuation byte, a truncated rune), URL shapes.
var listingPieces = []string{"", "a", "Coffee 50% off", "<b>&amp;</b>", `"`, `\`, "\b\f\n\r\t", "\x00\x01\x1f\x7f", "é", "日本語", "🎟", "\u2028", "\u2029",
	"\xff", "\xe6\x97", "\xed\xa0\x80", "/", "//cdn.example/x.svg", "/assets/img/a.svg", "https://rewardsim.invalid/go?a=1&b=2", " ", "#6F4E37", "\ufffd"}

// verbatimPieces are those written in JSON as they are.
var verbatimPieces = slices.DeleteFunc(slices.Clone(listingPieces), func(s string) bool { return !jsonw.Verbatim(s) })

func listingString(r *rand.Rand, from []string) string {
	var b strings.Builder
	for range r.IntN(4) {
		b.WriteString(from[r.IntN(len(from))])
	}
	return b.String()
}

// AppendWire, AppendViews (of the same cards in listing order) and
// AppendClickTrack write the very bytes encoding/json wrote for Wire's
// cards and clicks: unscratched and revealed cards in
// any order, every string field drawn from awkward pieces (empty
// included), relative and absolute URLs, channels that need query
// escaping, bases with and without a path, several zones.
func TestAppendWire_sameAsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("", -(7*3600 + 59))}
	bases := []string{"http://127.0.0.1:8080", "https://rewards.example/prefix", "http://<host>", "", `http://a"b\\c`}
	channels := []string{"DEMOBANK", "A B&C/é", "DEMOBANK"}
	marked := 0
	defer func() {
		if marked == 0 {
			t.Error("no card was marked verbatim: the copying path went untested")
		}
	}()
	for round := range 2000 {
		sc := &scenario.Scenario{Location: zones[round%len(zones)]}
		base := bases[r.IntN(len(bases))]
		cards := make([]model.Card, r.IntN(12))
		for i := range cards {
			c := &cards[i]
			c.RewardID = r.Uint64N(1 << uint(1+r.IntN(63)))
			c.Channel = channels[r.IntN(len(channels))]
			c.CreatedAt = time.Date(1990+r.IntN(60), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1e9), zones[r.IntN(len(zones))])
			if r.IntN(2) == 0 {
				// Half the offers need no escapes: the store marks those
				// (OfferVerbatim), and they are rendered by copying.
				from := listingPieces
				if r.IntN(2) == 0 {
					from = verbatimPieces
				}
				listingString := func(r *rand.Rand) string { return listingString(r, from) }
				c.Reward = &model.Reward{Offer: model.Offer{
					OfferTitle: listingString(r), Description: listingString(r), Terms: listingString(r), CouponCode: listingString(r),
					EndDate: listingString(r), CouponType: listingString(r), CouponImage: listingString(r), RedeemSteps: listingString(r),
					BannerDisplayURL: listingString(r), IconImage: listingString(r), Details: listingString(r), SiteID: listingString(r),
					SiteName: listingString(r), CoverImage: listingString(r), PromoLink: listingString(r), BgColor: listingString(r),
				}}
			}
		}
		want := wireJSON(t, base, sc, cards)
		got := AppendWire([]byte("prefix:"), base, sc.Location, cards)
		if !bytes.Equal(got[len("prefix:"):], want) || string(got[:len("prefix:")]) != "prefix:" {
			t.Fatalf("round %d:\n got %s\nwant %s", round, got, want)
		}
		// The same cards as the store shows them: in listing order, views,
		// without and with the mark of offers that need no escapes.
		sorted := slices.SortedStableFunc(slices.Values(cards), ListingCmp)
		views := make([]model.CardView[[]byte], len(sorted))
		for i := range sorted {
			views[i] = model.BytesView(model.ViewOf(&sorted[i]))
		}
		if got := AppendViews([]byte("prefix:"), base, sc.Location, views); !bytes.Equal(got[len("prefix:"):], want) {
			t.Fatalf("round %d, views:\n got %s\nwant %s", round, got, want)
		}
		for i := range views {
			views[i].OfferVerbatim = views[i].Revealed && !slices.ContainsFunc(views[i].Offer[:], func(s []byte) bool { return !jsonw.Verbatim(s) })
			if views[i].OfferVerbatim {
				marked++
			}
		}
		if got := AppendViews([]byte("prefix:"), base, sc.Location, views); !bytes.Equal(got[len("prefix:"):], want) {
			t.Fatalf("round %d, views marked verbatim:\n got %s\nwant %s", round, got, want)
		}
		_, clicks := Wire(base, sc, cards)
		if got, want := AppendClickTrack([]byte("prefix:"), base, cards), golden.Encode(t, clicks); !bytes.Equal(got[len("prefix:"):], want) {
			t.Fatalf("round %d clicks:\n got %s\nwant %s", round, got, want)
		}
	}
}

// appendDateTimeMs writes what the layout DateTimeMs writes, in and
// outside the years it formats itself.
func TestAppendDateTimeMs(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2))
	times := []time.Time{{}, time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(0, 1, 1, 0, 0, 0, 1e6-1, time.UTC), time.Date(2026, 1, 15, 10, 0, 0, 0, time.FixedZone("", 19800))}
	for range 5000 {
		times = append(times, time.Unix(r.Int64N(400_000_000_000)-200_000_000_000, r.Int64N(1e9)))
	}
	for _, at := range times {
		if got, want := appendDateTimeMs(nil, at), at.Format(DateTimeMs); string(got) != want {
			t.Errorf("%v: got %s, want %s", at, got, want)
		}
	}
}

func BenchmarkAppendWire(b *testing.B) {
	sc := &scenario.Scenario{Location: time.FixedZone("IST", 5*3600+1800)}
	cards := make([]model.Card, 10)
	for i := range cards {
		cards[i] = model.Card{RewardID: uint64(i + 1), Channel: "DEMOBANK", CreatedAt: time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)}
		if i >= 5 { // in listing order, as the store gives them
			cards[i].Reward = &model.Reward{Offer: model.Offer{OfferTitle: "50% off your next coffee", Description: "Half price on any handcrafted beverage.",
				Terms: "Valid once per user.", CouponCode: "BREW-SBGJGFUJ", CouponImage: "/assets/img/coffee-coupon.svg", BannerDisplayURL: "/assets/img/coffee-banner.svg",
				IconImage: "/assets/img/coffee-icon.svg", CoverImage: "/assets/img/coffee-cover.svg", PromoLink: "https://rewardsim.invalid/go/coffee", BgColor: "#6F4E37"}}
		}
	}
	const base = "http://127.0.0.1:8080"
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			wireJSON(b, base, sc, cards)
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = AppendWire(buf[:0], base, sc.Location, cards)
		}
	})
}

// Only a path on this host is made absolute: a URL of its own, or one on
// another host ("//cdn..."), is handed over as the scenario wrote it. The
// listing renders offers with the same rule (rootRelative) as Absolute.
func TestAbsolute_onlyRootRelative(t *testing.T) {
	const base = "http://127.0.0.1:8080"
	for _, tc := range []struct{ in, want string }{
		{"/assets/img/a.svg", base + "/assets/img/a.svg"},
		{"/", base + "/"},
		{"//cdn.example/x.svg", "//cdn.example/x.svg"},
		{"https://rewardsim.invalid/a", "https://rewardsim.invalid/a"},
		{"assets/a.svg", "assets/a.svg"},
		{"", ""},
	} {
		if got := Absolute(base, tc.in); got != tc.want {
			t.Errorf("Absolute(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got, want := rootRelative([]byte(tc.in)), tc.want != tc.in; got != want {
			t.Errorf("rootRelative(%q) = %v, want %v", tc.in, got, want)
		}
	}
}
