package sim_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: HOST-1
func TestSplitHosts_HOST1(t *testing.T) {
	s := simtest.New(t, simtest.WithSplitHosts())
	if s.RewardsURL == s.BankURL || s.BankURL == s.HotdealsURL {
		t.Fatal("split mode did not give each host its own listener")
	}
	cases := []struct {
		host, path string
		status     int
	}{
		{s.RewardsURL, "/api/getSecuredReferenceToken", 200},
		{s.RewardsURL, "/api/GetAuthToken", 200},
		{s.BankURL, "/api/GenerateSessionInfoV2", 200},
		{s.BankURL, "/api/getSecuredReferenceToken", 404},
		{s.HotdealsURL, "/api/GetAuthToken", 404},
		{s.RewardsURL, "/api/GenerateSessionInfoV2", 404},
		{s.HotdealsURL, "/api/GenerateSessionInfoV2", 404},
		{s.RewardsURL, "/__sim/health", 404}, // the control API listens apart
	}
	for _, c := range cases {
		t.Run(c.path+" on "+c.host, func(t *testing.T) {
			res, err := s.Client.Do(context.Background(), http.MethodPost, c.host+c.path, nil, []byte(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != c.status {
				t.Fatalf("HTTP %d %s, want %d", res.StatusCode, res.Body, c.status)
			}
		})
	}
}

// clause: HOST-1 (one listener serves every host's paths)
func TestCombinedHosts_HOST1(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	if _, err := s.Client.ReferenceToken(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.Session(ctx, "VU-1"); err != nil {
		t.Fatal(err)
	}
}
