package sim_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// storyCase is one named failure story: what the next call shows while it
// is applied (effect) and that the same call is served again once `story
// clear` undid it (normal).
type storyCase struct {
	name           string
	channel        string // "" the default scenario's one channel, DEMOBANK
	effect, normal func(t *testing.T, e *storyEnv)
}

// storyEnv is one simulator with a publisher of the story's channel.
type storyEnv struct {
	s     *simtest.Server
	c     *publisher.Client
	ctx   context.Context
	n     int
	token string // a user token issued before the story was applied
	hooks *receiver
}

func (e *storyEnv) claim() (publisher.Coupon, error) {
	e.n++
	return e.c.FetchCouponCode(e.ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1",
		ExtTransactionID: "TX-STORY-" + string(rune('A'+e.n)), CoinsUsed: "100"})
}

func wantCouponError(t *testing.T, err error, code string) {
	t.Helper()
	var ce *publisher.CouponError
	if !errors.As(err, &ce) || ce.ErrorCode != code {
		t.Fatalf("claim: %v, want errorCode %s", err, code)
	}
}

func wantOK(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s after story clear: %v", what, err)
	}
}

var storyCases = []storyCase{
	{name: "stock-out",
		effect: func(t *testing.T, e *storyEnv) { _, err := e.claim(); wantCouponError(t, err, "COUPON_EXHAUSTED") },
		normal: func(t *testing.T, e *storyEnv) { _, err := e.claim(); wantOK(t, "claim", err) }},
	{name: "not-eligible",
		effect: func(t *testing.T, e *storyEnv) { _, err := e.claim(); wantCouponError(t, err, "NON_ELIGIBLE") },
		normal: func(t *testing.T, e *storyEnv) { _, err := e.claim(); wantOK(t, "claim", err) }},
	{name: "uat-down",
		effect: func(t *testing.T, e *storyEnv) {
			_, err := e.c.ReferenceToken(e.ctx)
			var he *publisher.HTTPError
			if !errors.As(err, &he) || he.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("reference token: %v, want HTTP 503", err)
			}
		},
		normal: func(t *testing.T, e *storyEnv) {
			_, err := e.c.ReferenceToken(e.ctx)
			wantOK(t, "reference token", err)
		}},
	{name: "signature-mismatch",
		effect: func(t *testing.T, e *storyEnv) {
			_, err := e.c.UserToken(e.ctx, "VU-1")
			var fe *publisher.FailureError
			if !errors.As(err, &fe) {
				t.Fatalf("GetAuthToken: %v, want the bare failure of a signature that did not verify", err)
			}
		},
		normal: func(t *testing.T, e *storyEnv) {
			_, err := e.c.UserToken(e.ctx, "VU-1")
			wantOK(t, "GetAuthToken", err)
		}},
	{name: "token-expires-now",
		effect: func(t *testing.T, e *storyEnv) {
			if _, _, err := e.c.ListCards(e.ctx, e.token, ""); err == nil || !strings.Contains(err.Error(), "401") {
				t.Fatalf("cards with a token issued before the story: %v, want HTTP 401 (expired)", err)
			}
		},
		normal: func(t *testing.T, e *storyEnv) {
			_, _, err := e.c.ListCards(e.ctx, e.token, "")
			wantOK(t, "cards", err)
		}},
	{name: "slow-partner",
		effect: func(t *testing.T, e *storyEnv) {
			start := time.Now()
			if _, err := e.c.ReferenceToken(e.ctx); err != nil || time.Since(start) < 3*time.Second {
				t.Fatalf("reference token: %v after %s, want an answer 3s late", err, time.Since(start))
			}
		},
		normal: func(t *testing.T, e *storyEnv) {
			start := time.Now()
			if _, err := e.c.ReferenceToken(e.ctx); err != nil || time.Since(start) > time.Second {
				t.Fatalf("reference token after story clear: %v after %s", err, time.Since(start))
			}
		}},
	{name: "timeout-after-commit",
		effect: func(t *testing.T, e *storyEnv) {
			impatient := *e.c
			impatient.HTTP = &http.Client{Timeout: 300 * time.Millisecond}
			e.n++
			tx := "TX-COMMITTED"
			if _, err := impatient.FetchCouponCode(e.ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ExtTransactionID: tx, CoinsUsed: "100"}); err == nil {
				t.Fatal("the claim answered at once, want a timeout")
			}
			cs, err := e.c.UserCoupons(e.ctx, "VU-1", "OFFER-DEMO")
			if err != nil || len(cs) != 1 || cs[0].ExtTransactionID != tx {
				t.Fatalf("getUserCoupons after the timeout: %v %+v, want the committed claim %s", err, cs, tx)
			}
		},
		normal: func(t *testing.T, e *storyEnv) { _, err := e.claim(); wantOK(t, "claim", err) }},
	{name: "webhook-storm", channel: "CI-STORM",
		effect: func(t *testing.T, e *storyEnv) {
			deadline := time.Now().Add(10 * time.Second)
			for len(e.hooks.got()) < 5 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			got := e.hooks.got()
			if len(got) != 5 {
				t.Fatalf("the receiver got %d pushes, want 5", len(got))
			}
			for _, b := range got {
				if !strings.Contains(string(b), `"reason":"OUT_OF_STOCK"`) || refID(b) != refID(got[0]) {
					t.Fatalf("pushes of a storm differ: %s vs %s", b, got[0])
				}
			}
		},
		normal: func(t *testing.T, e *storyEnv) {
			n := len(e.hooks.got())
			if _, err := e.claim(); err != nil || len(e.hooks.got()) != n {
				t.Fatalf("after story clear: claim %v, pushes %d then %d", err, n, len(e.hooks.got()))
			}
		}},
}

