package sim_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// clause: SIM-2
// Every (endpoint, fault kind) pair through a real `rewardsim serve`: the
// control API either refuses the rule, naming the endpoint and the kinds
// it can show, or accepts it, and then the next matching call shows it (a
// status, a dropped connection, a late answer, or the injected answer's
// reason header). No accepted rule is silently ignored.
func TestServe_everyFaultKindOnEveryEndpointIsShownOrRefused(t *testing.T) {
	pub, ctlURL := serveProcess(t)
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	// No kept-alive connections: Go's client retries an idempotent GET on
	// a reused connection that closed unanswered, hiding a drop.
	c := &publisher.Client{HTTP: &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}, RewardsURL: pub, BankURL: pub, HotdealsURL: pub,
		ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: key, AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY"}
	ctx := context.Background()
	calls := faultCalls(t, c)
	certPEM, _ := fs.ReadFile(certs.FS, certs.ServiceCert)
	servicePub, err := publisher.ParsePublicKeyPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}

	const delay = 300 * time.Millisecond
	accepted, refused := 0, 0
	cursor := map[string]uint64{}
	for _, op := range contract.Ops {
		for _, kind := range fault.Kinds {
			t.Run(op.Name+"/"+kind, func(t *testing.T) {
				id := op.Name + "-" + kind
				rule := map[string]any{"id": id, "endpoint": op.Name, "times": 1, "virtualId": "", "action": map[string]any{
					"kind": kind, "status": 418, "delay": delay.String(), "errorCode": "COUPON_EXHAUSTED"}}
				delete(rule, "virtualId")
				status, answer := controlCall(t, http.MethodPost, ctlURL+"/__sim/faults", rule)
				if status == http.StatusBadRequest {
					refused++
					if !strings.Contains(answer, "endpoint "+op.Name+" cannot show a "+kind+" fault; it can show") {
						t.Fatalf("refused without naming the endpoint and its kinds: %s", answer)
					}
					return
				}
				if status != http.StatusCreated {
					t.Fatalf("POST /__sim/faults: HTTP %d %s", status, answer)
				}
				accepted++
				defer controlCall(t, http.MethodDelete, ctlURL+"/__sim/faults/"+id, nil)
				call := calls[op.Name]
				// A refusal before the fault decision (and, for a commit
				// kind, a claim the domain refused) does not spend it.
				refusedBefore(t, c, ctlURL, pub, op, kind, &cursor)
				faultCounters(t, ctlURL, id, 0, false)
				var body []byte
				if call.body != nil {
					body = call.body()
				}
				header := call.header()
				start := time.Now()
				res, err := c.Do(ctx, op.Method, pub+call.path, header, body)
				took := time.Since(start)
				switch kind {
				case fault.HTTPStatus:
					if err != nil || res.StatusCode != 418 {
						t.Fatalf("want HTTP 418, got %v %v", res, err)
					}
				case fault.DropConnection, fault.CommitThenDrop:
					if err == nil {
						t.Fatalf("want the connection dropped, got HTTP %d %s", res.StatusCode, res.Body)
					}
				case fault.Delay, fault.CommitThenDelay:
					if err != nil || took < delay {
						t.Fatalf("want an answer after %v, got one after %v (%v)", delay, took, err)
					}
				case fault.AnswerSignOtherBytes, fault.AnswerSignOtherKey, fault.AnswerSignAbsent:
					// The normal answer, whose SIGN does not verify with
					// the service's certificate.
					var env publisher.Envelope
					if err != nil || res.StatusCode != http.StatusOK || json.Unmarshal(res.Body, &env) != nil || env.BDATA == "" {
						t.Fatalf("want a signed answer, got %v %v", res, err)
					}
					verr := publisher.Verify(servicePub, env.BDATA, env.SIGN)
					if verr == nil || (kind == fault.AnswerSignAbsent) != (env.SIGN == "") {
						t.Fatalf("the answer's SIGN %q verifies (%v) or is present when it should not be", env.SIGN, verr)
					}
				default:
					if err != nil || !strings.Contains(res.Header.Get("X-Rewardsim-Reason"), "injected fault: "+kind) {
						t.Fatalf("want the injected %s answer, got %v %v", kind, res, err)
					}
				}
				if got := journalFaults(t, ctlURL, op.Name, &cursor, true); !slices.Contains(got, kind) {
					t.Errorf("the faulted call's journal entry names faults %q, want %q", got, kind)
				}
				faultCounters(t, ctlURL, id, 1, true)
			})
		}
	}
	if accepted == 0 || refused == 0 || accepted+refused != len(contract.Ops)*len(fault.Kinds) {
		t.Errorf("%d accepted, %d refused of %d pairs", accepted, refused, len(contract.Ops)*len(fault.Kinds))
	}
	t.Logf("%d (endpoint, kind) pairs shown, %d refused at add time", accepted, refused)
}

