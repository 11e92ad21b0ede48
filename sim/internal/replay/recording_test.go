package replay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// fake is a tiny service whose tokens and ids are random on every run:
// a replay passes only if captured values flow into later requests.
type fake struct {
	mu      sync.Mutex
	tokens  map[string]bool
	rewards map[string]bool
	srv     *httptest.Server
}

func newFake(t *testing.T) *fake {
	f := &fake{tokens: map[string]bool{}, rewards: map[string]bool{}}
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := envelope.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	rnd := func() string { b := make([]byte, 8); _, _ = rand.Read(b); return hex.EncodeToString(b) }
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		tok := rnd()
		f.mu.Lock()
		f.tokens[tok] = true
		f.mu.Unlock()
		fmt.Fprintf(w, `{"token":%q,"expireDate":"2026-01-15 10:30:00.000"}`, tok)
	})
	mux.HandleFunc("POST /GetReward", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")] {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"status":false}`)
			return
		}
		id := fmt.Sprint(len(f.rewards)*7919 + int(rnd()[0]))
		f.rewards[id] = true
		fmt.Fprintf(w, `{"status":true,"rewards":[{"rewardId":%s,"trackLink":["http://%s/t/imp?card=%s"]}]}`, id, r.Host, id)
	})
	mux.HandleFunc("POST /reveal", func(w http.ResponseWriter, r *http.Request) {
		var env envelope.Envelope
		_ = json.NewDecoder(r.Body).Decode(&env)
		if envelope.Verify(&key.PublicKey, env.BDATA, env.SIGN) != nil {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"signature"}`)
			return
		}
		raw, _ := envelope.Decode(env.BDATA)
		var p struct{ RewardID string }
		_ = json.Unmarshal(raw, &p)
		f.mu.Lock()
		ok := f.rewards[p.RewardID]
		f.mu.Unlock()
		if !ok {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"error":"unknown reward"}`)
			return
		}
		sealed, _ := envelope.Seal(key, "SVC", map[string]string{"title": "10% off", "rewardId": p.RewardID})
		_ = json.NewEncoder(w).Encode(sealed)
	})
	mux.HandleFunc("GET /t/imp", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.rewards[r.URL.Query().Get("card")] {
			w.WriteHeader(404)
		}
	})
	mux.HandleFunc("GET /go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:1/brand-site", http.StatusFound)
	})
	mux.HandleFunc("POST /coupon", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "ServiceAppKey APP:SEC" {
			fmt.Fprint(w, `{"status":401,"errorCode":"UNAUTHORIZED"}`)
			return
		}
		fmt.Fprint(w, `{"status":200,"data":{"coupon_code":"`+rnd()+`"}}`)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// recorder journals what a client sends through it, as the proxy does.
type recorder struct {
	b       *journal.Builder
	entries []journal.Entry
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	ans, _ := io.ReadAll(res.Body)
	res.Body = io.NopCloser(bytes.NewReader(ans))
	e := r.b.Build(&journal.Exchange{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, RequestHeader: req.Header,
		RequestBody: body, ResponseHeader: res.Header, ResponseBody: ans, Status: res.StatusCode, Listener: "all"})
	r.entries = append(r.entries, *e)
	return res, nil
}

func call(t *testing.T, c *http.Client, method, url string, h http.Header, body string) []byte {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range h {
		req.Header[k] = v
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	return out
}

// recordFlow runs token -> GetReward -> reveal (signed, carrying the
// rewardId) -> impression (a trackLink URL) -> coupon (API key).
func recordFlow(t *testing.T, f *fake) *recfile.Recording {
	return Build(recordEntries(t, f), BuildOptions{Name: "fake-flow"})
}

// recordEntries are the journal entries of recordFlow's calls, numbered.
func recordEntries(t *testing.T, f *fake) []journal.Entry {
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, _ := envelope.ParsePrivateKeyPEM(keyPEM)
	rec := &recorder{b: journal.NewBuilder(secrets.New())}
	c := &http.Client{Transport: rec, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var tok struct{ Token string }
	_ = json.Unmarshal(call(t, c, "POST", f.srv.URL+"/token", nil, `{}`), &tok)
	var gr struct {
		Rewards []struct {
			RewardID  json.Number
			TrackLink []string
		}
	}
	_ = json.Unmarshal(call(t, c, "POST", f.srv.URL+"/GetReward", http.Header{"Authorization": {"Bearer " + tok.Token}}, `{"extTransactionId":"T1"}`), &gr)
	if len(gr.Rewards) != 1 {
		t.Fatalf("GetReward: %+v", gr)
	}
	env, _ := envelope.Seal(key, "DEMOBANK", map[string]string{"rewardId": gr.Rewards[0].RewardID.String(), "virtualId": "VU-1"})
	body, _ := json.Marshal(env)
	call(t, c, "POST", f.srv.URL+"/reveal", nil, string(body))
	call(t, c, "GET", gr.Rewards[0].TrackLink[0], nil, "")
	call(t, c, "POST", f.srv.URL+"/coupon", http.Header{"Authorization": {"ServiceAppKey APP:SEC"}}, `{"offerId":"O1"}`)
	call(t, c, "GET", f.srv.URL+"/go", nil, "") // a redirect: compared, never followed
	for i := range rec.entries {
		rec.entries[i].Seq = uint64(i + 1)
	}
	return rec.entries
}

// clause: SIM-4
func TestBuild_SIM4_capturesAndSubstitutions(t *testing.T) {
	s := recordFlow(t, newFake(t))
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := recfile.Parse(data, set); err != nil {
		t.Fatalf("the built session breaks its schema: %v\n%s", err, data)
	}
	if len(s.Steps) != 6 || s.Steps[5].Expect.Status != http.StatusFound {
		t.Fatalf("%d steps", len(s.Steps))
	}
	checks := []struct{ got, want string }{
		{fmt.Sprint(s.Steps[0].Captures), "[{s1.token body /token false}]"},
		{s.Steps[1].Header["Authorization"], "Bearer ${s1.token}"},
		{fmt.Sprint(s.Steps[1].Captures), "[{s2.rewards.0.rewardId body /rewards/0/rewardId false} {s2.rewards.0.trackLink.0.url body /rewards/0/trackLink/0 true}]"},
		{string(s.Steps[2].Envelope.Payload), `{"rewardId":"${s2.rewards.0.rewardId}","virtualId":"VU-1"}`},
		{s.Steps[3].Path + "|" + s.Steps[3].Query, "${s2.rewards.0.trackLink.0.url}|"},
		{s.Steps[4].Header["Authorization"], "ServiceAppKey " + secrets.Fingerprint("APP:SEC")},
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("check %d: got %s, want %s", i, c.got, c.want)
		}
	}
	if strings.Contains(string(data), "APP:SEC") {
		t.Error("the recording file holds the API key")
	}
}

// clause: SIM-4
func TestReplay_SIM4_feedsCapturedValuesAndReSigns(t *testing.T) {
	s := recordFlow(t, newFake(t))
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, _ := envelope.ParsePrivateKeyPEM(keyPEM)
	target := func(t *testing.T) Targets { tg, _ := ParseTargets(newFake(t).srv.URL); return tg }

	res, err := Resend(context.Background(), s, target(t), ResendOptions{Key: key, Secrets: []string{"APP:SEC"}, Volatile: volatile(t)})
	if err != nil || !res.OK() || res.Steps != 6 {
		var b strings.Builder
		res.Format(&b, s.Name)
		t.Fatalf("replay against a fresh service: %v\n%s", err, b.String())
	}

	// Without the API key the coupon step answers 401 in its body.
	res, _ = Resend(context.Background(), s, target(t), ResendOptions{Key: key, Volatile: volatile(t)})
	var where []string
	for _, d := range res.Differences {
		where = append(where, d.Step+" "+d.Where)
	}
	if fmt.Sprint(where) != "[s5 body /data s5 body /errorCode s5 body /status]" {
		t.Errorf("without the secret: %+v", res.Differences)
	}
	// Without a key, the changed envelope cannot be re-signed: reported.
	res, _ = Resend(context.Background(), s, target(t), ResendOptions{Secrets: []string{"APP:SEC"}, Volatile: volatile(t)})
	if len(res.Differences) != 1 || res.Differences[0].Where != "request" || !strings.Contains(res.Differences[0].Note, "no publisher key") {
		t.Errorf("without a key: %+v", res.Differences)
	}
}

func TestParseTargets(t *testing.T) {
	for in, want := range map[string]string{
		"http://a":                    "{http://a http://a http://a}",
		"http://a/,http://b,http://c": "{http://a http://b http://c}",
		"a":                           "error",
		"http://a,http://b":           "error",
	} {
		got, err := ParseTargets(in)
		s := fmt.Sprint(got)
		if err != nil {
			s = "error"
		}
		if s != want {
			t.Errorf("ParseTargets(%q) = %s, want %s", in, s, want)
		}
	}
}

// clause: SIM-4
func TestCompare_SIM4_masksAndReadableDiff(t *testing.T) {
	st := &recfile.Step{ID: "s1", Endpoint: "GetAuthToken", Method: "POST", Path: "/api/GetAuthToken", Expect: recfile.Expect{
		Status: 200, Body: json.RawMessage(`{"CHANNELID":"REWARDSIM","SIGN":"<masked>","BDATA":"<masked>"}`),
		BDATA: json.RawMessage(`{"token":"<masked>","expireDate":"2026-01-15 10:30:00.000","list":[1,2],"banner":"http://sim.test:8080/img/7.png?c=1"}`),
	}}
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		name, bdata string
		masks       map[string]recfile.MaskKind
		want        []string
	}{
		{"same-but-volatile", `{"token":"zzz","expireDate":"2027-12-31 23:59:59.999","list":[1,2]}`, nil, nil},
		{"format-changed", `{"token":"zzz","expireDate":"1767000000000","list":[1,2]}`, nil, []string{"bdata /expireDate"}},
		{"field-missing-and-extra", `{"expireDate":"2026-01-15 10:30:00.000","list":[1,2],"extra":true}`, nil, []string{"bdata /extra", "bdata /token"}},
		{"array-length", `{"token":"z","expireDate":"2026-01-15 10:30:00.000","list":[1]}`, nil, []string{"bdata /list"}},
		{"ignored", `{"token":"z","expireDate":"x","list":[1,2]}`, map[string]recfile.MaskKind{"expireDate": recfile.MaskIgnore}, nil},
		{"unmasked", `{"token":"other","expireDate":"2026-01-15 10:30:00.000","list":[1,2]}`, map[string]recfile.MaskKind{"token": recfile.MaskNone}, []string{"bdata /token"}},
		{"url-on-another-host-and-id", `{"token":"z","expireDate":"2026-01-15 10:30:00.000","list":[1,2],"banner":"http://127.0.0.1:9999/img/42.png?c=8"}`, nil, nil},
		{"url-path-changed", `{"token":"z","expireDate":"2026-01-15 10:30:00.000","list":[1,2],"banner":"http://127.0.0.1:9999/other/42.png?c=8"}`, nil, []string{"bdata /banner"}},
		{"url-exact", `{"token":"z","expireDate":"2026-01-15 10:30:00.000","list":[1,2],"banner":"http://127.0.0.1:9999/img/42.png?c=8"}`, map[string]recfile.MaskKind{"banner": recfile.MaskNone}, []string{"bdata /banner"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(c.bdata, "banner") {
				c.bdata = strings.TrimSuffix(c.bdata, "}") + `,"banner":"http://127.0.0.1:1/img/12.png?c=345"}`
			}
			body := fmt.Sprintf(`{"CHANNELID":"REWARDSIM","SIGN":"abc","BDATA":%q}`, enc(c.bdata))
			a := answer{status: 200, header: http.Header{}, body: []byte(body), bdata: []byte(c.bdata)}
			var got []string
			for _, d := range compare(st, a, recfile.Masks(volatile(t), c.masks)) {
				got = append(got, d.Where)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("differences at %v, want %v", got, c.want)
			}
		})
	}
}

// clause: SIM-4, REV-5
// An envelope recorded without SIGN is re-encoded with the captured value
// and stays unsigned; a signed one is re-signed.
func TestReplay_SIM4_reSignsOnlyWhatWasSigned(t *testing.T) {
	var got []envelope.Envelope
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env envelope.Envelope
		_ = json.NewDecoder(r.Body).Decode(&env)
		got = append(got, env)
		fmt.Fprint(w, `{"rewardId":"R-7"}`)
	}))
	t.Cleanup(srv.Close)
	payload := json.RawMessage(`{"rewardId":"${s1.rewardId}"}`)
	s := &recfile.Recording{Version: recfile.Version, Name: "x", Steps: []recfile.Step{
		{ID: "s1", Method: "POST", Path: "/a", Body: json.RawMessage(`{}`), Captures: []recfile.Capture{{Name: "s1.rewardId", From: "body", Pointer: "/rewardId"}}, Expect: recfile.Expect{Status: 200, Body: json.RawMessage(`{"rewardId":"x"}`)}},
		{ID: "s2", Method: "POST", Path: "/b", Envelope: &recfile.Envelope{CHANNELID: "C", BDATA: "e30=", Payload: payload}, Expect: recfile.Expect{Status: 200}},
		{ID: "s3", Method: "POST", Path: "/c", Envelope: &recfile.Envelope{CHANNELID: "C", SIGN: "old", BDATA: "e30=", Payload: payload}, Expect: recfile.Expect{Status: 200}},
	}}
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, _ := envelope.ParsePrivateKeyPEM(keyPEM)
	tg, _ := ParseTargets(srv.URL)
	if _, err := Resend(context.Background(), s, tg, ResendOptions{Key: key}); err != nil {
		t.Fatal(err)
	}
	want := base64.StdEncoding.EncodeToString([]byte(`{"rewardId":"R-7"}`))
	if len(got) != 3 || got[1].BDATA != want || got[1].SIGN != "" || got[2].BDATA != want || envelope.Verify(&key.PublicKey, got[2].BDATA, got[2].SIGN) != nil {
		t.Errorf("sent %+v", got)
	}
}

