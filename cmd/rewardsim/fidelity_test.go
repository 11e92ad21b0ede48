package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// clause: CPN-7, CPN-8, CPN-5, SIM-6
// Against a real `rewardsim serve` on the default scenario, as a publisher
// sees it: the coupon answer's url has & as is (never \u0026) and no order
// id (switches.coupons.orderId is false), and a claim retried with another
// coinsUsed is a CPN-5 finding of the report.
func TestServe_issue16CouponURLAndConflictingRetry(t *testing.T) {
	sv := startBinary(t, buildBinary(t), t.TempDir())
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	c := sv.demoClient(t, key)
	ctx := context.Background()
	for i, coins := range []string{"100", "150"} {
		res, err := c.PostAPIKey(ctx, "/api/fetchCouponCode", publisher.CouponRequest{OfferID: "OFFER-DEMO", VirtualID: "VU-1", ChannelName: "DEMOBANK", ExtTransactionID: "TX-SERVE", CoinsUsed: coins})
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("fetchCouponCode: %v %+v", err, res)
		}
		if i == 0 && (bytes.Contains(res.Body, []byte(`\u0026`)) || !bytes.Contains(res.Body, []byte("&txn=TX-SERVE")) || bytes.Contains(res.Body, []byte("order="))) {
			t.Errorf("coupon answer: want & as is and no order id in the url: %s", res.Body)
		}
	}
	res, err := http.Get(sv.ctlURL + "/__sim/report?channel=DEMOBANK")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if !bytes.Contains(body, []byte(`"id":"coupon-claim-conflicting-duplicate"`)) || !bytes.Contains(body, []byte(`"clause":"CPN-5"`)) {
		t.Errorf("report: want the CPN-5 coupon-claim-conflicting-duplicate finding: %s", body)
	}
}
