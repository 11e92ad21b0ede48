package calibrate

import (
	"bytes"
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

func devKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	data, _ := fs.ReadFile(certs.FS, "publisher-dev.key")
	k, err := LoadKey(data, "")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func target(t *testing.T, url string) Target {
	return Target{RewardsURL: url, BankURL: url, HotdealsURL: url, Channel: "CALX", Key: devKey(t), AppKey: "APPKEY1", SecKey: "SECRETKEY1", Offers: []string{"O"}}
}

// deadURL is a loopback address nothing listens on.
func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "http://" + l.Addr().String()
}

// A target that is not there: the first call's transport failure stops
// the run, and every switch says it was not reachable.
func TestRun_transportFailureStops(t *testing.T) {
	rep := Run(context.Background(), target(t, deadURL(t)), Options{Budget: 50, AllowWrites: true})
	if rep.Calls != 1 || !strings.Contains(rep.Stopped, "transport failure") {
		t.Fatalf("calls %d, stopped %q", rep.Calls, rep.Stopped)
	}
	for _, f := range rep.Findings {
		if f.Determined || !(strings.HasPrefix(f.Why, "not reachable: transport failure") || strings.HasPrefix(f.Why, "not observable")) {
			t.Errorf("%s: %+v", f.Switch, f)
		}
	}
}

