package sim_test

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// signedOps are the signed-envelope endpoints of the foundation, each with
// a valid payload for DEMOBANK.
var signedOps = []struct {
	name, path string
	payload    map[string]string
}{
	{"getSecuredReferenceToken", "/api/getSecuredReferenceToken", map[string]string{"bName": "DEMOBANK"}},
	{"GetAuthToken", "/api/GetAuthToken", map[string]string{"virtualId": "VU-1", "channelName": "DEMOBANK"}},
	{"GenerateSessionInfoV2", "/api/GenerateSessionInfoV2", map[string]string{"bName": "DEMOBANK", "virtualId": "VU-1"}},
}

const mismatchBody = `{"STATUS":"FAILURE","ERRORSTRING":"Signature Mismatch!"}`

// foreignKey is a valid RSA key that is not DEMOBANK's. It is read from
// testdata, not generated: fuzzing instruments crypto, and key generation
// in every fuzz worker would starve the fuzzer.
var foreignKey = func() *rsa.PrivateKey {
	data, err := os.ReadFile("internal/envelope/testdata/rsa3072.key")
	if err != nil {
		panic(err)
	}
	k, err := publisher.ParsePrivateKeyPEM(data)
	if err != nil {
		panic(err)
	}
	return k
}()

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// clause: ENV-1, ENV-2, ENV-4, ENV-6
func TestSignedEndpoints_signatureFailures_ENV2_ENV4(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	for _, op := range signedOps {
		good, err := publisher.Seal(s.PublisherKey, "DEMOBANK", op.payload)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(op.payload)
		overJSON, _ := publisher.Sign(s.PublisherKey, string(raw))
		foreign, _ := publisher.Seal(foreignKey, "DEMOBANK", op.payload)
		tampered := good
		tampered.BDATA = b64(strings.Replace(string(raw), "DEMOBANK", "DEMOBANX", 1))

		cases := []struct {
			name       string
			env        publisher.Envelope
			wantReason string
		}{
			{"signature over the decoded JSON", publisher.Envelope{CHANNELID: "DEMOBANK", SIGN: overJSON, BDATA: good.BDATA}, "decoded JSON"},
			{"tampered BDATA", tampered, "does not verify"},
			{"foreign key", foreign, "does not verify"},
			{"unknown CHANNELID", publisher.Envelope{CHANNELID: "NOBANK", SIGN: good.SIGN, BDATA: good.BDATA}, "unknown CHANNELID"},
			{"CHANNELID differs in case", publisher.Envelope{CHANNELID: "demobank", SIGN: good.SIGN, BDATA: good.BDATA}, "unknown CHANNELID"},
			{"missing SIGN", publisher.Envelope{CHANNELID: "DEMOBANK", BDATA: good.BDATA}, "SIGN is missing"},
			{"SIGN not base64", publisher.Envelope{CHANNELID: "DEMOBANK", SIGN: "not base64!", BDATA: good.BDATA}, "not valid base64"},
		}
		for _, c := range cases {
			t.Run(op.name+"/"+c.name, func(t *testing.T) {
				res, err := s.Client.PostEnvelope(ctx, s.RewardsURL+op.path, "", c.env)
				if !publisher.IsFailure(err, "Signature Mismatch!") {
					t.Fatalf("got %v, want Signature Mismatch!", err)
				}
				if strings.TrimSpace(string(res.Body)) != mismatchBody || res.StatusCode != http.StatusOK {
					t.Errorf("answer = HTTP %d %s, want HTTP 200 %s exactly", res.StatusCode, res.Body, mismatchBody)
				}
				if got := res.Header.Get(httpx.ReasonHeader); !strings.Contains(got, c.wantReason) {
					t.Errorf("reason header %q does not say %q", got, c.wantReason)
				}
			})
		}
		t.Run(op.name+"/correct signature passes", func(t *testing.T) {
			res, err := s.Client.PostEnvelope(ctx, s.RewardsURL+op.path, "", good)
			if err != nil {
				t.Fatalf("valid envelope refused: %v", err)
			}
			// ENV-1 on the way out: exactly CHANNELID, SIGN, BDATA; BDATA is base64 JSON.
			var keys map[string]json.RawMessage
			_ = json.Unmarshal(res.Body, &keys)
			if len(keys) != 3 || keys["CHANNELID"] == nil || keys["SIGN"] == nil || keys["BDATA"] == nil {
				t.Errorf("answer keys = %s, want CHANNELID, SIGN, BDATA", res.Body)
			}
			if !json.Valid(res.BDATA) {
				t.Errorf("BDATA is not JSON: %s", res.BDATA)
			}
		})
	}
}

