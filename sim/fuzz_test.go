package sim_test

import (
	"bytes"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/internal/conform"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// fuzzTarget is one simulator per test process, made once and shared by
// both targets: no listening server, no per-target start-up, so a fuzz
// worker starts executing at once.
var fuzzTarget struct {
	sync.Once
	h      http.Handler
	set    *schema.Set
	refKey string // a reference token for GetReward
	err    error
}

func fuzzSetup(f *testing.F) {
	fuzzTarget.Do(func() {
		sm, err := sim.New(sim.Options{DataDir: f.TempDir()})
		if err != nil {
			fuzzTarget.err = err
			return
		}
		fuzzTarget.h = sm.Handler(sim.All)
		if fuzzTarget.set, err = schema.Embedded(); err != nil {
			fuzzTarget.err = err
			return
		}
		fuzzTarget.refKey, fuzzTarget.err = fuzzReferenceToken(fuzzTarget.h)
	})
	if fuzzTarget.err != nil {
		f.Fatal(fuzzTarget.err)
	}
}

// fuzzKey is the embedded test-only DEMOBANK key.
func fuzzKey() *rsa.PrivateKey {
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	k, _ := publisher.ParsePrivateKeyPEM(keyPEM)
	return k
}

// fuzzReferenceToken asks h for DEMOBANK's reference token.
func fuzzReferenceToken(h http.Handler) (string, error) {
	bdata := b64(`{"bName":"DEMOBANK"}`)
	sign, err := publisher.Sign(fuzzKey(), bdata)
	if err != nil {
		return "", err
	}
	raw, _ := json.Marshal(publisher.Envelope{CHANNELID: "DEMOBANK", SIGN: sign, BDATA: bdata})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/api/getSecuredReferenceToken", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	var env struct{ BDATA string }
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		return "", fmt.Errorf("reference token: %v: %s", err, rec.Body)
	}
	payload, _ := base64.StdEncoding.DecodeString(env.BDATA)
	var tok struct{ ReferenceKey string }
	if json.Unmarshal(payload, &tok) != nil || tok.ReferenceKey == "" {
		return "", errors.New("reference token: no referenceKey in " + string(payload))
	}
	return tok.ReferenceKey, nil
}

// fuzzOps sends body to every operation authenticated by auth (nil: any
// but the signed envelope) and checks each answer against its schema.
func fuzzOps(t *testing.T, body []byte, want func(contract.Auth) bool) {
	for _, op := range contract.Ops {
		if op.Method != http.MethodPost || !want(op.Auth) {
			continue
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(op.Method, op.Path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		switch op.Auth {
		case contract.APIKey:
			req.Header.Set("X-CHANNELID", "DEMOBANK")
			req.Header.Set("Authorization", "ServiceAppKey DEMOAPPKEY:DEMOSECKEY")
		case contract.BearerRef:
			req.Header.Set("Authorization", "Bearer "+fuzzTarget.refKey)
		}
		fuzzTarget.h.ServeHTTP(rec, req)
		if msg := conform.Answer(fuzzTarget.set, op, rec.Code, rec.Body.Bytes()); msg != "" {
			t.Fatalf("%s: HTTP %d %s: %s", op.Name, rec.Code, rec.Body, msg)
		}
	}
}

// FuzzSignedEndpoints throws arbitrary bodies at every signed-envelope
// endpoint: none may panic, answer 5xx, or answer outside its schema.
//
// clause: ENV-6
func FuzzSignedEndpoints(f *testing.F) {
	// Seeds are validly signed envelopes whose payloads fail after the
	// signature check, so the fuzzer explores the whole decoder. Seeds that
	// succeed are left out on purpose: fuzzing instruments crypto, so every
	// successful answer (RSA-signed) would cost seconds per execution.
	key := fuzzKey()
	for _, bdata := range []string{
		b64(`{"bName":"demobank","virtualId":"VU-1","channelName":"demobank"}`),
		b64(`{"bName":42}`), b64(`[]`), b64(`{"virtualId":""}`), b64(`not json`), "%%%",
	} {
		sign, _ := publisher.Sign(key, bdata)
		raw, _ := json.Marshal(publisher.Envelope{CHANNELID: "DEMOBANK", SIGN: sign, BDATA: bdata})
		f.Add(raw)
	}
	for _, seed := range []string{
		``, `{}`, `[]`, `null`, `"x"`, `{"CHANNELID":"DEMOBANK","SIGN":"","BDATA":""}`,
		`{"CHANNELID":"DEMOBANK","SIGN":"AAAA","BDATA":"e30="}`, `{"CHANNELID":["x"],"BDATA":{}}`,
		`{"CHANNELID":"DEMOBANK","SIGN":"x","BDATA":"W10="}`, "{\"CHANNELID\":\"\xff\",\"BDATA\":\"\"}",
	} {
		f.Add([]byte(seed))
	}
	fuzzSetup(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzOps(t, body, func(a contract.Auth) bool { return a == contract.SignedEnvelope })
	})
}

// FuzzPlainJSONEndpoints throws arbitrary bodies, with valid credentials,
// at every plain-JSON endpoint: GetReward (a reference token), the coupon
// host's catalogue, claim and listing (API key) and the SDK issuance:
// none may panic, answer 5xx, or answer outside its schema.
//
// clause: ENV-6, CPN-1
func FuzzPlainJSONEndpoints(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `[]`, `null`, `"x"`, `{"channelName":"DEMOBANK"}`,
		`{"channelName":"DEMOBANK","virtualId":"VU-1"}`,
		`{"offerId":"OFFER-DEMO","virtualId":"VU-1","channelName":"DEMOBANK","extTransactionId":"TX-1","coinsUsed":"100"}`,
		`{"offerId":"OFFER-DEMO","virtualId":"VU-1","channelName":"DEMOBANK","extTransactionId":"TX-1","coinsUsed":100}`,
		`{"offerId":"NOPE","virtualId":"VU-2","channelName":"DEMOBANK","extTransactionId":"TX-2","coinsUsed":"-1"}`,
		`{"channelName":"DEMOBANK","virtualId":"VU-1","triggerEventType":"UPI","extTransactionId":"TX-G","amount":150.5,"dateandtime":"15012026100000"}`,
		`{"channelName":"DEMOBANK","virtualId":"VU-1","triggerEventType":"UPI","extTransactionId":"TX-G","additionalParams":{"a":1}}`,
		`{"channelName":"DEMOBANK","virtualId":"VU-1","sessionId":"x","mobileNumber":"9999999999"}`,
		"{\"channelName\":\"\xff\"}", `{"virtualId":"` + string(bytes.Repeat([]byte("v"), 300)) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	fuzzSetup(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzOps(t, body, func(a contract.Auth) bool { return a != contract.SignedEnvelope })
	})
}
