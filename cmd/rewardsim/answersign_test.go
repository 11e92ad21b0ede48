package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// clause: ENV-3, SIM-6
// An app that does not verify the answer's signature is caught, as the
// recipe in docs/testing-your-service.md runs it against a real serve: a
// mis-signed GetAuthToken answer (answer-sign-other-key) is refused by a
// client that verifies, and a token from it used by one that does not is
// the report's answer-signature-not-verified finding. The report lists what
// it cannot check, labels a finding that rests on the simulator's own
// reading (TOK-5's threshold), and its JUnit follows --fail-on: a warning
// below it is no <failure>, as the exit status says.
func TestReport_catchesAnAppThatDoesNotVerifyAnswers(t *testing.T) {
	bin := buildBinary(t)
	srv, urls := startServe(t, bin, t.TempDir())
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	pub, control := urls["all"], urls["control"]
	env := []string{"REWARDSIM_CONTROL_URL=" + control}
	ctx := context.Background()
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, _ := fs.ReadFile(certs.FS, certs.ServiceCert)
	servicePub, err := publisher.ParsePublicKeyPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	app := &publisher.Client{HTTP: http.DefaultClient, RewardsURL: pub, BankURL: pub, HotdealsURL: pub,
		ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: key, AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY"}

	// A warning only (TOK-5: the reference token fetched per request).
	for range 5 {
		if _, err := app.ReferenceToken(ctx); err != nil {
			t.Fatal(err)
		}
	}
	junit := filepath.Join(t.TempDir(), "report.xml")
	out, code := cli(t, bin, env, "report", "--fail-on", "error", "--junit", junit)
	if code != 0 || !strings.Contains(out, "reference-token-per-request") && !strings.Contains(out, "reference token was fetched") ||
		!strings.Contains(out, "not checkable from here") || !strings.Contains(out, "verifies SIGN on the answers") ||
		!strings.Contains(out, "the simulator's reading: The contract advises an hourly refresh") {
		t.Fatalf("report with a warning only: exit %d\n%s", code, out)
	}
	if cases := readJUnit(t, junit); cases["TOK-5 reference-token-per-request"] != "" {
		t.Errorf("a warning below --fail-on error is a JUnit failure: %q", cases["TOK-5 reference-token-per-request"])
	}

	// The recipe: a one-shot mis-signed GetAuthToken answer for one user.
	rule := `{"id":"sig","endpoint":"GetAuthToken","virtualId":"VU-SIG","times":1,"action":{"kind":"answer-sign-other-key"}}`
	res, err := http.Post(control+"/__sim/faults", "application/json", bytes.NewBufferString(rule))
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /__sim/faults: %v %v", res, err)
	}
	res.Body.Close()
	verifying := *app
	verifying.ServiceKey = servicePub
	if _, err := verifying.UserToken(ctx, "VU-SIG"); err == nil || !strings.Contains(err.Error(), "answer signature") {
		t.Fatalf("a verifying client took the mis-signed answer: %v", err)
	}
	if _, err := http.Post(control+"/__sim/faults", "application/json", bytes.NewBufferString(rule)); err != nil {
		t.Fatal(err) // armed again (same id): the verifying client spent it
	}
	tok, err := app.UserToken(ctx, "VU-SIG") // this app does not verify
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := app.ListCards(ctx, tok.Token, ""); err != nil {
		var he *publisher.HTTPError
		if !errors.As(err, &he) {
			t.Fatal(err)
		}
	}
	out, code = cli(t, bin, env, "report", "--junit", junit)
	if code != 1 || !strings.Contains(out, "ENV-3") || !strings.Contains(out, "did not verify (injected answer-sign-other-key)") {
		t.Fatalf("report after the unverified answer was used: exit %d\n%s", code, out)
	}
	if cases := readJUnit(t, junit); !strings.Contains(cases["ENV-3 answer-signature-not-verified"], "answer-sign-other-key") {
		t.Errorf("JUnit: %v", cases)
	}
}