// clause: ENV-6 (unknownChannel switch, both positions)
func TestUnknownChannelSwitch_ENV6(t *testing.T) {
	for _, c := range []struct{ position, want string }{
		{"signature-mismatch", "Signature Mismatch!"},
		{"describe", `Invalid Request! unknown CHANNELID "NOBANK"`},
	} {
		t.Run(c.position, func(t *testing.T) {
			s := simtest.New(t, simtest.WithScenarioYAML(scenarioWith("switches:\n  unknownChannel: "+c.position+"\n")))
			env, _ := publisher.Seal(s.PublisherKey, "NOBANK", map[string]string{"bName": "DEMOBANK"})
			_, err := s.Client.PostEnvelope(context.Background(), s.RewardsURL+"/api/getSecuredReferenceToken", "", env)
			if !publisher.IsFailure(err, c.want) {
				t.Fatalf("got %v, want failure %q", err, c.want)
			}
		})
	}
}

// clause: ENV-6 (failureHttpStatus switch, both positions)
func TestFailureHTTPStatusSwitch_ENV6(t *testing.T) {
	for _, status := range []int{200, 400} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			s := simtest.New(t, simtest.WithScenarioYAML(scenarioWith("switches:\n  failureHttpStatus: "+itoa(status)+"\n")))
			env, _ := publisher.Seal(foreignKey, "DEMOBANK", map[string]string{"bName": "DEMOBANK"})
			res, err := s.Client.PostEnvelope(context.Background(), s.RewardsURL+"/api/getSecuredReferenceToken", "", env)
			if !publisher.IsFailure(err, "Signature Mismatch!") || res.StatusCode != status {
				t.Fatalf("got HTTP %d %v, want HTTP %d Signature Mismatch!", res.StatusCode, err, status)
			}
		})
	}
}

// clause: ENV-6
func TestMalformedPayloads_ENV6(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	seal := func(bdata string) publisher.Envelope {
		sign, _ := publisher.Sign(s.PublisherKey, bdata)
		return publisher.Envelope{CHANNELID: "DEMOBANK", SIGN: sign, BDATA: bdata}
	}
	cases := []struct {
		name, path, bdata, want string
	}{
		{"BDATA not base64", "/api/getSecuredReferenceToken", "%%%not-base64%%%", "BDATA is not valid base64"},
		{"BDATA not JSON", "/api/getSecuredReferenceToken", b64("bName=DEMOBANK"), "BDATA is not valid JSON"},
		{"BDATA a JSON array", "/api/getSecuredReferenceToken", b64(`["DEMOBANK"]`), "BDATA: body: expected object"},
		{"BDATA truncated JSON", "/api/GetAuthToken", b64(`{"virtualId":"VU`), "BDATA is not valid JSON"},
		{"bName a number", "/api/getSecuredReferenceToken", b64(`{"bName":42}`), "BDATA: bName: expected string"},
		{"virtualId missing", "/api/GenerateSessionInfoV2", b64(`{"bName":"DEMOBANK"}`), "BDATA: virtualId: is required"},
		{"virtualId empty", "/api/GetAuthToken", b64(`{"virtualId":"","channelName":"DEMOBANK"}`), "BDATA: virtualId:"},
		{"two JSON values", "/api/getSecuredReferenceToken", b64(`{"bName":"DEMOBANK"}{}`), "more than one value"},
		{"channelName of another case", "/api/GetAuthToken", b64(`{"virtualId":"VU-1","channelName":"demobank"}`), `channelName "demobank" is not the name`},
		{"session bName of another case", "/api/GenerateSessionInfoV2", b64(`{"virtualId":"VU-1","bName":"DemoBank"}`), `bName "DemoBank" is not the name`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := s.Client.PostEnvelope(ctx, s.RewardsURL+c.path, "", seal(c.bdata))
			var fe *publisher.FailureError
			if !errorsAs(err, &fe) || !strings.HasPrefix(fe.ERRORSTRING, "Invalid Request! ") || !strings.Contains(fe.ERRORSTRING, c.want) {
				t.Fatalf("got %v, want an Invalid Request! failure containing %q", err, c.want)
			}
			if res.StatusCode >= 500 {
				t.Fatalf("HTTP %d", res.StatusCode)
			}
		})
	}
}

