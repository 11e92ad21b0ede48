package sim_test

// Fidelity seen from outside (issue 16): what a strict publisher reads in
// the answers must agree with the simulator's documented readings.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: CPN-7, CPN-8
// switches.coupons.orderId false (the default) keeps the order id out of
// the coupon url too, though the default offer's url.query names
// {orderId}; true puts data.orderId and the same order= in the url.
func TestFetchCouponCode_CPN7_orderIdSwitchGovernsTheURL(t *testing.T) {
	ctx := context.Background()
	for _, on := range []bool{false, true} {
		var opts []simtest.Option
		if on {
			opts = append(opts, changedScenario(t, "    orderId: false\n", "    orderId: true\n"))
		}
		s := simtest.New(t, opts...)
		c, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ExtTransactionID: "TX-ORD", CoinsUsed: "100"})
		if err != nil {
			t.Fatal(err)
		}
		held, err := s.Client.UserCoupons(ctx, "VU-1", "OFFER-DEMO")
		if err != nil || len(held) != 1 {
			t.Fatalf("getUserCoupons: %+v %v", held, err)
		}
		for _, u := range []string{c.URL, held[0].URL} {
			parsed, err := url.Parse(u)
			if err != nil {
				t.Fatal(err)
			}
			q := parsed.Query()
			if q.Get("vid") != "VU-1" || q.Get("txn") != "TX-ORD" {
				t.Errorf("orderId %v: url %q lost its other identifiers", on, u)
			}
			if got := q.Get("order"); (got != "") != on || got != c.OrderID || strings.Contains(u, "ORD-") != on {
				t.Errorf("orderId %v: url %q carries order %q; data.orderId is %q", on, u, got, c.OrderID)
			}
		}
	}
}

