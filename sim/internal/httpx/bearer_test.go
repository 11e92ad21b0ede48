package httpx_test

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/state"
	"github.com/rewardsim/rewardsim/sim/internal/token"
)

// The bearer schemes' openers admit a token with httpx.BearerToken; this
// test proves it against real stored tokens. The endpoints' own
// black-box tests prove the same through HTTP.
//
// clause: AUTH-1, AUTH-2, TOK-3, TOK-4
func TestBearer_AUTH1_AUTH2_TOK3_TOK4(t *testing.T) {
	st, err := state.Open(t.TempDir(), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clk := clock.NewFake(time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC))
	tokens := token.New(st, clock.One{Clock: clk}, rand.Reader)
	ref, _ := tokens.Issue(model.ReferenceToken, "DEMOBANK", "", time.Hour)
	user, _ := tokens.Issue(model.UserToken, "DEMOBANK", "VU-1", 30*time.Minute)

	e := echo.New()
	e.HTTPErrorHandler = httpx.ErrorHandler(nil)
	admit := func(kind model.TokenKind) echo.HandlerFunc {
		return func(c echo.Context) error {
			t, err := httpx.BearerToken(c, tokens, kind)
			if err != nil {
				return err
			}
			if o := httpx.OutcomeOf(c); o.Channel != t.Channel || o.VirtualID != t.VirtualID {
				return fmt.Errorf("the journal is told %+v for a token of %s/%s", o, t.Channel, t.VirtualID)
			}
			return c.JSON(200, map[string]string{"kind": string(t.Kind), "virtualId": t.VirtualID})
		}
	}
	e.POST("/ref", admit(model.ReferenceToken))
	e.POST("/user", admit(model.UserToken))

	call := func(path, auth string) (int, string) {
		req := httptest.NewRequest(http.MethodPost, path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	cases := []struct {
		name, path, auth string
		status           int
		want             string
	}{
		{"reference token where a reference token is due", "/ref", "Bearer " + ref.Value, 200, `"kind":"reference"`},
		{"user token where a user token is due", "/user", "Bearer " + user.Value, 200, `"virtualId":"VU-1"`},
		{"user token where a reference token is due", "/ref", "Bearer " + user.Value, 401, "wrong token type: a user token was sent where a reference token is due"},
		{"reference token where a user token is due", "/user", "Bearer " + ref.Value, 401, "wrong token type: a reference token was sent where a user token is due"},
		{"missing header", "/ref", "", 401, "Authorization header is missing"},
		{"malformed header", "/ref", ref.Value, 401, "is not 'Bearer TOKEN'"},
		{"Basic scheme", "/ref", "Basic " + ref.Value, 401, "is not 'Bearer TOKEN'"},
		{"empty bearer", "/user", "Bearer ", 401, "is not 'Bearer TOKEN'"},
		{"unknown token", "/user", "Bearer " + strings.Repeat("x", 43), 401, "token is unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := call(c.path, c.auth)
			if code != c.status || !strings.Contains(body, c.want) {
				t.Fatalf("HTTP %d %s, want %d containing %q", code, body, c.status, c.want)
			}
			if code == 401 {
				var m map[string]any
				if json.Unmarshal([]byte(body), &m) != nil || m["status"] != false {
					t.Errorf("401 body %s is not {status:false, message}", body)
				}
			}
		})
	}

	// TOK-4: expiry follows the simulated clock, to the instant.
	clk.Advance(30*time.Minute - time.Millisecond)
	if code, body := call("/user", "Bearer "+user.Value); code != 200 {
		t.Fatalf("user token refused before its expiry: %d %s", code, body)
	}
	clk.Advance(time.Millisecond)
	if code, body := call("/user", "Bearer "+user.Value); code != 401 || !strings.Contains(body, "expired") {
		t.Fatalf("user token at its expiry: %d %s, want 401 expired", code, body)
	}
	if code, _ := call("/ref", "Bearer "+ref.Value); code != 200 {
		t.Fatalf("reference token (1h) refused after 30m")
	}
	clk.Advance(time.Hour)
	if code, body := call("/ref", "Bearer "+ref.Value); code != 401 || !strings.Contains(body, "expired") {
		t.Fatalf("reference token after expiry: %d %s, want 401 expired", code, body)
	}
}
