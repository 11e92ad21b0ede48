package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// clause: LIST-1
// A page of cards too large for net/http's 2 KB buffer (twelve cards,
// half revealed) reaches the client from a real process with its
// Content-Length, not chunked, and is the listing the client decodes.
func TestServe_LIST1_largePageCarriesContentLength(t *testing.T) {
	sv := startBinary(t, issue20Binary(t), t.TempDir())
	c := sv.demoClient(t, devKey(t).Key)
	ctx := context.Background()
	const vid = "VU-FRAMING"
	user, err := c.UserToken(ctx, vid)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		got := issueCard(t, c, vid, fmt.Sprintf("FRAMING-%d", i))
		if i%2 == 0 {
			if _, _, err := c.FetchRewardInfo(ctx, user.Token, vid, got.Rewards[0].RewardID); err != nil {
				t.Fatalf("reveal %d: %v", i, err)
			}
		}
	}
	req, _ := http.NewRequest(http.MethodGet, sv.publicURL+"/api/GetAllScratchCardsByUserId?limit=50", nil)
	req.Header.Set("Authorization", "Bearer "+user.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("listing: %v %d %s", err, res.StatusCode, body)
	}
	if len(body) <= 4096 {
		t.Fatalf("the page is %d bytes: too small to show the framing of a large answer", len(body))
	}
	if res.ContentLength != int64(len(body)) || len(res.TransferEncoding) != 0 {
		t.Errorf("a %d-byte page came with Content-Length %d and Transfer-Encoding %q", len(body), res.ContentLength, res.TransferEncoding)
	}
	if _, list, err := c.ListCards(ctx, user.Token, "limit=50"); err != nil || list.Total != 12 || len(list.Rewards) != 12 {
		t.Fatalf("decoded listing: %v, total %d, %d cards", err, list.Total, len(list.Rewards))
	}
}
