package simtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rewardsim/rewardsim/sim/controlapi"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// Channel is one test's own channel, made like DEMOBANK: the same
// campaigns, pools, offers, switches and keys, with its own stock,
// state, journal entries and clock. Parallel tests each take one.
type Channel struct {
	Name string
	// Client is DEMOBANK's publisher client with only the channel's name
	// changed.
	Client *publisher.Client
	s      *Server
}

var channelCount atomic.Uint64

var notChannelChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Channel makes a run-time channel like DEMOBANK, named after the test.
func (s *Server) Channel(t testing.TB) *Channel {
	t.Helper()
	n := strconv.FormatUint(channelCount.Add(1), 10)
	name := notChannelChars.ReplaceAllString(t.Name(), "-")
	if len(name) > 60-len(n) {
		name = name[len(name)-(60-len(n)):]
	}
	name = "T-" + strings.Trim(name, "-") + "-" + n
	if _, err := s.control(http.MethodPost, "/__sim/channels", map[string]string{"name": name, "like": "DEMOBANK"}); err != nil {
		t.Fatalf("simtest: a channel like DEMOBANK: %v", err)
	}
	c := *s.Client
	c.Channel, c.ChannelID = name, name
	return &Channel{Name: name, Client: &c, s: s}
}

// Count is how many matching exchanges a verification wants.
type Count struct {
	Times, AtLeast, AtMost *int
}

// Times wants exactly n; Never is Times(0).
func Times(n int) Count { return Count{Times: &n} }

// AtLeast wants n or more.
func AtLeast(n int) Count { return Count{AtLeast: &n} }

// AtMost wants n or fewer.
func AtMost(n int) Count { return Count{AtMost: &n} }

// Never wants none.
func Never() Count { return Times(0) }

// Regex is a Where value that matches strings by a regular expression.
func Regex(re string) map[string]string { return map[string]string{"regex": re} }

// Verification is what Verify asserts: the channel's exchanges with
// Endpoint (an operation name) whose request (decoded BDATA, JSON body
// or GET query) has the values of Where at its JSON pointers, from
// journal sequence Since on, counted against Count (zero: at least one).
type Verification struct {
	Endpoint string
	Where    map[string]any
	Since    uint64
	Count    Count
}

// Verdict is the simulator's answer to a verification: the control
// API's own type, so the CLI, this harness and the API say it one way.
type Verdict = controlapi.Verdict

// NearMiss is an exchange that came close, and the first predicate it fails.
type NearMiss = controlapi.NearMiss

// Verify asserts v on the channel; a count that does not hold fails the
// test, listing the near misses.
func (c *Channel) Verify(t testing.TB, v Verification) Verdict {
	t.Helper()
	return c.s.Verify(t, c.Name, v)
}

// Verify asserts v on any channel (see Channel.Verify).
func (s *Server) Verify(t testing.TB, channel string, v Verification) Verdict {
	t.Helper()
	body := map[string]any{"channel": channel, "endpoint": v.Endpoint, "since": v.Since,
		"times": v.Count.Times, "atLeast": v.Count.AtLeast, "atMost": v.Count.AtMost}
	if v.Where != nil {
		body["where"] = v.Where
	}
	for k, x := range body {
		if p, ok := x.(*int); (ok && p == nil) || x == "" || x == uint64(0) {
			delete(body, k)
		}
	}
	out, err := s.control(http.MethodPost, "/__sim/verify", body)
	if err != nil {
		t.Fatalf("simtest: verify: %v", err)
	}
	var got Verdict
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("simtest: verify: %v", err)
	}
	if !got.OK {
		var b strings.Builder
		fmt.Fprintf(&b, "verify %s %s %v: %d matching (seq %v)", channel, v.Endpoint, v.Where, got.Count, got.Matches)
		for _, m := range got.NearMisses {
			fmt.Fprintf(&b, "\n  near miss seq %d %s: %s", m.Seq, m.Endpoint, m.Failed)
		}
		t.Error(b.String())
	}
	return got
}

// Seq is the journal sequence an answer carried (X-Rewardsim-Seq), a
// watermark for Verification.Since; 0 when it carried none.
func Seq(res *publisher.Response) uint64 {
	if res == nil {
		return 0
	}
	n, _ := strconv.ParseUint(res.Header.Get("X-Rewardsim-Seq"), 10, 64)
	return n
}

// control calls the control API and returns the answer body (an error
// for 300 and above).
func (s *Server) control(method, path string, body any) ([]byte, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(method, s.ControlURL+path, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if s.controlToken != "" {
		req.Header.Set("X-Rewardsim-Control-Token", s.controlToken)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err == nil && res.StatusCode >= 300 {
		err = fmt.Errorf("%s %s: HTTP %d %s", method, path, res.StatusCode, out)
	}
	return out, err
}