// headerless are the stories whose effect shows on no call at all
// (pushes): no answer carries their X-Rewardsim-Story. A call refused
// before it is admitted (the bearer check refuses an expired token) says
// the stories of the channel it was noted for.
var headerless = map[string]bool{"webhook-storm": true}

func refID(b []byte) string {
	_, rest, _ := strings.Cut(string(b), `"referenceId":"`)
	id, _, _ := strings.Cut(rest, `"`)
	return id
}

// Every named failure story shows on the next call once applied, is named
// in health, on the dashboard, in the answer's X-Rewardsim-Story header
// and in the journal entry it touched, and `story clear` puts the channel
// back.
func TestStories_applyShowsOnTheNextCallAndClearUndoes(t *testing.T) {
	for _, sc := range storyCases {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			s := simtest.New(t)
			e := &storyEnv{s: s, c: s.Client, ctx: context.Background()}
			q := ""
			if sc.channel != "" {
				e.hooks = newReceiver(t, answerOK)
				ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": sc.channel, "like": "DEMOBANK", "webhookUrl": e.hooks.URL})
				c := *s.Client
				c.ChannelID, c.Channel = sc.channel, sc.channel
				e.c, q = &c, "?channel="+sc.channel
			}
			tok, err := e.c.UserToken(e.ctx, "VU-1")
			if err != nil {
				t.Fatal(err)
			}
			e.token = tok.Token
			ctlOK(t, s, http.StatusCreated, "POST", "/__sim/stories/"+sc.name+"/apply"+q, nil)
			if st, out := ctl(t, s, "POST", "/__sim/stories/"+sc.name+"/apply"+q, nil); st != http.StatusConflict {
				t.Errorf("applying %s twice: HTTP %d %s, want 409", sc.name, st, out)
			}
			health := string(ctlOKRaw(t, s, "/__sim/health"))
			if !strings.Contains(health, `"`+sc.name+`"`) {
				t.Errorf("health does not name the story applied: %s", health)
			}
			sc.effect(t, e)
			ch := e.c.Channel
			if j := string(ctlOKRaw(t, s, "/__sim/journal?kind=exchange&channel="+ch)); !strings.Contains(j, `"X-Rewardsim-Story":"`+sc.name+`"`) && !headerless[sc.name] {
				t.Errorf("no journal entry of %s names the story: %s", ch, j)
			}
			page := string(ctlOKRaw(t, s, "/__sim/dashboard"))
			if !strings.Contains(page, `<b class="head-stories">`+sc.name+`</b>`) || !strings.Contains(page, ` class="applied">`+sc.name+`</button>`) ||
				!headerless[sc.name] && !strings.Contains(page, `story `+sc.name+`</span>`) {
				t.Errorf("the dashboard does not show %s applied (header, panel, journal)", sc.name)
			}
			cleared := ctlOK(t, s, http.StatusOK, "POST", "/__sim/stories/clear"+q, nil)
			if names, _ := cleared["cleared"].([]any); len(names) != 1 || names[0] != sc.name {
				t.Errorf("clear answered %v, want cleared [%s]", cleared, sc.name)
			}
			if health := string(ctlOKRaw(t, s, "/__sim/health")); strings.Contains(health, sc.name) {
				t.Errorf("health still names the story after clear: %s", health)
			}
			sc.normal(t, e)
		})
	}
}

