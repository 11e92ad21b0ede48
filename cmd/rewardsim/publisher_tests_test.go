package main

// Issue 20: a publisher's test asserts what its service did, against a
// real `rewardsim serve` process on the real clock.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

var issue20Bin struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// issue20Binary builds the binary once for the tests of this file.
func issue20Binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	issue20Bin.once.Do(func() {
		dir, err := os.MkdirTemp("", "rewardsim-issue20-")
		if err != nil {
			issue20Bin.err = err
			return
		}
		issue20Bin.path = filepath.Join(dir, "rewardsim")
		issue20Bin.out, issue20Bin.err = exec.Command("go", "build", "-o", issue20Bin.path, ".").CombinedOutput()
	})
	if issue20Bin.err != nil {
		t.Fatalf("go build: %v\n%s", issue20Bin.err, issue20Bin.out)
	}
	return issue20Bin.path
}

// call sends a control call (a nil body is JSON null) and returns status and body.
func (sv *served) call(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, sv.ctlURL+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return res.StatusCode, out
}

// devKey is the publisher's test key of certs/ (DEMOBANK's).
func devKey(t *testing.T) *publisher.Client {
	t.Helper()
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return &publisher.Client{HTTP: http.DefaultClient, Key: key, AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY"}
}

// channelClient is DEMOBANK's publisher code with only the channel's name changed.
func (sv *served) channelClient(t *testing.T, name string) *publisher.Client {
	c := sv.demoClient(t, devKey(t).Key)
	c.Channel, c.ChannelID = name, name
	return c
}

// issueCard takes a reference token and asks GetReward for one card.
func issueCard(t *testing.T, c *publisher.Client, vid, txn string) publisher.GetRewardAnswer {
	t.Helper()
	ctx := context.Background()
	ref, err := c.ReferenceToken(ctx)
	if err != nil {
		t.Fatalf("%s: reference token: %v", c.Channel, err)
	}
	amount := 250.5
	res, got, err := c.GetReward(ctx, ref.ReferenceKey, publisher.GetRewardRequest{
		ChannelName: c.Channel, VirtualID: vid, TriggerEventType: "UPI", ExtTransactionID: txn, Amount: &amount, DateAndTime: "15012026100000",
	})
	if err != nil || !got.Status || len(got.Rewards) != 1 {
		t.Fatalf("%s: GetReward: %v %s", c.Channel, err, res.Body)
	}
	return got
}

// clause: SIM-3, SIM-2, AUTH-4, GR-2, CPN-1
// A channel made like DEMOBANK issues cards and coupons with DEMOBANK's
// test keys, the answer says what was copied, its coupon stock is its
// own (the first VIP code is handed out in both channels), and it
// survives a restart.
func TestServe_SIM3_channelLikeDemobank(t *testing.T) {
	bin := issue20Binary(t)
	data := t.TempDir()
	sv := startBinary(t, bin, data)
	code, body := sv.call(t, "POST", "/__sim/channels", map[string]any{"name": "CI-A", "like": "DEMOBANK"})
	if code != http.StatusCreated {
		t.Fatalf("POST /__sim/channels like: %d %s", code, body)
	}
	var made struct {
		Name, ChannelID, Like string
		Copied                struct {
			From      string
			Campaigns []string
			Pools     []string
			Offers    []string
			Settings  []string
		}
	}
	_ = json.Unmarshal(body, &made)
	if made.ChannelID != "CI-A" || made.Like != "DEMOBANK" || made.Copied.From != "DEMOBANK" ||
		strings.Join(made.Copied.Campaigns, ",") != "CAMP-DEMO" || strings.Join(made.Copied.Pools, ",") != "DEMO-POOL" ||
		strings.Join(made.Copied.Offers, ",") != "OFFER-DEMO,OFFER-VIP,OFFER-RETIRED" || !strings.Contains(strings.Join(made.Copied.Settings, ","), "switches") {
		t.Fatalf("the answer does not say what was copied: %s", body)
	}
	for _, bad := range []map[string]any{{"name": "CI-B", "like": "NOPE"}, {"name": "CI-B"}, {"name": "DEMOBANK", "like": "DEMOBANK"}} {
		if code, body := sv.call(t, "POST", "/__sim/channels", bad); code < 400 || code >= 500 {
			t.Errorf("POST /__sim/channels %v: %d %s, want a 4xx", bad, code, body)
		}
	}

	ctx := context.Background()
	ci, demo := sv.channelClient(t, "CI-A"), sv.channelClient(t, "DEMOBANK")
	issueCard(t, ci, "VU-1", "T-1")
	for _, c := range []*publisher.Client{ci, demo} {
		cp, err := c.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-VIP", VirtualID: "VIP-1", ChannelName: c.Channel, ExtTransactionID: "TX-" + c.Channel, CoinsUsed: "500"})
		if err != nil || cp.CouponCode != "VIP-ALPHA" {
			t.Fatalf("%s: fetchCouponCode: %v %+v, want the first code of its own stock", c.Channel, err, cp)
		}
	}

	sv.cmd.Process.Kill()
	sv.cmd.Wait()
	sv = startBinary(t, bin, data)
	ci = sv.channelClient(t, "CI-A")
	issueCard(t, ci, "VU-2", "T-2")
	cp, err := ci.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-VIP", VirtualID: "VIP-2", ChannelName: "CI-A", ExtTransactionID: "TX-2", CoinsUsed: "500"})
	if err != nil || cp.CouponCode != "VIP-BRAVO" {
		t.Fatalf("after a restart: fetchCouponCode: %v %+v, want VIP-BRAVO", err, cp)
	}
}

// verdict is POST /__sim/verify's answer.
type verdict struct {
	OK         bool     `json:"ok"`
	Count      int      `json:"count"`
	Matches    []uint64 `json:"matches"`
	NearMisses []struct {
		Seq      uint64 `json:"seq"`
		Endpoint string `json:"endpoint"`
		Failed   string `json:"failed"`
	} `json:"nearMisses"`
}

func (sv *served) verify(t *testing.T, body map[string]any) verdict {
	t.Helper()
	code, out := sv.call(t, "POST", "/__sim/verify", body)
	if code != http.StatusOK {
		t.Fatalf("verify %v: %d %s", body, code, out)
	}
	var doc any
	_ = json.Unmarshal(out, &doc)
	if err := verdictSchema(t).Validate(doc); err != nil {
		t.Errorf("verify answered outside schemas/control.verdict.json: %v\n%s", err, out)
	}
	var v verdict
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

var verdictSchemas = sync.OnceValues(func() (*jsonschema.Schema, error) {
	raw, err := fs.ReadFile(schemas.FS, "control.verdict.json")
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("control.verdict.json", bytes.NewReader(raw)); err != nil {
		return nil, err
	}
	return c.Compile("control.verdict.json")
})

// verdictSchema is schemas/control.verdict.json, compiled once.
func verdictSchema(t *testing.T) *jsonschema.Schema {
	s, err := verdictSchemas()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// coupon claims OFFER-DEMO and returns the answer's X-Rewardsim-Seq.
func coupon(t *testing.T, c *publisher.Client, vid, txn string) uint64 {
	t.Helper()
	res, err := c.PostAPIKey(context.Background(), "/api/fetchCouponCode", publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: vid, ChannelName: c.Channel, ExtTransactionID: txn, CoinsUsed: "100"})
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("fetchCouponCode: %v", err)
	}
	seq, err := strconv.ParseUint(res.Header.Get("X-Rewardsim-Seq"), 10, 64)
	if err != nil || seq == 0 {
		t.Fatalf("fetchCouponCode answered without X-Rewardsim-Seq: %v", res.Header)
	}
	return seq
}

// verifyScenario is one test's use of verify on its own channel: the
// counts hold exactly, at least and never; BDATA is read; since counts
// from a watermark; a failed verify names the closest calls.
// A test run again on the same channel starts by dropping the channel's
// journal entries and state (its own only).
func verifyScenario(t *testing.T, sv *served, channel string) {
	if code, body := sv.call(t, "POST", "/__sim/channels", map[string]any{"name": channel, "like": "DEMOBANK"}); code != http.StatusCreated {
		t.Fatalf("like: %d %s", code, body)
	}
	if code, body := sv.call(t, "DELETE", "/__sim/journal?channel="+channel, nil); code != http.StatusNoContent {
		t.Fatalf("DELETE journal: %d %s", code, body)
	}
	sv.ctl(t, "POST", "/__sim/state/reset", map[string]any{"channel": channel})
	c := sv.channelClient(t, channel)
	if _, err := c.UserToken(context.Background(), "VU-9"); err != nil {
		t.Fatal(err)
	}
	first := coupon(t, c, "VU-1", "T-1")
	coupon(t, c, "VU-1", "T-1") // a retry: same extTransactionId
	mark := coupon(t, c, "VU-2", "T-2")

	for _, tc := range []struct {
		body  map[string]any
		ok    bool
		count int
	}{
		{map[string]any{"endpoint": "fetchCouponCode", "where": map[string]any{"/extTransactionId": "T-1"}, "times": 2}, true, 2},
		{map[string]any{"endpoint": "fetchCouponCode", "where": map[string]any{"/extTransactionId": "T-1"}, "times": 1}, false, 2},
		{map[string]any{"endpoint": "fetchCouponCode", "atLeast": 3}, true, 3},
		{map[string]any{"endpoint": "fetchCouponCode", "where": map[string]any{"/extTransactionId": "T-3"}, "times": 0}, true, 0},
		{map[string]any{"endpoint": "fetchCouponCode", "where": map[string]any{"/virtualId": map[string]any{"regex": "^VU-[12]$"}}, "atMost": 3}, true, 3},
		{map[string]any{"endpoint": "GetAuthToken", "where": map[string]any{"/virtualId": "VU-9", "/channelName": channel}, "times": 1}, true, 1}, // BDATA
		{map[string]any{"endpoint": "fetchCouponCode", "since": mark, "times": 1}, true, 1},
		{map[string]any{"endpoint": "fetchCouponCode", "since": first, "times": 3}, true, 3},
	} {
		tc.body["channel"] = channel
		v := sv.verify(t, tc.body)
		if v.OK != tc.ok || v.Count != tc.count || len(v.Matches) != tc.count {
			t.Errorf("verify %v: %+v, want ok %v count %d", tc.body, v, tc.ok, tc.count)
		}
	}
	v := sv.verify(t, map[string]any{"channel": channel, "endpoint": "fetchCouponCode", "where": map[string]any{"/extTransactionId": "T-4", "/virtualId": "VU-2"}})
	if v.OK || len(v.NearMisses) == 0 || v.NearMisses[0].Endpoint != "fetchCouponCode" || v.NearMisses[0].Failed != `/extTransactionId: want "T-4", got "T-2"` || v.NearMisses[0].Seq != mark {
		t.Errorf("a failed verify does not name the closest call first: %+v", v)
	}
}

// clause: SIM-3, SIM-4, AUTH-1, CPN-1
// Verify counts exact, at least and never, reads decoded BDATA, honours
// since (X-Rewardsim-Seq), and names the closest calls when it fails.
func TestServe_SIM4_verify(t *testing.T) {
	sv := startBinary(t, issue20Binary(t), t.TempDir())
	verifyScenario(t, sv, "CI-V")
	// A bad verify is a 400 in the control API's shape.
	for _, bad := range []map[string]any{
		{"channel": "CI-V", "endpoint": "fetchCoupon"},
		{"channel": "CI-V", "where": map[string]any{"extTransactionId": "T-1"}},
		{"channel": "CI-V", "times": 1, "atLeast": 1},
		{"channel": "CI-V", "where": map[string]any{"/x": map[string]any{"regex": "("}}},
	} {
		if code, out := sv.call(t, "POST", "/__sim/verify", bad); code != http.StatusBadRequest || !strings.Contains(string(out), `"error"`) {
			t.Errorf("verify %v: %d %s, want 400", bad, code, out)
		}
	}
}

// clause: SIM-4, SIM-5
// Eight verify-using tests in parallel, each on its own channel like
// DEMOBANK, against one process, twice in a row.
func TestServe_SIM4_eightParallelTestsTwice(t *testing.T) {
	sv := startBinary(t, issue20Binary(t), t.TempDir())
	for round := 1; round <= 2; round++ {
		t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) {
			for i := 1; i <= 8; i++ {
				name := fmt.Sprintf("PAR-%d", i) // the same channels both rounds
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					verifyScenario(t, sv, name)
				})
			}
		})
	}
}

