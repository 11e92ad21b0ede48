package controlapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

// Every typed call sends its route's method, path (names escaped), query
// and body, with the body's content type: the CLI's verbs spell none of
// these themselves.
func TestTypedCalls(t *testing.T) {
	var got struct{ method, path, query, ctype, body string }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.method, got.path, got.query, got.ctype, got.body = r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Get("Content-Type"), string(b)
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	c := &Client{Base: srv.URL}
	ctx := context.Background()
	cases := []struct {
		name                             string
		call                             func() (*Answer, error)
		method, path, query, ctype, body string
	}{
		{"channels", func() (*Answer, error) { return c.Channels(ctx) }, "GET", "/__sim/channels", "", "", ""},
		{"register", func() (*Answer, error) { return c.RegisterChannel(ctx, map[string]string{"name": "A"}) }, "POST", "/__sim/channels", "", "application/json", `{"name":"A"}`},
		{"token", func() (*Answer, error) { return c.ChannelToken(ctx, "a/b") }, "POST", "/__sim/channels/a%2Fb/token", "", "", ""},
		{"remove", func() (*Answer, error) { return c.RemoveChannel(ctx, "A") }, "DELETE", "/__sim/channels/A", "", "", ""},
		{"clock of a channel", func() (*Answer, error) { return c.Clock(ctx, "A") }, "GET", "/__sim/clock", "channel=A", "", ""},
		{"global clock", func() (*Answer, error) { return c.Clock(ctx, "") }, "GET", "/__sim/clock", "", "", ""},
		{"advance", func() (*Answer, error) { return c.AdvanceClock(ctx, ClockMove{By: "2h"}) }, "POST", "/__sim/clock/advance", "", "application/json", `{"by":"2h"}`},
		{"set", func() (*Answer, error) {
			return c.SetClock(ctx, ClockMove{Mode: "frozen", Time: "2026-01-15T10:00:00Z", Channel: "A"})
		}, "POST", "/__sim/clock", "", "application/json", `{"mode":"frozen","time":"2026-01-15T10:00:00Z","channel":"A"}`},
		{"drop clock", func() (*Answer, error) { return c.DropClock(ctx, "A") }, "DELETE", "/__sim/clock", "channel=A", "", ""},
		{"arm", func() (*Answer, error) {
			return c.ArmFault(ctx, FaultRule{Endpoint: "GetReward", Times: 1, Action: FaultAction{Kind: "delay", Delay: Duration(2 * time.Second)}})
		}, "POST", "/__sim/faults", "", "application/json", `{"endpoint":"GetReward","times":1,"action":{"kind":"delay","delay":"2s"}}`},
		{"active faults", func() (*Answer, error) { return c.Faults(ctx, true) }, "GET", "/__sim/faults", "active=true", "", ""},
		{"disarm", func() (*Answer, error) { return c.DisarmFault(ctx, "r 1") }, "DELETE", "/__sim/faults/r%201", "", "", ""},
		{"disarm all", func() (*Answer, error) { return c.DisarmFaults(ctx) }, "DELETE", "/__sim/faults", "", "", ""},
		{"journal", func() (*Answer, error) { return c.Journal(ctx, url.Values{"after": {"3"}}) }, "GET", "/__sim/journal", "after=3", "", ""},
		{"clear journal", func() (*Answer, error) { return c.ClearJournal(ctx, "A") }, "DELETE", "/__sim/journal", "channel=A", "", ""},
		{"upload", func() (*Answer, error) {
			return c.UploadScenario(ctx, []byte("name: x\n"), url.Values{"activate": {"true"}})
		}, "POST", "/__sim/scenarios", "activate=true", "application/yaml", "name: x\n"},
		{"activate", func() (*Answer, error) { return c.ActivateScenario(ctx, "x", "A") }, "POST", "/__sim/scenarios/x/activate", "", "application/json", `{"channel":"A"}`},
		{"activate for all", func() (*Answer, error) { return c.ActivateScenario(ctx, "x", "") }, "POST", "/__sim/scenarios/x/activate", "", "application/json", `{}`},
		{"active scenario", func() (*Answer, error) { return c.ActiveScenario(ctx, "A") }, "GET", "/__sim/scenarios/active", "channel=A", "", ""},
		{"reset", func() (*Answer, error) { return c.ResetState(ctx, "A") }, "POST", "/__sim/state/reset", "", "application/json", `{"channel":"A"}`},
		{"user", func() (*Answer, error) { return c.UserState(ctx, "A", "u/1") }, "GET", "/__sim/state/users/A/u%2F1", "", "", ""},
		{"story", func() (*Answer, error) { return c.ApplyStory(ctx, "stock-out", "A") }, "POST", "/__sim/stories/stock-out/apply", "channel=A", "", ""},
		{"clear stories", func() (*Answer, error) { return c.ClearStories(ctx, "A") }, "POST", "/__sim/stories/clear", "channel=A", "", ""},
		{"switch reset one", func() (*Answer, error) { return c.ResetSwitches(ctx, "tokens.ttl", "A") }, "DELETE", "/__sim/switches/tokens.ttl", "channel=A", "", ""},
		{"switch reset all", func() (*Answer, error) { return c.ResetSwitches(ctx, "", "") }, "DELETE", "/__sim/switches", "", "", ""},
		{"verify", func() (*Answer, error) { return c.Verify(ctx, map[string]int{"count": 1}) }, "POST", "/__sim/verify", "", "application/json", `{"count":1}`},
		{"webhook", func() (*Answer, error) {
			return c.PushWebhook(ctx, map[string]string{"status": "USED"}, url.Values{"wait": {"1s"}})
		}, "POST", "/__sim/webhooks", "wait=1s", "application/json", `{"status":"USED"}`},
		{"health", func() (*Answer, error) { return c.Health(ctx) }, "GET", "/__sim/health", "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.call(); err != nil {
				t.Fatal(err)
			}
			want := struct{ method, path, query, ctype, body string }{tc.method, tc.path, tc.query, tc.ctype, tc.body}
			if got != want {
				t.Errorf("sent %+v, want %+v", got, want)
			}
		})
	}
}
