package main

// Issue 20: a publisher's test asserts what its service did, against a
// real `rewardsim serve` process on the real clock.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
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