// clause: SIM-4
// Every public answer carries X-Rewardsim-Seq, the sequence of its
// journal entry; an unknown journal filter is 400 naming the known ones;
// the journal takes where predicates; deleting one channel's journal
// leaves the other channels' entries.
func TestServe_SIM4_watermarksAndStrictJournal(t *testing.T) {
	sv := startBinary(t, issue20Binary(t), t.TempDir())
	for _, ch := range []string{"CI-J1", "CI-J2"} {
		sv.ctl(t, "POST", "/__sim/channels", map[string]any{"name": ch, "like": "DEMOBANK"})
	}
	c1, c2 := sv.channelClient(t, "CI-J1"), sv.channelClient(t, "CI-J2")
	seq := coupon(t, c1, "VU-1", "T-1")
	coupon(t, c2, "VU-1", "T-1")
	for _, path := range []string{"/api/nowhere", "/api/getCatalogue"} { // a 404 and a refusal carry it too
		res, err := http.Post(sv.publicURL+path, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if n, err := strconv.ParseUint(res.Header.Get("X-Rewardsim-Seq"), 10, 64); err != nil || n <= seq {
			t.Errorf("%s: X-Rewardsim-Seq %q, want a number after %d", path, res.Header.Get("X-Rewardsim-Seq"), seq)
		}
	}
	var page struct {
		Entries []struct {
			Seq     uint64 `json:"seq"`
			Channel string `json:"channel"`
		} `json:"entries"`
	}
	code, body := sv.call(t, "GET", "/__sim/journal?channel=CI-J1&where=/extTransactionId=T-1&where=/virtualId~=%5EVU-", nil)
	if _ = json.Unmarshal(body, &page); code != 200 || len(page.Entries) != 1 || page.Entries[0].Seq != seq {
		t.Fatalf("journal with where: %d %s, want the entry %d only", code, body, seq)
	}
	code, body = sv.call(t, "GET", "/__sim/journal?extTransactionId=NOPE", nil)
	if code != http.StatusBadRequest || !strings.Contains(string(body), "known are after, channel, endpoint") {
		t.Errorf("unknown journal filter: %d %s, want 400 naming the known ones", code, body)
	}
	if code, body := sv.call(t, "DELETE", "/__sim/journal?channel=CI-J1", nil); code != http.StatusNoContent {
		t.Fatalf("DELETE journal?channel: %d %s", code, body)
	}
	for ch, want := range map[string]int{"CI-J1": 0, "CI-J2": 1} {
		_, body := sv.call(t, "GET", "/__sim/journal?endpoint=fetchCouponCode&channel="+ch, nil)
		page.Entries = nil
		_ = json.Unmarshal(body, &page)
		if len(page.Entries) != want {
			t.Errorf("after deleting CI-J1's journal, %s has %d fetchCouponCode entries, want %d", ch, len(page.Entries), want)
		}
	}
}

// clause: SIM-3, TOK-3, SIM-2
// Advancing one channel's clock expires its user tokens and no other
// channel's; its journal entries are stamped on its own time; the global
// clock moves only the channels without a clock of their own; a
// channel's clock survives a restart and can be handed back.
func TestServe_SIM3_channelClock(t *testing.T) {
	bin, data := issue20Binary(t), t.TempDir()
	sv := startBinary(t, bin, data)
	for _, ch := range []string{"CI-K1", "CI-K2"} {
		sv.ctl(t, "POST", "/__sim/channels", map[string]any{"name": ch, "like": "DEMOBANK"})
	}
	ctx := context.Background()
	c1, c2 := sv.channelClient(t, "CI-K1"), sv.channelClient(t, "CI-K2")
	u1, err := c1.UserToken(ctx, "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	u2, err := c2.UserToken(ctx, "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	before := sv.ctl(t, "GET", "/__sim/clock", nil)["now"].(string)
	moved := sv.ctl(t, "POST", "/__sim/clock/advance", map[string]any{"channel": "CI-K1", "by": "31m"})
	if moved["channel"] != "CI-K1" || moved["own"] != true {
		t.Fatalf("advance with channel: %v", moved)
	}
	expired := func(ch string) bool {
		u := sv.ctl(t, "GET", "/__sim/state/users/"+ch+"/VU-1", nil)
		toks, _ := u["tokens"].([]any)
		if len(toks) != 1 {
			t.Fatalf("%s: tokens %v", ch, u)
		}
		return toks[0].(map[string]any)["expired"].(bool)
	}
	if !expired("CI-K1") || expired("CI-K2") {
		t.Fatalf("after CI-K1's clock moved 31m: CI-K1 expired %v, CI-K2 expired %v; want true, false", expired("CI-K1"), expired("CI-K2"))
	}
	if res, _, _ := c1.ListCards(ctx, u1.Token, ""); res == nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("CI-K1's expired user token still lists cards: %+v", res)
	}
	if res, _, err := c2.ListCards(ctx, u2.Token, ""); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("CI-K2's user token was expired by CI-K1's clock: %v %+v", err, res)
	}
	// The journal stamps CI-K1's exchanges on its own time.
	var page struct {
		Entries []struct {
			At time.Time `json:"at"`
		} `json:"entries"`
	}
	if _, err := c1.UserToken(ctx, "VU-2"); err != nil {
		t.Fatal(err)
	}
	_, body := sv.call(t, "GET", "/__sim/journal?channel=CI-K1&endpoint=GetAuthToken&where=/virtualId=VU-2", nil)
	_ = json.Unmarshal(body, &page)
	g, _ := time.Parse(time.RFC3339Nano, before)
	if len(page.Entries) != 1 || page.Entries[0].At.Sub(g) < 30*time.Minute {
		t.Errorf("CI-K1's listing is not stamped on its own clock (global %s): %s", before, body)
	}
	// The global clock moves CI-K2, not CI-K1.
	k1 := sv.ctl(t, "GET", "/__sim/clock?channel=CI-K1", nil)["now"].(string)
	sv.ctl(t, "POST", "/__sim/clock", map[string]any{"mode": "frozen", "time": "2030-01-01T00:00:00Z"})
	if got := sv.ctl(t, "GET", "/__sim/clock?channel=CI-K2", nil); !strings.HasPrefix(got["now"].(string), "2030-01-01") || got["own"] != false {
		t.Errorf("the global clock did not move CI-K2: %v", got)
	}
	t1, _ := time.Parse(time.RFC3339Nano, k1)
	got, _ := time.Parse(time.RFC3339Nano, sv.ctl(t, "GET", "/__sim/clock?channel=CI-K1", nil)["now"].(string))
	if got.Year() == 2030 || got.Sub(t1) > time.Minute {
		t.Errorf("the global clock moved CI-K1's own clock: %s -> %s", k1, got)
	}
	sv.ctl(t, "POST", "/__sim/clock", map[string]any{"channel": "CI-K1", "mode": "frozen", "time": "2027-06-01T00:00:00Z"})
	sv.cmd.Process.Kill()
	sv.cmd.Wait()
	sv = startBinary(t, bin, data)
	if got := sv.ctl(t, "GET", "/__sim/clock?channel=CI-K1", nil); !strings.HasPrefix(got["now"].(string), "2027-06-01") {
		t.Errorf("CI-K1's clock after a restart: %v", got)
	}
	if code, body := sv.call(t, "GET", "/__sim/clock?channel=NOPE", nil); code != http.StatusNotFound {
		t.Errorf("clock of an unknown channel: %d %s", code, body)
	}
	// Handed back, CI-K1 follows the global clock again (frozen at 2030).
	if got := sv.ctl(t, "DELETE", "/__sim/clock?channel=CI-K1", nil); got["own"] != false || !strings.HasPrefix(got["now"].(string), "2030-01-01") {
		t.Errorf("DELETE /__sim/clock?channel=CI-K1: %v", got)
	}
	if code, body := sv.call(t, "DELETE", "/__sim/clock?channel=CI-K1", nil); code != http.StatusNotFound {
		t.Errorf("a second DELETE: %d %s", code, body)
	}
}