// The story list says what each does; an unknown story or channel is
// refused in the control API's shape; with one channel in force, a story
// needs no channel named; a clock story puts a channel clock back as it was.
func TestStories_listRefusalsAndClock(t *testing.T) {
	s := simtest.New(t)
	list := string(ctlOKRaw(t, s, "/__sim/stories"))
	for _, sc := range storyCases {
		if !strings.Contains(list, `"name":"`+sc.name+`","description":"`) {
			t.Errorf("GET /__sim/stories does not describe %s: %s", sc.name, list)
		}
	}
	for _, c := range []struct {
		path string
		want int
		msg  string
	}{
		{"/__sim/stories/no-such/apply", http.StatusNotFound, "the stories are"},
		{"/__sim/stories/stock-out/apply?channel=NOPE", http.StatusNotFound, `no channel named \"NOPE\"`},
		{"/__sim/stories/stock-out/apply?chanel=DEMOBANK", http.StatusBadRequest, `unknown query parameter \"chanel\"`},
		{"/__sim/stories/webhook-storm/apply", http.StatusBadRequest, "has no registered webhook URL"},
	} {
		if st, out := ctl(t, s, "POST", c.path, nil); st != c.want || !strings.Contains(string(out), c.msg) {
			t.Errorf("POST %s: HTTP %d %s, want %d with %q", c.path, st, out, c.want, c.msg)
		}
	}
	before := ctlOK(t, s, http.StatusOK, "GET", "/__sim/clock?channel=DEMOBANK", nil)
	moved := ctlOK(t, s, http.StatusCreated, "POST", "/__sim/stories/token-expires-now/apply", nil)
	if clk := moved["clock"].(map[string]any); clk["own"] != true || clk["now"] == before["now"] {
		t.Fatalf("token-expires-now did not move DEMOBANK's own clock: %v (before %v)", clk, before)
	}
	cleared := ctlOK(t, s, http.StatusOK, "POST", "/__sim/stories/clear", nil)
	if clk := cleared["clock"].(map[string]any); clk["own"] != false || clk["now"] != before["now"] {
		t.Fatalf("after clear DEMOBANK's clock is %v, want %v again", clk, before)
	}
	// A clock handed back by hand meanwhile is left as it is.
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/stories/token-expires-now/apply?channel=DEMOBANK", nil)
	ctlOK(t, s, http.StatusOK, "DELETE", "/__sim/clock?channel=DEMOBANK", nil)
	ctlOK(t, s, http.StatusOK, "POST", "/__sim/stories/clear?channel=DEMOBANK", nil)
}
