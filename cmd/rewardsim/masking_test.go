package main

import (
	"context"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// Issue 23 done-when: a token sent as access_token=, in X-Auth or as
// JSON userToken, and a sessionId sent as session_id (nested) or in a
// path, are masked in the journal API: the simulator knows the values it
// issued, whatever name they travel under.
func TestServe_journalMasksIssuedSecretsByValue(t *testing.T) {
	cmd, urls := startServe(t, buildBinary(t), t.TempDir())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	c := &publisher.Client{HTTP: http.DefaultClient, RewardsURL: urls["all"], BankURL: urls["all"], HotdealsURL: urls["all"],
		ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: key}
	ctx := context.Background()
	ut, err := c.UserToken(ctx, "VU-MASK")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := c.Session(ctx, "VU-MASK")
	if err != nil {
		t.Fatal(err)
	}
	tok, sid := ut.Token, sess.SessionID
	if len(tok) < 20 || len(sid) < 20 {
		t.Fatalf("token %q, session %q", tok, sid)
	}
	send := func(method, path, header, body string) {
		req, _ := http.NewRequest(method, urls["all"]+path, strings.NewReader(body))
		if header != "" {
			req.Header.Set("X-Auth", header)
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	send("GET", "/api/getSecuredReferenceToken?access_token="+tok, "", "")
	send("POST", "/api/GetAuthToken", tok, `{"outer":{"userToken":"`+tok+`","list":[{"session_id":"`+sid+`"}]}}`)
	send("GET", "/sessions/"+sid+"/view?SessionId="+sid, "", "")
	// The default scenario's channel secKey, echoed where no name says so.
	const secKey = "DEMOSECKEY"
	send("POST", "/api/echo/"+secKey+"?k="+secKey, "", `{"a":{"b":"`+secKey+`"}}`)

	body := get(t, urls["control"]+"/__sim/journal?limit=1000")
	for name, secret := range map[string]string{"token": tok, "sessionId": sid, "secKey": secKey} {
		if strings.Contains(body, secret) {
			i := strings.Index(body, secret)
			t.Errorf("the journal API shows the %s in clear: …%s…", name, body[max(0, i-120):min(len(body), i+60)])
		}
	}
	if !strings.Contains(body, "access_token=~fp:") || !strings.Contains(body, `"session_id\":\"~fp:`) && !strings.Contains(body, `"session_id":"~fp:`) {
		t.Errorf("masked values are not fingerprints where they were sent")
	}
}
