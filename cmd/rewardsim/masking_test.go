package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

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
	c := demoPublisher(t, urls["all"])
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

	// Every artefact reads through the one masking path (issue 42 item 4).
	for _, path := range []string{"/__sim/recording", "/__sim/report", "/__sim/report.html", "/__sim/dashboard", "/__sim/diagram.svg", "/__sim/journal?limit=1000"} {
		page := get(t, urls["control"]+path)
		for name, secret := range map[string]string{"token": tok, "sessionId": sid, "secKey": secKey} {
			if i := strings.Index(page, secret); i >= 0 {
				t.Errorf("%s shows the %s in clear: …%s…", path, name, page[max(0, i-120):min(len(page), i+60)])
			}
		}
	}
	body := get(t, urls["control"]+"/__sim/journal?limit=1000")
	if !strings.Contains(body, "access_token=~fp:") || !strings.Contains(body, `"session_id\":\"~fp:`) && !strings.Contains(body, `"session_id":"~fp:`) {
		t.Errorf("masked values are not fingerprints where they were sent")
	}
}

// Issue 23: masking by value survives a kill -9. A token and a SIGN
// issued before the kill, echoed after the restart, are masked in a
// journal page that starts after the restart (so nothing of the page
// itself teaches the new process those values): the journal file kept
// their hashes.
func TestServe_maskingByValueSurvivesKill(t *testing.T) {
	bin, data := buildBinary(t), t.TempDir()
	cmd, urls := startServe(t, bin, data)
	c := demoPublisher(t, urls["all"])
	ut, err := c.UserToken(context.Background(), "VU-KILL")
	if err != nil {
		t.Fatal(err)
	}
	env, err := publisher.Seal(c.Key, "DEMOBANK", map[string]string{"bName": "DEMOBANK"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(env)
	res, err := http.Post(urls["all"]+"/api/getSecuredReferenceToken", "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	// Both exchanges stored (their masks are stored with them), then kill -9.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(get(t, urls["control"]+"/__sim/journal?limit=10"), "getSecuredReferenceToken") {
		if time.Now().After(deadline) {
			t.Fatal("the journal never stored the signed call")
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()

	cmd, urls = startServe(t, bin, data)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	req, _ := http.NewRequest("GET", urls["all"]+"/api/echo?access_token="+ut.Token+"&sig="+url.QueryEscape(env.SIGN), nil)
	req.Header.Set("X-Auth", ut.Token)
	req.Header.Set("X-Sig", env.SIGN)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	seq, err := strconv.ParseUint(res.Header.Get("X-Rewardsim-Seq"), 10, 64)
	if err != nil {
		t.Fatalf("X-Rewardsim-Seq %q: %v", res.Header.Get("X-Rewardsim-Seq"), err)
	}
	var page string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		page = get(t, urls["control"]+"/__sim/journal?after="+strconv.FormatUint(seq-1, 10))
		if strings.Contains(page, "/api/echo") || time.Now().After(deadline) {
			break
		}
	}
	if !strings.Contains(page, "/api/echo") {
		t.Fatalf("the echo is not in the journal: %.300s", page)
	}
	for name, secret := range map[string]string{"token": ut.Token, "SIGN": env.SIGN, "escaped SIGN": url.QueryEscape(env.SIGN)} {
		if strings.Contains(page, secret) {
			t.Errorf("after kill -9 and restart the journal API shows the %s in clear", name)
		}
	}
	if !strings.Contains(page, "access_token=~fp:") {
		t.Errorf("the token is not shown as its fingerprint: %.400s", page)
	}
}

// demoPublisher is the default scenario's DEMOBANK on one listener.
func demoPublisher(t *testing.T, url string) *publisher.Client {
	t.Helper()
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return &publisher.Client{HTTP: http.DefaultClient, RewardsURL: url, BankURL: url, HotdealsURL: url,
		ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: key}
}
