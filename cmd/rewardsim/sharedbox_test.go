package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// Issue 42, item 7, on `rewardsim serve --shared-box`: a channel made like
// DEMOBANK gets fresh credentials and key pair, returned once, so job A
// knowing only its own cannot act as DEMOBANK (job B) nor B as A; and
// the routes that need no credential act only on what a credentialed
// call of the channel issued: SDK issuance only for a user with a live
// session, a coupon URL only when it names a delivered coupon.
func TestServe_sharedBoxIsolatesCopies(t *testing.T) {
	bin, data := issue20Binary(t), t.TempDir()
	cmd, urls := startServe(t, bin, data, "--shared-box")
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	control, base := urls["control"], urls["all"]
	st, out, _ := ctlCall(t, control, "POST", "/__sim/channels", map[string]any{"name": "JOBA", "like": "DEMOBANK"})
	var made struct {
		Credentials *struct{ AppKey, SecKey, Certificate, PrivateKey string }
	}
	if err := json.Unmarshal(out, &made); st != http.StatusCreated || err != nil || made.Credentials == nil {
		t.Fatalf("register JOBA like DEMOBANK: HTTP %d %s, want fresh credentials", st, out)
	}
	cr := made.Credentials
	devCert, _ := fs.ReadFile(certs.FS, certs.PublisherCert)
	if cr.AppKey == "DEMOAPPKEY" || cr.SecKey == "DEMOSECKEY" || cr.SecKey == "" || cr.Certificate == string(devCert) || !strings.Contains(cr.PrivateKey, "PRIVATE KEY") {
		t.Fatalf("JOBA's credentials are not fresh: %+v", cr)
	}
	freshKey, err := publisher.ParsePrivateKeyPEM([]byte(cr.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	devPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	devKey, _ := publisher.ParsePrivateKeyPEM(devPEM)
	joba := &publisher.Client{HTTP: http.DefaultClient, RewardsURL: base, BankURL: base, HotdealsURL: base,
		ChannelID: "JOBA", Channel: "JOBA", Key: freshKey, AppKey: cr.AppKey, SecKey: cr.SecKey}
	asB := *joba
	asB.Key, asB.AppKey, asB.SecKey = devKey, "DEMOAPPKEY", "DEMOSECKEY" // DEMOBANK's, which JOBA once shared
	ctx := context.Background()
	if _, err := joba.ReferenceToken(ctx); err != nil {
		t.Errorf("a signed call with JOBA's fresh key: %v", err)
	}
	if _, err := asB.ReferenceToken(ctx); err == nil {
		t.Error("DEMOBANK's key signs for JOBA")
	}
	claim := publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "U1", ExtTransactionID: "TX-A1", CoinsUsed: "100"}
	if _, err := asB.FetchCouponCode(ctx, claim); err == nil {
		t.Error("DEMOBANK's appKey/secKey claim coupons of JOBA")
	}

	sdk := func(virtualID string) (int, string) {
		body, _ := json.Marshal(map[string]any{"channelName": "JOBA", "triggerEventType": "UPI", "amount": 250.5, "extTransactionId": "SDK" + strings.ReplaceAll(virtualID, "-", ""),
			"dateandtime": "15012026100000", "virtualId": virtualID, "sessionId": " ", "merchantVPA": "shop@demobank"})
		res, err := http.Post(base+"/sdk/getScratchCardDetails", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(out)
	}
	if code, out := sdk("NO-SESSION"); code == http.StatusOK || !strings.Contains(out, "no live session") {
		t.Errorf("SDK issuance for a user no credentialed call gave a session: HTTP %d %s, want refused", code, out)
	}
	if _, err := joba.Session(ctx, "WITH-SESSION"); err != nil {
		t.Fatalf("GenerateSessionInfoV2 with JOBA's key: %v", err)
	}
	if code, out := sdk("WITH-SESSION"); code != http.StatusOK {
		t.Errorf("SDK issuance for a user with a live session: HTTP %d %s, want 200", code, out)
	}

	follow := func(q url.Values) int {
		res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).
			Get(base + "/hotdeals/r/JOBA/OFFER-DEMO?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := follow(url.Values{"vid": {"U1"}, "txn": {"TX-FORGED"}}); code != http.StatusNotFound {
		t.Errorf("a coupon URL naming no delivered coupon: HTTP %d, want 404", code)
	}
	cp, err := joba.FetchCouponCode(ctx, claim)
	if err != nil {
		t.Fatalf("JOBA claims with its fresh appKey/secKey: %v", err)
	}
	u, _ := url.Parse(cp.URL)
	if code := follow(u.Query()); code != http.StatusFound {
		t.Errorf("the delivered coupon's own URL %s: HTTP %d, want 302", cp.URL, code)
	}

	// After a restart the copy keeps its own key (the store kept the public half).
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	cmd, urls = startServe(t, bin, data, "--shared-box")
	joba.RewardsURL, joba.BankURL, joba.HotdealsURL = urls["all"], urls["all"], urls["all"]
	asB.RewardsURL = urls["all"]
	if _, err := joba.ReferenceToken(ctx); err != nil {
		t.Errorf("after a restart, a signed call with JOBA's fresh key: %v", err)
	}
	if _, err := asB.ReferenceToken(ctx); err == nil {
		t.Error("after a restart, DEMOBANK's key signs for JOBA")
	}
}
