package controlapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// controlStub answers like the control API: 401 without the token, a
// scenario with its hash header, 404 for an unknown one, and a fault
// rule echoed back with an id.
func controlStub(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(TokenHeader) != "tok" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"control token required"}`)
			return
		}
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/__sim/scenarios/default":
			w.Header().Set("X-Rewardsim-Scenario-Sha256", "abc")
			io.WriteString(w, "name: default\n")
		case r.Method == http.MethodGet && r.URL.Path == "/__sim/scenarios/active":
			io.WriteString(w, `{"channel":"`+r.URL.Query().Get("channel")+`"}`)
		case r.Method == http.MethodPost && r.URL.Path == "/__sim/faults":
			if r.Header.Get("Content-Type") != "application/json" {
				w.WriteHeader(http.StatusUnsupportedMediaType)
				return
			}
			var rule map[string]any
			if err := json.NewDecoder(r.Body).Decode(&rule); err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			rule["id"] = "f1"
			json.NewEncoder(w).Encode(rule)
		case r.Method == http.MethodGet && r.URL.Path == "/__sim/broken":
			io.WriteString(w, "not json")
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "no such thing")
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSend(t *testing.T) {
	srv := controlStub(t)
	ctx := context.Background()
	cases := []struct {
		name, token, path string
		q                 url.Values
		status            int
		body, sha         string
	}{
		{"found, with its header", "tok", "/__sim/scenarios/default", nil, http.StatusOK, "name: default\n", "abc"},
		{"query carried", "tok", "/__sim/scenarios/active", url.Values{"channel": {"a b"}}, http.StatusOK, `{"channel":"a b"}`, ""},
		{"not found is an answer, not an error", "tok", "/__sim/scenarios/other", nil, http.StatusNotFound, "no such thing", ""},
		{"no token", "", "/__sim/scenarios/default", nil, http.StatusUnauthorized, `{"error":"control token required"}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{Base: srv.URL + "/", Token: tc.token}
			a, err := c.Send(ctx, http.MethodGet, tc.path, tc.q, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if a.Status != tc.status || string(a.Body) != tc.body || a.Header.Get("X-Rewardsim-Scenario-Sha256") != tc.sha {
				t.Fatalf("got %d %q sha %q, want %d %q sha %q", a.Status, a.Body, a.Header.Get("X-Rewardsim-Scenario-Sha256"), tc.status, tc.body, tc.sha)
			}
		})
	}
}

func TestDoRefusals(t *testing.T) {
	srv := controlStub(t)
	cases := []struct {
		name, token, path, want string
	}{
		{"the simulator's message", "", "/__sim/faults", "HTTP 401: control token required"},
		{"a plain body", "tok", "/__sim/nothing", "HTTP 404: no such thing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{Base: srv.URL, Token: tc.token}
			_, err := c.Do(context.Background(), http.MethodGet, tc.path, nil, "", nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestCallJSON(t *testing.T) {
	srv := controlStub(t)
	c := &Client{Base: srv.URL, Token: "tok"}
	ctx := context.Background()
	var got struct{ ID, Channel string }
	if err := c.CallJSON(ctx, http.MethodPost, "/__sim/faults", map[string]string{"channel": "copy-1"}, &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != "f1" || got.Channel != "copy-1" {
		t.Fatalf("decoded %+v", got)
	}
	if err := c.CallJSON(ctx, http.MethodGet, "/__sim/broken", nil, &got); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Fatalf("a body that is not JSON: err = %v", err)
	}
	if err := c.CallJSON(ctx, http.MethodGet, "/__sim/nothing", nil, nil); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("a refusal: err = %v", err)
	}
}