// A target answering 5xx in JSON stops after a burst, not at the budget.
func TestRun_5xxBurstStops(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"message":"maintenance"}`))
	}))
	defer srv.Close()
	rep := Run(context.Background(), target(t, srv.URL), Options{Budget: 50, AllowWrites: true})
	if hits.Load() != burstLimit || rep.Calls != burstLimit || !strings.Contains(rep.Stopped, "5xx") {
		t.Fatalf("hits %d, calls %d, stopped %q", hits.Load(), rep.Calls, rep.Stopped)
	}
	if rep.Determined() != 0 {
		t.Fatalf("determined %d switches from 5xx answers", rep.Determined())
	}
}

// sampleReport has a finding for every switch: its first documented
// value (or its default), an odd one for the free ones.
func sampleReport() *Report {
	rep := &Report{Version: 1, Budget: 80, Calls: 30, Target: TargetRef{Rewards: "http://uat.example", Channel: "CALX"}}
	for _, s := range Switches {
		v := s.Default
		if len(s.Values) > 1 {
			v = s.Values[1]
		}
		switch s.Kind {
		case "duration":
			v = "1h15m"
		case "int":
			if s.Values == nil {
				v = "37"
			}
		}
		if s.Unobservable != "" {
			rep.Findings = append(rep.Findings, Finding{Switch: s.Name, Cause: CauseUnobservable, Why: "not observable from a publisher's side: " + s.Unobservable})
			continue
		}
		rep.Findings = append(rep.Findings, Finding{Switch: s.Name, Determined: true, Value: v, Probe: "p",
			Evidence: []string{"POST /api/x {\"a\":1} -> HTTP 200 {\"b\":\"# not a comment\"}"}})
	}
	return rep
}

// The overlay loads as a scenario (extends: default) and reads back as
// the findings: Compare against it finds no drift; against default it
// names each switch that differs.
func TestOverlay_loadsAndReadsBack(t *testing.T) {
	rep := sampleReport()
	sc, err := ParseScenario("calibrated.yaml", rep.Overlay())
	if err != nil {
		t.Fatalf("%v\n%s", err, rep.Overlay())
	}
	if d := rep.Compare(sc); len(d) != 0 {
		t.Fatalf("drift against its own overlay: %v\n%s", d, rep.Overlay())
	}
	def, err := ParseScenario("default.yaml", []byte("version: 1\nextends: default\n"))
	if err != nil {
		t.Fatal(err)
	}
	drift := rep.Compare(def)
	if len(drift) == 0 || drift[0].Switch != "switches.failureHttpStatus" || drift[0].Scenario != "200" || drift[0].Target != "400" {
		t.Fatalf("drift against default: %v", drift)
	}
	if !bytes.Contains(rep.Overlay(), []byte("# probe p: POST /api/x")) {
		t.Errorf("the overlay names no evidence:\n%s", rep.Overlay())
	}
}

// The JSON form matches schemas/calibrate.json, with and without drift.
func TestWriteJSON_matchesSchema(t *testing.T) {
	set, err := schema.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	rep := sampleReport()
	for i, f := range rep.Findings {
		switch f.Switch {
		case "switches.cards.dateandtime":
			rep.Findings[i] = Finding{Switch: f.Switch, Cause: CauseUnobservable, Why: "not observable", Candidates: []string{"accept", "now"}}
		case "sessions.ttl":
			rep.Findings[i] = Finding{Switch: f.Switch, Cause: CauseWait, Why: "needs waiting longer", AtLeast: "10s"}
		case "switches.coupons.duplicate":
			rep.Findings[i] = Finding{Switch: f.Switch, Cause: CauseWrites, Why: "needs writes"}
		}
	}
	def, err := ParseScenario("default.yaml", []byte("version: 1\nextends: default\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Compare(def)) == 0 || len(rep.Against.Unchecked) == 0 {
		t.Fatalf("the sample compares as %+v", rep.Against)
	}
	rep.Warnings = []string{"the SIGN of x's answer does not verify"}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := set.ValidateJSON("calibrate", b.Bytes()); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	bad := bytes.Replace(b.Bytes(), []byte(`"determined": true`), []byte(`"determined": false`), 1)
	if set.ValidateJSON("calibrate", bad) == nil {
		t.Fatal("a finding not determined but with a value passed the schema")
	}
}

func TestLoadKey_forms(t *testing.T) {
	want := devKey(t)
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(want)})
	p12, _ := fs.ReadFile(certs.FS, "publisher-dev.p12")
	for name, tc := range map[string]struct {
		data     []byte
		password string
		ok       bool
	}{
		"PKCS#1 PEM":             {pkcs1, "", true},
		"PKCS#12":                {p12, certs.P12Password, true},
		"PKCS#12 wrong password": {p12, "nope", false},
		"garbage":                {[]byte("not a key"), "", false},
	} {
		k, err := LoadKey(tc.data, tc.password)
		if tc.ok != (err == nil) || tc.ok && !k.Equal(want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	cert, _ := fs.ReadFile(certs.FS, "service-dev.p12")
	if _, err := LoadServiceCert(cert, certs.P12Password); err != nil {
		t.Errorf("service certificate from PKCS#12: %v", err)
	}
}

// Evidence never shows a credential: token fields, the API key, the
// tokens the run received.
func TestEvidence_masksSecrets(t *testing.T) {
	r := newRun(context.Background(), Target{AppKey: "APPKEY1", SecKey: "SECRETKEY1"}, Options{})
	r.remember("tok-1234567890")
	e := &Exchange{Method: "POST", URL: "http://h/api/x", Body: []byte(`{"note":"SECRETKEY1 and tok-1234567890"}`),
		Status: 200, Resp: []byte(`{"token":"abc","sessionId":"s1","SIGN":"zzz"}`)}
	got := e.Evidence(r.mask)
	for _, s := range []string{"SECRETKEY1", "tok-1234567890", `"abc"`, `"s1"`, `"zzz"`} {
		if strings.Contains(got, s) {
			t.Errorf("evidence shows %s: %s", s, got)
		}
	}
}

func TestReadTokenTTL(t *testing.T) {
	ist := time.FixedZone("+05:30", 19800)
	date := time.Date(2026, 1, 15, 5, 30, 0, 0, time.UTC)
	for _, tc := range []struct{ expire, format, ttl string }{
		{"2026-01-15 12:00:00.000", "datetime-ms", "1h"},
		{"2026-01-15T11:45:10+05:30", "iso8601", "45m"},
		{"1768458600000", "epoch-ms", "1h"},
	} {
		bdata := b64(`{"expireDate":"` + tc.expire + `","token":"t"}`)
		e := &Exchange{Resp: []byte(`{"CHANNELID":"S","SIGN":"x","BDATA":"` + bdata + `"}`), RespHeader: http.Header{"Date": {date.Format(http.TimeFormat)}}}
		format, ttl, err := readTokenTTL(e, ist)
		if err != nil || format != tc.format || ttl != tc.ttl {
			t.Errorf("%s: %s %s %v; want %s %s", tc.expire, format, ttl, err, tc.format, tc.ttl)
		}
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// Passive keeps a switch the answers read one way, and drops one they
// read two ways (a fault injected on one call, say).
func TestPassive(t *testing.T) {
	failure := func(status int) Exchange {
		return Exchange{Op: "GetAuthToken", Status: status, Resp: []byte(`{"STATUS":"FAILURE","ERRORSTRING":"Signature Mismatch!"}`)}
	}
	tokenAnswer := Exchange{Op: "getSecuredReferenceToken", Status: 200,
		Resp: []byte(`{"CHANNELID":"S","SIGN":"x","BDATA":"` + b64(`{"expireDate":"1768458600000","referenceKey":"k"}`) + `"}`)}
	coupon := Exchange{Op: "fetchCouponCode", Status: 404, Resp: []byte(`{"status":404,"errorCode":"INVALID_OFFER","message":"m"}`)}
	got := Passive([]Exchange{failure(400), failure(400), tokenAnswer, coupon})
	want := map[string]string{"switches.failureHttpStatus": "400", "tokens.expireDateFormat": "epoch-ms", "switches.coupons.httpStatus": "mirror"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if got := Passive([]Exchange{failure(400), failure(200)}); len(got) != 0 {
		t.Errorf("two readings of one switch kept: %v", got)
	}
	diffs := CompareReadings(want, "default", []byte("version: 1\nextends: default\n"))
	if len(diffs) != 3 || !strings.Contains(diffs[0], "switches.coupons.httpStatus as mirror; the replay's scenario (default) reads it as body") {
		t.Errorf("CompareReadings: %q", diffs)
	}
}