// clause: SIM-1, SIM-3, GR-2, CPN-1
// An overlay that lists only a fault keeps DEMOBANK's campaigns and
// fires the fault; GET /__sim/scenarios/{name} returns it merged with
// secrets masked; validate reports an overlay's problem at its own line;
// `rewardsim scenario show default` prints the embedded scenario.
func TestServe_SIM1_scenarioOverlay(t *testing.T) {
	bin := issue20Binary(t)
	sv := startBinary(t, bin, t.TempDir())
	overlay := "extends: default\nfaults:\n  - {id: ov-boom, endpoint: fetchCouponCode, virtualId: OV-1, action: {kind: internal-error}}\n"
	req, _ := http.NewRequest("POST", sv.ctlURL+"/__sim/scenarios?name=ci-ov.yaml&activate=true&channel=DEMOBANK", strings.NewReader(overlay))
	req.Header.Set("Content-Type", "application/yaml")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode >= 300 {
		t.Fatalf("upload overlay: %d %s", res.StatusCode, body)
	}
	if got, _ := sv.ctl(t, "GET", "/__sim/scenarios/active?channel=DEMOBANK", nil)["scenario"].(map[string]any); got["name"] != "ci-ov" {
		t.Fatalf("active for DEMOBANK: %v", got)
	}
	demo := sv.channelClient(t, "DEMOBANK")
	issueCard(t, demo, "VU-1", "T-OV") // CAMP-DEMO kept
	ctx := context.Background()
	if _, err := demo.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "OV-1", ChannelName: "DEMOBANK", ExtTransactionID: "TX-OV", CoinsUsed: "100"}); err == nil {
		t.Error("the overlay's fault did not fire")
	}
	if _, err := demo.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "OV-2", ChannelName: "DEMOBANK", ExtTransactionID: "TX-OV2", CoinsUsed: "100"}); err != nil {
		t.Errorf("a user the fault does not name: %v", err)
	}
	code, yml := sv.call(t, "GET", "/__sim/scenarios/ci-ov", nil)
	for _, want := range []string{"name: ci-ov", "id: CAMP-DEMO", "id: ov-boom", "id: coupon-internal-error", "secKey: ~masked"} {
		if code != http.StatusOK || !strings.Contains(string(yml), want) {
			t.Errorf("GET /__sim/scenarios/ci-ov: %d, no %q in\n%s", code, want, yml)
		}
	}
	if strings.Contains(string(yml), "DEMOSECKEY") {
		t.Error("GET /__sim/scenarios/ci-ov shows the secKey")
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	_ = os.WriteFile(bad, []byte("extends: default\nname: bad\nfaults:\n  - {id: x, endpoint: NoSuchOp, action: {kind: internal-error}}\n"), 0o644)
	out, code2 := cli(t, bin, nil, "validate", bad)
	if code2 != 1 || !strings.Contains(out, bad+":4: /faults/0/endpoint") {
		t.Errorf("validate of a bad overlay: exit %d\n%s\nwant the problem at line 4", code2, out)
	}
	good := filepath.Join(dir, "good.yaml")
	_ = os.WriteFile(good, []byte(overlay), 0o644)
	if out, code := cli(t, bin, nil, "validate", good); code != 0 {
		t.Errorf("validate of a good overlay: exit %d\n%s", code, out)
	}
	embedded, _ := os.ReadFile("../../scenarios/default.yaml")
	out, code2 = cli(t, bin, nil, "scenario", "show", "default", "--control", "http://127.0.0.1:1")
	if code2 != 0 || out != string(embedded) {
		t.Errorf("scenario show default: exit %d\n%.200s", code2, out)
	}
	out, code2 = cli(t, bin, nil, "scenario", "show", "ci-ov", "--control", sv.ctlURL)
	if code2 != 0 || !strings.Contains(out, "id: ov-boom") {
		t.Errorf("scenario show ci-ov: exit %d\n%.300s", code2, out)
	}
}