// clause: ENV-6 (garbage bodies never get a 5xx)
func TestGarbageBodies_ENV6(t *testing.T) {
	s := simtest.New(t)
	huge := `{"CHANNELID":"DEMOBANK","SIGN":"x","BDATA":"` + strings.Repeat("A", httpx.MaxBody) + `"}`
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"empty", "", 200, "Invalid Request! envelope: not valid JSON"},
		{"truncated JSON", `{"CHANNELID":"DEMOBANK","BDA`, 200, "Invalid Request! envelope: not valid JSON"},
		{"array", `[1,2,3]`, 200, "Invalid Request! envelope: body: expected object"},
		{"null", `null`, 200, "Invalid Request! envelope: body: expected object"},
		{"CHANNELID a number", `{"CHANNELID":7,"SIGN":"x","BDATA":"e30="}`, 200, "Invalid Request! envelope: CHANNELID: expected string"},
		{"BDATA missing", `{"CHANNELID":"DEMOBANK","SIGN":"x"}`, 200, "Invalid Request! envelope: BDATA: is required"},
		{"not JSON at all", `<xml/>`, 200, "Invalid Request! envelope: not valid JSON"},
		{"over 1 MiB", huge, http.StatusRequestEntityTooLarge, "Invalid Request! request body is larger than 1 MiB"},
	}
	for _, op := range signedOps {
		for _, c := range cases {
			t.Run(op.name+"/"+c.name, func(t *testing.T) {
				res, err := s.Client.Do(context.Background(), http.MethodPost, s.RewardsURL+op.path, nil, []byte(c.body))
				if err != nil {
					t.Fatal(err)
				}
				var f publisher.Failure
				if err := json.Unmarshal(res.Body, &f); err != nil || f.STATUS != "FAILURE" || !strings.HasPrefix(f.ERRORSTRING, c.want) {
					t.Fatalf("HTTP %d %s, want a failure starting %q", res.StatusCode, res.Body, c.want)
				}
				if res.StatusCode != c.status {
					t.Errorf("HTTP %d, want %d", res.StatusCode, c.status)
				}
			})
		}
	}
}

// clause: ENV-5 (Internal Error! is injectable through the scenario's faults)
func TestSessionInternalError_ENV5(t *testing.T) {
	s := simtest.New(t, simtest.WithScenarioYAML(scenarioWith(`faults:
  - endpoint: GenerateSessionInfoV2
    virtualId: VU-FLAKY
    nth: 2
    action: {kind: internal-error}
`)))
	ctx := context.Background()
	if _, err := s.Client.Session(ctx, "VU-FLAKY"); err != nil {
		t.Fatalf("first call: %v", err)
	}
	if _, err := s.Client.Session(ctx, "VU-OTHER"); err != nil {
		t.Fatalf("another user is not matched: %v", err)
	}
	res, err := s.Client.CallSigned(ctx, s.BankURL+"/api/GenerateSessionInfoV2", "", map[string]string{"bName": "DEMOBANK", "virtualId": "VU-FLAKY"})
	if !publisher.IsFailure(err, "Internal Error!") {
		t.Fatalf("second call: %v, want Internal Error!", err)
	}
	if strings.TrimSpace(string(res.Body)) != `{"STATUS":"FAILURE","ERRORSTRING":"Internal Error!"}` || res.Envelope != nil {
		t.Errorf("answer %s is not the bare unsigned Internal Error! body", res.Body)
	}
	if _, err := s.Client.Session(ctx, "VU-FLAKY"); err != nil {
		t.Fatalf("third call (nth: 2 fires once): %v", err)
	}
}

