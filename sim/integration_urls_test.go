package sim_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// get fetches url and returns status, content type and body.
func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Content-Type"), string(body)
}

// clause: HOST-1, TRK-1, REV-1, BANK-1
// In split mode every URL the simulator hands out is absolute and works:
// imagery, banners and tracking are the simulator's own resources and
// answer on every public host, while contract paths stay on their host.
func TestHandedOutURLsWorkInSplitMode_HOST1(t *testing.T) {
	e := newCardEnv(t, simtest.WithSplitHosts())
	id := e.issue("VU-U", "UPI")
	_, rw, err := e.reveal(e.userToken("VU-U"), "VU-U", id)
	if err != nil {
		t.Fatal(err)
	}
	for name, u := range map[string]string{"couponImage": rw.CouponImage, "coverImage": rw.CoverImage, "iconImage": rw.IconImage, "bannerDisplayUrl": rw.BannerDisplayURL} {
		if !strings.HasPrefix(u, e.s.RewardsURL+"/assets/") {
			t.Errorf("%s = %q, want an absolute URL on the host that answered", name, u)
			continue
		}
		if st, ct, _ := get(t, u); st != 200 || !strings.HasPrefix(ct, "image/svg+xml") {
			t.Errorf("%s %s: HTTP %d %s", name, u, st, ct)
		}
	}

	_, card, err := e.s.Client.BankCard(e.ctx, bankReq("VU-U", "EXT-U"))
	if err != nil || !strings.HasPrefix(card.Banner, e.s.BankURL+"/assets/") {
		t.Fatalf("bank banner %q (%v), want an absolute URL on the bank host", card.Banner, err)
	}
	if st, _, _ := get(t, card.Banner); st != 200 {
		t.Errorf("banner %s: HTTP %d", card.Banner, st)
	}

	// A tracking URL works on every host (the microsite, on the bank host,
	// hands out bank-host URLs); a contract path does not.
	_, ans := e.getReward(e.req("VU-U", "UPI"))
	imp := ans.Rewards[0].TrackLink[0]
	onBank := strings.Replace(imp, e.s.RewardsURL, e.s.BankURL, 1)
	if st, _, body := get(t, onBank); st != http.StatusNoContent {
		t.Fatalf("impression on the bank host: HTTP %d %s", st, body)
	}
	if st, _, _ := get(t, e.s.HotdealsURL+"/api/GetAllScratchCardsByUserId"); st != http.StatusNotFound {
		t.Fatalf("a rewards contract path on the hotdeals host: HTTP %d, want 404", st)
	}
	user := ctlOK(t, e.s, http.StatusOK, "GET", "/__sim/state/users/DEMOBANK/VU-U", nil)
	if cs, _ := user["cards"].([]any); len(cs) != 3 {
		t.Errorf("state read: %d cards, want 3", len(cs))
	}
}
