package sim_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: ENV-6
// A body over the 1 MiB limit gets the same documented answer on every
// endpoint that reads a body: HTTP 413 and the words "request body is
// larger than 1 MiB" in the endpoint's own error shape, whatever the
// endpoint's switches say about other bad input. (RegisterEvent and
// ExitEvent answer that they do not exist, whatever the body.)
func TestBodyLimit_ENV6_sameAnswerOnEveryEndpoint(t *testing.T) {
	s := simtest.New(t)
	ref, user := tokens(t, s.Client)
	big := bytes.Repeat([]byte("a"), 1<<20+10)
	type target struct{ name, url, auth string }
	var targets []target
	for _, op := range contract.Ops {
		if op.Method != http.MethodPost || op.Response == "not-available" {
			continue
		}
		base := map[contract.Host]string{contract.Rewards: s.RewardsURL, contract.Bank: s.BankURL, contract.Hotdeals: s.HotdealsURL}[op.Host]
		auth := map[contract.Auth]string{contract.BearerRef: "Bearer " + ref, contract.BearerUser: "Bearer " + user, contract.APIKey: "ServiceAppKey DEMOAPPKEY:DEMOSECKEY"}[op.Auth]
		targets = append(targets, target{op.Name, base + op.Path, auth})
	}
	targets = append(targets, target{"microsite scratch", s.BankURL + "/microsite/scratch", ""}, target{"control faults", s.ControlURL + "/__sim/faults", ""})
	if len(targets) < 10 {
		t.Fatalf("only %d endpoints", len(targets))
	}
	for _, tg := range targets {
		req, _ := http.NewRequest(http.MethodPost, tg.url, bytes.NewReader(big))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CHANNELID", "DEMOBANK")
		if tg.auth != "" {
			req.Header.Set("Authorization", tg.auth)
		}
		res, err := s.HTTP.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "request body is larger than 1 MiB") {
			t.Errorf("%s: HTTP %d %.200s, want 413 saying the body is larger than 1 MiB", tg.name, res.StatusCode, body)
		}
	}
}