// clause: SESS-1
func TestGenerateSession_SESS1(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	a, err := s.Client.Session(ctx, "VU-1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Client.Session(ctx, "VU-2")
	if err != nil {
		t.Fatal(err)
	}
	if a.SessionID == "" || a.SessionID == b.SessionID {
		t.Fatalf("sessionIds %q and %q: want distinct, non-empty", a.SessionID, b.SessionID)
	}
	res, err := s.Client.CallSigned(ctx, s.BankURL+"/api/GenerateSessionInfoV2", "", map[string]string{"bName": "DEMOBANK", "virtualId": "VU-1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Envelope.CHANNELID != "REWARDSIM" {
		t.Errorf("CHANNELID = %q, want the service's own", res.Envelope.CHANNELID)
	}
}

// Golden wire shapes of the foundation's answers, volatile values masked.
func TestWireShapes_golden(t *testing.T) {
	s := simtest.New(t)
	ctx := context.Background()
	for _, op := range signedOps {
		res, err := s.Client.CallSigned(ctx, s.RewardsURL+op.path, "", op.payload)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "envelope/"+op.name+".answer.json", golden.Mask(t, res.Body, "SIGN", "BDATA"))
		golden.Check(t, "envelope/"+op.name+".bdata.json", golden.Mask(t, res.BDATA, "referenceKey", "token", "sessionId"))
		env, _ := publisher.Seal(foreignKey, "DEMOBANK", op.payload)
		res, _ = s.Client.PostEnvelope(ctx, s.RewardsURL+op.path, "", env)
		golden.Check(t, "envelope/"+op.name+".mismatch.json", res.Body)
	}
}

// clause: SDK-1, ENV-6
// Oversized input: an over-long virtualId on SDK issuance (it
// once reached the store and failed with a 500), an oversized launch form,
// and an oversized FetchRewardInfo body all answer 4xx in their shapes.
func TestOversizedInputs_ENV6(t *testing.T) {
	e := newCardEnv(t)
	req := sdkReq("LONG1")
	req["virtualId"] = strings.Repeat("v", 40000)
	if code, ans := e.sdkIssue("/sdk/getScratchCardDetails", req); code != http.StatusBadRequest || !strings.Contains(ans.Message, "virtualId") {
		t.Fatalf("40,000-character virtualId: HTTP %d %+v", code, ans)
	}

	form := url.Values{"virtualId": {"v"}, "sessionId": {"s"}, "payload": {strings.Repeat("x", 2<<20)}}
	res, err := http.Post(e.s.BankURL+"/sdk/launch", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode >= 500 {
		t.Fatalf("2 MiB launch form: HTTP %d", res.StatusCode)
	}

	big := bytes.Repeat([]byte("A"), 2<<20)
	r, err := e.s.Client.Do(e.ctx, http.MethodPost, e.s.RewardsURL+"/api/FetchRewardInfo",
		http.Header{"Authorization": {"Bearer " + e.userToken("VU-1")}}, append(append([]byte(`{"CHANNELID":"DEMOBANK","BDATA":"`), big...), '"', '}'))
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(r.Body), "larger than 1 MiB") {
		t.Fatalf("2 MiB FetchRewardInfo body: HTTP %d %s", r.StatusCode, r.Body)
	}
}