// clause: SIM-4
// `rewardsim verify` exits 0 when the count holds, 1 printing the near
// misses, 2 when it could not ask.
func TestServe_SIM4_verifyCommand(t *testing.T) {
	bin := issue20Binary(t)
	sv := startBinary(t, bin, t.TempDir())
	sv.ctl(t, "POST", "/__sim/channels", map[string]any{"name": "CI-CLI", "like": "DEMOBANK"})
	c := sv.channelClient(t, "CI-CLI")
	seq := coupon(t, c, "VU-1", "T-1")
	env := []string{"REWARDSIM_CONTROL_URL=" + sv.ctlURL}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--where", "/extTransactionId=T-1", "--where", "/coinsUsed=100", "--times", "1"}, 0, "ok: 1 matching"},
		{[]string{"--where", "/virtualId~=^VU-", "--at-least", "1", "--since", strconv.FormatUint(seq, 10)}, 0, "ok: 1 matching"},
		{[]string{"--where", "/extTransactionId=T-2", "--times", "1"}, 1, `/extTransactionId: want "T-2", got "T-1"`},
		{[]string{"--times", "0"}, 1, "near misses:"},
		{[]string{"--at-most", "0", "--since", strconv.FormatUint(seq+1, 10)}, 0, "ok: 0 matching"},
		{[]string{"--where", "extTransactionId=T-1"}, 2, "want /pointer=value"},
		// issue 51: an unknown operation name gets a did-you-mean, as a pointer does.
		{[]string{"--endpoint", "fetchCoupon"}, 2, `endpoint "fetchCoupon" is not an operation name (did you mean fetchCouponCode?)`},
		{[]string{"--endpoint", "getreward"}, 2, `endpoint "getreward" is not an operation name (did you mean GetReward?)`},
		// issue 39: a misspelt field or channel cannot make "never" pass.
		{[]string{"--where", "/extTransactionID=T-1", "--times", "0"}, 2, "did you mean /extTransactionId?"},
		{[]string{"--channel", "CI-NOPE", "--times", "0"}, 2, `channel "CI-NOPE" is not registered`},
	} {
		args := append([]string{"verify", "--channel", "CI-CLI", "--endpoint", "fetchCouponCode"}, tc.args...)
		out, code := cli(t, bin, env, args...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d\n%s\nwant exit %d and %q", args, code, out, tc.code, tc.want)
		}
	}
}