// clause: SIM-3, AUTH-2, SDK-1
// A signature-mismatch rule is rendered by every endpoint it names, in
// that endpoint's own failure shape: the bearer 401 on GetReward and the
// listing, the SDK's HTTP 400 status-false shape on client issuance.
func TestFaults_SIM3_signatureMismatchOnBearerAndSDKEndpoints(t *testing.T) {
	e := newCardEnv(t)
	for _, ep := range []string{"GetReward", "GetAllScratchCardsByUserId", "getScratchCardDetails"} {
		ctlOK(t, e.s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"endpoint": ep, "virtualId": "VU-SIG", "action": map[string]any{"kind": "signature-mismatch"}})
	}
	const reason = "injected fault: signature-mismatch"
	unauthorized := func(what string, res *publisher.Response) {
		t.Helper()
		var ans struct {
			Status  *bool  `json:"status"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(res.Body, &ans)
		if res.StatusCode != http.StatusUnauthorized || ans.Status == nil || *ans.Status || ans.Message != "Unauthorized: token is unknown" ||
			reasonOf(res) != reason || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: HTTP %d %s (reason %q), want the bearer 401", what, res.StatusCode, res.Body, reasonOf(res))
		}
	}
	body := e.req("VU-SIG", "UPI")
	raw, _ := json.Marshal(body)
	unauthorized("GetReward", rawGetReward(t, e.s, e.ref, string(raw)))
	res, _, _ := e.s.Client.ListCards(e.ctx, e.userToken("VU-SIG"), "")
	unauthorized("listing", res)

	req := sdkReq("SDKSIG1")
	req["virtualId"] = "VU-SIG"
	hres, data := e.postBytes(e.s.BankURL+"/sdk/getScratchCardDetails", req)
	var ans issueAnswer
	_ = json.Unmarshal(data, &ans)
	if hres.StatusCode != http.StatusBadRequest || ans.Status || ans.Message != "Signature Mismatch!" || hres.Header.Get("X-Rewardsim-Reason") != reason {
		t.Errorf("SDK issuance: HTTP %d %s (reason %q), want HTTP 400 status false Signature Mismatch!", hres.StatusCode, data, hres.Header.Get("X-Rewardsim-Reason"))
	}
	// Another user is not matched: the rules change nothing else.
	if _, ans := e.getReward(e.req("VU-OK", "UPI")); !ans.Status {
		t.Errorf("GetReward of a user no rule names: %+v", ans)
	}
}

// clause: CPN-3, AUTH-3, SIM-3
// A channel whose own scenario mirrors the body status into the HTTP
// status gets HTTP 401 for a claim without X-CHANNELID (or with an
// unknown one): the body's channelName picks whose switches apply. A
// channelName that names no channel falls back to the default scenario.
func TestCouponHost_CPN3_perChannelMirrorWithoutChannelHeader(t *testing.T) {
	s := simtest.New(t)
	activateFor(t, s, "mirror.yaml", "DEMOBANK", `version: 1
name: mirror
channels:
  - {name: DEMOBANK, certificateFile: "builtin:publisher-dev.crt", appKey: DEMOAPPKEY, secKey: DEMOSECKEY}
switches:
  coupons: {httpStatus: mirror}
`)
	claimBody := func(channel string) []byte {
		return mustJSON(t, map[string]any{"offerId": "OFFER-DEMO", "virtualId": "VU-1", "channelName": channel, "extTransactionId": "TX-H", "coinsUsed": "100"})
	}
	cases := []struct {
		name, channelID, channelName string
		wantHTTP                     int
	}{
		{"no X-CHANNELID", "", "DEMOBANK", http.StatusUnauthorized},
		{"unknown X-CHANNELID", "NOBANK", "DEMOBANK", http.StatusUnauthorized},
		{"no X-CHANNELID, unknown channelName", "", "NOBANK", http.StatusOK},
	}
	for _, c := range cases {
		h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"ServiceAppKey DEMOAPPKEY:DEMOSECKEY"}}
		if c.channelID != "" {
			h.Set("X-CHANNELID", c.channelID)
		}
		res, err := s.Client.Do(context.Background(), http.MethodPost, s.HotdealsURL+"/api/fetchCouponCode", h, claimBody(c.channelName))
		if err != nil {
			t.Fatal(err)
		}
		ce := couponErr(t, res)
		if res.StatusCode != c.wantHTTP || ce.Status != 401 || ce.ErrorCode != "UNAUTHORIZED" {
			t.Errorf("%s: HTTP %d %s, want HTTP %d with body status 401", c.name, res.StatusCode, res.Body, c.wantHTTP)
		}
	}
}

// uuidV4 is RFC 9562's version 4 form: version nibble 4, variant 10xx.
var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// clause: WH-1, WH-3
// Generated referenceIds are RFC 9562 version 4 UUIDs, which strict
// readers (Java's UUID.fromString with a version check, JSON Schema
// format uuid) accept; each push gets its own.
func TestWebhook_WH1_referenceIdIsAVersion4UUID(t *testing.T) {
	s := simtest.New(t)
	rc := newReceiver(t, answerOK)
	registerChannel(t, s, "CIU", 0, rc.URL)
	seen := map[string]bool{}
	for range 8 {
		schedule(t, s, map[string]any{"channel": "CIU", "offerId": "OFFER-9", "reason": "OUT_OF_STOCK"})
	}
	for _, b := range rc.got() {
		var ev struct{ ReferenceID string }
		decodeInto(t, b, &ev)
		if !uuidV4.MatchString(ev.ReferenceID) || seen[ev.ReferenceID] {
			t.Errorf("referenceId %q: not a fresh RFC 9562 version 4 UUID", ev.ReferenceID)
		}
		seen[ev.ReferenceID] = true
	}
	if len(seen) != 8 {
		t.Fatalf("%d pushes delivered, want 8", len(seen))
	}
}

// clause: ENV-3, REV-1, CPN-8, TRK-1
// URLs in answers keep `&` as is, never `\u0026`: plain JSON answers,
// coupon answers, and the signed BDATA, whose SIGN verifies over exactly
// the bytes a publisher decodes.
func TestAnswers_ENV3_urlsAreNotHTMLEscaped(t *testing.T) {
	e := newCardEnv(t)
	escaped, amp := []byte(`\u0026`), []byte("&")
	check := func(what string, raw []byte) {
		t.Helper()
		if bytes.Contains(raw, escaped) || !bytes.Contains(raw, amp) {
			t.Errorf("%s: want & as is and no \\u0026: %s", what, raw)
		}
	}
	res, ans := e.getReward(e.req("VU-1", "UPI"))
	check("GetReward", res.Body)
	id := ans.Rewards[0].RewardID
	tok := e.userToken("VU-1")
	rres, _, err := e.reveal(tok, "VU-1", id)
	if err != nil || rres.Envelope == nil {
		t.Fatalf("FetchRewardInfo: %v %s", err, rres.Body)
	}
	bdata, err := base64.StdEncoding.DecodeString(rres.Envelope.BDATA)
	if err != nil {
		t.Fatal(err)
	}
	check("FetchRewardInfo BDATA", bdata) // the client verified SIGN over this BDATA
	lres, _, _ := e.s.Client.ListCards(e.ctx, tok, "")
	check("listing", lres.Body)
	cres, err := e.s.Client.PostAPIKey(e.ctx, "/api/fetchCouponCode", publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ChannelName: "DEMOBANK", ExtTransactionID: "TX-AMP", CoinsUsed: "100"})
	if err != nil {
		t.Fatal(err)
	}
	check("fetchCouponCode", cres.Body)
}

// clause: SIM-6, REV-2, GR-4, CPN-5
// A request sent again in a way the contract does not mean is a finding
// with its clause, provoked through the real endpoints: a second reveal
// of one card, a GetReward duplicate with a different body, a coupon claim
// retried with another coinsUsed. The same request sent again unchanged
// is no finding.
func TestReport_SIM6_repeatedRequestsProvokedThroughTheEndpoints(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, clause, rule string
		provoke            func(t *testing.T, s *simtest.Server, ref, user string)
	}{
		{"REV-2 second reveal of one card", "REV-2", "second-reveal",
			func(t *testing.T, s *simtest.Server, ref, user string) {
				card := cardsFor(t, s.Client, ref, "VU-1", 1)[0]
				fireImpressions(t, s.Client, []publisher.Card{card})
				if _, _, err := s.Client.FetchRewardInfo(ctx, user, "VU-1", card.RewardID); err != nil {
					t.Fatal(err)
				}
				if _, _, err := s.Client.FetchRewardInfo(ctx, user, "VU-1", card.RewardID); err == nil {
					t.Fatal("a second reveal handed out the reward again")
				}
			}},
		{"GR-4 GetReward duplicate with another amount", "GR-4", "get-reward-conflicting-duplicate",
			func(t *testing.T, s *simtest.Server, ref, _ string) {
				first := rawGetReward(t, s, ref, getRewardBody("100.00", "15012026100000", ""))
				again := rawGetReward(t, s, ref, getRewardBody("100", "15012026100000", "")) // the same amount: no finding
				changed := rawGetReward(t, s, ref, getRewardBody("250.00", "15012026100000", ""))
				if !bytes.Equal(first.Body, again.Body) || !bytes.Equal(first.Body, changed.Body) {
					t.Fatalf("duplicates answer the first cards: %s / %s / %s", first.Body, again.Body, changed.Body)
				}
				fireImpressionsOf(t, s, "VU-9")
			}},
		{"CPN-5 coupon claim retried with another coinsUsed", "CPN-5", "coupon-claim-conflicting-duplicate",
			func(t *testing.T, s *simtest.Server, _, _ string) {
				for _, coins := range []string{"100", "100", "150"} {
					if _, err := s.Client.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ExtTransactionID: "TX-COINS", CoinsUsed: coins}); err != nil {
						t.Fatal(err)
					}
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := simtest.New(t)
			ref, user := tokens(t, s.Client)
			c.provoke(t, s, ref, user)
			r := report(t, s, "channel=DEMOBANK")
			if len(r.Findings) != 1 || r.Findings[0].Clause != c.clause || r.Findings[0].ID != c.rule || r.Findings[0].Count != 1 {
				t.Fatalf("findings %v %+v, want %s/%s counted once", findingIDs(r), r.Findings, c.clause, c.rule)
			}
			if f := r.Findings[0]; f.Example.Seq == 0 || f.Example.Detail == "" {
				t.Errorf("finding without an example exchange: %+v", f)
			}
		})
	}
}

// activateFor uploads a scenario through the control API and activates
// it for one channel.
func activateFor(t *testing.T, s *simtest.Server, file, channel, yaml string) {
	t.Helper()
	if st, out := ctl(t, s, "POST", "/__sim/scenarios?name="+file+"&activate=true&channel="+channel, yaml); st != http.StatusCreated && st != http.StatusOK {
		t.Fatalf("upload %s for %s: HTTP %d %s", file, channel, st, out)
	}
}

func mustUserToken(t *testing.T, s *simtest.Server, vid string) string {
	t.Helper()
	u, err := s.Client.UserToken(context.Background(), vid)
	if err != nil {
		t.Fatal(err)
	}
	return u.Token
}

// fireImpressionsOf lists vid's cards and fires their impressions (TRK-1),
// so a case provokes only its own finding.
func fireImpressionsOf(t *testing.T, s *simtest.Server, vid string) {
	t.Helper()
	_, list, err := s.Client.ListCards(context.Background(), mustUserToken(t, s, vid), "")
	if err != nil {
		t.Fatal(err)
	}
	fireImpressions(t, s.Client, list.Rewards)
}