// refusedBefore sends op a call refused before its fault decision (a body
// or credentials its opener refuses) and, for a commit kind, a claim the
// domain refuses (nothing committed, nothing to withhold); each is
// answered at once and journaled without a fault.
func refusedBefore(t *testing.T, c *publisher.Client, ctlURL, pub string, op contract.Op, kind string, cursor *map[string]uint64) {
	t.Helper()
	ctx := context.Background()
	journalFaults(t, ctlURL, op.Name, cursor, false) // past what came before
	header := http.Header{"Content-Type": {"application/json"}}
	body := []byte(`{}`)
	switch {
	case op.Method == http.MethodGet:
		body = nil // no credentials
	case op.Auth == contract.APIKey:
		header = c.APIKeyHeader()
	}
	var sends [][]byte
	sends = append(sends, body)
	if kind == fault.CommitThenDelay || kind == fault.CommitThenDrop {
		sends = append(sends, []byte(`{"offerId":"OFFER-NOPE","virtualId":"VU-R","channelName":"DEMOBANK","extTransactionId":"R-1","coinsUsed":"100"}`))
	}
	for _, b := range sends {
		res, err := c.Do(ctx, op.Method, pub+op.Path, header, b)
		if err != nil {
			t.Fatalf("the call meant to be refused: %v", err)
		}
		if r := res.Header.Get("X-Rewardsim-Reason"); r == "" || strings.HasPrefix(r, "injected fault:") {
			t.Fatalf("the call meant to be refused: HTTP %d, reason %q", res.StatusCode, r)
		}
		if got := journalFaults(t, ctlURL, op.Name, cursor, true); len(got) != 1 || got[0] != "" {
			t.Fatalf("the refused call's journal entries name faults %q, want none", got)
		}
	}
}

// journalFaults reads the faults named by op's journal entries after the
// cursor, and moves it past them; wait waits (bounded) for at least one.
func journalFaults(t *testing.T, ctlURL, op string, cursor *map[string]uint64, wait bool) []string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, raw := controlCall(t, http.MethodGet, fmt.Sprintf("%s/__sim/journal?endpoint=%s&after=%d&limit=1000", ctlURL, op, (*cursor)[op]), nil)
		var page struct {
			Entries []struct {
				Seq   uint64
				Fault string
			}
		}
		if err := json.Unmarshal([]byte(raw), &page); err != nil {
			t.Fatalf("journal: %v %s", err, raw)
		}
		var faults []string
		for _, e := range page.Entries {
			faults = append(faults, e.Fault)
			(*cursor)[op] = e.Seq
		}
		if len(faults) > 0 || !wait {
			return faults
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s journal entry after %d", op, (*cursor)[op])
		}
	}
}

// faultCounters checks a run-time rule's counters as GET /__sim/faults
// lists them: the fields a sweep reads.
func faultCounters(t *testing.T, ctlURL, id string, fired int, spent bool) {
	t.Helper()
	_, list := controlCall(t, http.MethodGet, ctlURL+"/__sim/faults", nil)
	var rules struct{ Rules []fault.Status }
	_ = json.Unmarshal([]byte(list), &rules)
	for _, r := range rules.Rules {
		if r.ID == id {
			if r.Fired != fired || r.Spent != spent {
				t.Errorf("rule %s: fired %d spent %v, want fired %d spent %v", id, r.Fired, r.Spent, fired, spent)
			}
			return
		}
	}
	t.Errorf("rule %s is not listed", id)
}

// serveProcess builds rewardsim and runs `rewardsim serve` on free
// loopback ports until the test ends; it returns the public and control URLs.
func serveProcess(t *testing.T) (public, control string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rewardsim")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/rewardsim").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--log-level", "error")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	urls := map[string]string{}
	sc := bufio.NewScanner(stdout)
	for len(urls) < 2 && sc.Scan() { // "rewardsim: all listening on http://127.0.0.1:NNNN"
		if f := strings.Fields(sc.Text()); len(f) == 5 && f[2] == "listening" {
			urls[f[1]] = f[4]
		}
	}
	if len(urls) < 2 {
		t.Fatal("serve did not report its listeners")
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return urls["all"], urls["control"]
}

// faultCall is a well-formed call of one operation that reaches its fault
// decision; body and header are made per call (fresh tokens, fresh ids).
type faultCall struct {
	path   string
	header func() http.Header
	body   func() []byte
}

