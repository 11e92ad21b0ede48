package sim_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: TOK-1
func TestReferenceToken_TOK1_bNameCaseSensitive(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()

	tok, err := s.Client.ReferenceToken(ctx)
	if err != nil {
		t.Fatalf("reference token: %v", err)
	}
	if len(tok.ReferenceKey) < 16 {
		t.Fatalf("referenceKey %q is too short to be an opaque credential", tok.ReferenceKey)
	}
	// Default format is YYYY-MM-DD HH:mm:ss.SSS in +05:30, one hour after the fake clock.
	if want := "2026-01-15 11:00:00.000"; tok.ExpireDate != want {
		t.Errorf("expireDate = %q, want %q", tok.ExpireDate, want)
	}

	for _, bName := range []string{"demobank", "DEMOBANK ", "DemoBank", ""} {
		_, err := s.Client.CallSigned(ctx, s.RewardsURL+"/api/getSecuredReferenceToken", "", map[string]string{"bName": bName})
		var fe *publisher.FailureError
		if !errorsAs(err, &fe) || !strings.HasPrefix(fe.ERRORSTRING, "Invalid Request!") {
			t.Errorf("bName %q: got %v, want an Invalid Request! failure", bName, err)
		}
	}
}

// clause: TOK-2
func TestAuthToken_TOK2_readsChannelNameNotBName(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	url := s.RewardsURL + "/api/GetAuthToken"

	res, err := s.Client.CallSigned(ctx, url, "", map[string]string{"virtualId": "VU-1", "channelName": "DEMOBANK"})
	if err != nil {
		t.Fatalf("GetAuthToken: %v", err)
	}
	var ut publisher.UserToken
	if err := json.Unmarshal(res.BDATA, &ut); err != nil || ut.Token == "" {
		t.Fatalf("answer BDATA %s: %v", res.BDATA, err)
	}

	_, err = s.Client.CallSigned(ctx, url, "", map[string]string{"virtualId": "VU-1", "bName": "DEMOBANK"})
	var fe *publisher.FailureError
	if !errorsAs(err, &fe) || !strings.Contains(fe.ERRORSTRING, "channelName: is required") {
		t.Fatalf("bName instead of channelName: got %v, want a failure naming channelName", err)
	}
}

// clause: ENV-3
func TestAnswersVerifyWithServedCertificate_ENV3(t *testing.T) {
	s := simtest.New(t)
	res, err := http.Get(s.ControlURL + "/__sim/certs/service.pem")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var pem strings.Builder
	if _, err := copyAll(&pem, res); err != nil {
		t.Fatal(err)
	}
	pub, err := publisher.ParsePublicKeyPEM([]byte(pem.String()))
	if err != nil {
		t.Fatalf("served certificate: %v", err)
	}
	c := *s.Client
	c.ServiceKey = pub
	ans, err := c.CallSigned(context.Background(), s.RewardsURL+"/api/getSecuredReferenceToken", "", map[string]string{"bName": "DEMOBANK"})
	if err != nil {
		t.Fatalf("answer does not verify with the served certificate: %v", err)
	}
	if ans.Envelope.CHANNELID != "REWARDSIM" {
		t.Errorf("answer CHANNELID = %q, want the service's own identifier REWARDSIM", ans.Envelope.CHANNELID)
	}
	raw, _ := base64.StdEncoding.DecodeString(ans.Envelope.BDATA)
	if string(raw) != string(ans.BDATA) {
		t.Errorf("BDATA mismatch")
	}
	_ = time.Second
}