// clause: SIM-4
// A request to a URL an answer handed out goes, on replay, to the host
// that handed it out when the recording listener served every host; a
// listener of its own is kept.
func TestBuild_SIM4_capturedURLStepInheritsTheHost(t *testing.T) {
	for _, c := range []struct{ listener, want string }{{"all", "hotdeals"}, {"bank", "bank"}} {
		b := journal.NewBuilder(secrets.New())
		claim := b.Build(&journal.Exchange{Method: "POST", Path: "/api/fetchCouponCode", RequestBody: []byte(`{"offerId":"O1"}`),
			ResponseBody: []byte(`{"status":200,"data":{"url":"http://127.0.0.1:9/hotdeals/r/D/O1?vid=1"}}`), Status: 200, Listener: "all"})
		follow := b.Build(&journal.Exchange{Method: "GET", Path: "/hotdeals/r/D/O1", Query: "vid=1", Status: 302, Listener: c.listener})
		s := Build([]journal.Entry{*claim, *follow}, BuildOptions{Name: "url-host"})
		if got := s.Steps[1]; got.Host != c.want || got.Path != "${s1.data.url.url}" {
			t.Errorf("listener %s: step 2 host %q path %q, want host %q", c.listener, got.Host, got.Path, c.want)
		}
	}
}