func faultCalls(t *testing.T, c *publisher.Client) map[string]faultCall {
	ctx := context.Background()
	n := 0
	next := func() int { n++; return n }
	sealed := func(payload func() any) func() []byte {
		return func() []byte {
			env, err := publisher.Seal(c.Key, c.ChannelID, payload())
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(env)
			return b
		}
	}
	plain := func(payload func() any) func() []byte {
		return func() []byte { b, _ := json.Marshal(payload()); return b }
	}
	none := func() http.Header { return nil }
	bearer := func(user bool) func() http.Header {
		return func() http.Header {
			var tok string
			if user {
				u, err := c.UserToken(ctx, "VU-1")
				if err != nil {
					t.Fatal(err)
				}
				tok = u.Token
			} else {
				r, err := c.ReferenceToken(ctx)
				if err != nil {
					t.Fatal(err)
				}
				tok = r.ReferenceKey
			}
			return http.Header{"Authorization": {"Bearer " + tok}, "Content-Type": {"application/json"}}
		}
	}
	user := func() any { return map[string]string{"virtualId": "VU-1", "channelName": "DEMOBANK"} }
	sdk := plain(func() any {
		return map[string]any{"channelName": "DEMOBANK", "triggerEventType": "UPI", "amount": 250.5, "extTransactionId": fmt.Sprintf("FK%d", next()),
			"dateandtime": "15012026100000", "virtualId": "sdk-user", "sessionId": " ", "merchantVPA": "shop@demobank"}
	})
	apiKey := func() http.Header { return c.APIKeyHeader() }
	return map[string]faultCall{
		contract.OpReferenceToken: {"/api/getSecuredReferenceToken", none, sealed(func() any { return map[string]string{"bName": "DEMOBANK"} })},
		contract.OpAuthToken:      {"/api/GetAuthToken", none, sealed(user)},
		contract.OpSession:        {"/api/GenerateSessionInfoV2", none, sealed(func() any { return map[string]string{"bName": "DEMOBANK", "virtualId": "VU-1"} })},
		contract.OpRegisterEvent:  {"/api/RegisterEvent", none, sealed(user)},
		contract.OpExitEvent:      {"/api/ExitEvent", none, sealed(user)},
		contract.OpBankCard: {"/api/GetScratchCardForBank", none, sealed(func() any {
			return publisher.BankCardRequest{VirtualID: "VU-1", TransDateAndTime: "2026-01-15 09:59:00", Amount: "500.00", MCC: "5411",
				ExtTransactionID: fmt.Sprintf("FK-%d", next()), CampaignID: "CAMP-DEMO", DeviceToken: "device-VU-1"}
		})},
		contract.OpGetReward: {"/api/GetReward", bearer(false), plain(func() any {
			return map[string]any{"channelName": "DEMOBANK", "virtualId": "VU-1", "triggerEventType": "UPI",
				"extTransactionId": fmt.Sprintf("FK-%d", next()), "amount": 10, "dateandtime": "15012026100000"}
		})},
		contract.OpFetchRewardInfo: {"/api/FetchRewardInfo", bearer(true), sealed(func() any {
			// A card of its own, so the answer is a first reveal (signed).
			ref, err := c.ReferenceToken(ctx)
			if err != nil {
				t.Fatal(err)
			}
			amount := 10.0
			_, won, err := c.GetReward(ctx, ref.ReferenceKey, publisher.GetRewardRequest{ChannelName: "DEMOBANK", VirtualID: "VU-1", TriggerEventType: "UPI",
				ExtTransactionID: fmt.Sprintf("FK-%d", next()), Amount: &amount, DateAndTime: "15012026100000"})
			if err != nil || len(won.Rewards) == 0 {
				t.Fatalf("a card to reveal: %v %+v", err, won)
			}
			return map[string]string{"rewardId": fmt.Sprint(won.Rewards[0].RewardID), "virtualId": "VU-1", "channelName": "DEMOBANK"}
		})},
		contract.OpListCards:       {"/api/GetAllScratchCardsByUserId", bearer(true), nil},
		contract.OpSDKIssueAndroid: {"/sdk/getScratchCardDetails", none, sdk},
		contract.OpSDKIssueIOS:     {"/sdk/sendRewardCardRequest", none, sdk},
		contract.OpCatalogue:       {"/api/getCatalogue", apiKey, plain(func() any { return map[string]string{"channelName": "DEMOBANK"} })},
		contract.OpUserCoupons: {"/api/getUserCoupons", apiKey, plain(func() any {
			return map[string]string{"channelName": "DEMOBANK", "virtualId": "VU-1"}
		})},
		contract.OpFetchCoupon: {"/api/fetchCouponCode", apiKey, plain(func() any {
			i := next() // a user of its own each time, under the purchase limit
			return publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: fmt.Sprintf("VU-FK-%d", i), ChannelName: "DEMOBANK",
				ExtTransactionID: fmt.Sprintf("FK-%d", i), CoinsUsed: "100"}
		})},
	}
}

// controlCall sends a JSON body (or none) to the control API.
func controlCall(t *testing.T, method, url string, body any) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(out)
}