// clause: SIM-4
// A push's attempts (a failed one and its retry share a referenceId)
// become one control step, where the first was delivered; a webhook entry
// that is not a push's event is left out.
func TestBuild_SIM4_webhookPushIsOneControlStep(t *testing.T) {
	ev := `{"channelName":"DEMOBANK","offerId":"O1","eventType":"COUPON_INVALIDATED","expiredDate":"2026-01-15T10:00:00+05:30","reason":"OUT_OF_STOCK","reasonMessage":"m","referenceId":"R1"}`
	attempt := func(status int, body string) journal.Entry {
		return journal.Entry{Kind: journal.KindWebhook, Method: http.MethodPost, Path: "http://pub.test/hook", Channel: "DEMOBANK",
			Status: status, Request: journal.Message{Body: json.RawMessage(body)}}
	}
	s := Build([]journal.Entry{attempt(500, ev), attempt(200, ev), attempt(200, `"not an event"`)}, BuildOptions{Name: "push"})
	if len(s.Steps) != 1 {
		t.Fatalf("%d steps, want 1: %+v", len(s.Steps), s.Steps)
	}
	st := s.Steps[0]
	want := `{"channel":"DEMOBANK","eventType":"COUPON_INVALIDATED","expiredDate":"2026-01-15T10:00:00+05:30","offerId":"O1","reason":"OUT_OF_STOCK","reasonMessage":"m"}`
	if st.Host != recfile.HostControl || st.Method != http.MethodPost || st.Path != "/__sim/webhooks" || st.Query != "wait=10s" || string(st.Body) != want || st.Expect.Status != http.StatusCreated {
		t.Fatalf("push step %+v body %s", st, st.Body)
	}
	if res, err := Resend(context.Background(), s, Targets{"http://127.0.0.1:1", "", ""}, ResendOptions{}); err != nil || res.OK() ||
		!strings.Contains(res.Differences[0].Note, "control API") {
		t.Fatalf("without a control API: %v %+v", err, res)
	}
}

// volatile is what a replay masks by default.
func volatile(t testing.TB) map[string]recfile.MaskKind {
	t.Helper()
	v, err := volatileFields()
	if err != nil {
		t.Fatal(err)
	}
	return v
}
