package sim_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/internal/conform"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

var fuzzOnce struct {
	sync.Once
	h   http.Handler
	set *schema.Set
	err error
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
	s := simtest.New(f)
	for _, bdata := range []string{
		b64(`{"bName":"demobank","virtualId":"VU-1","channelName":"demobank"}`),
		b64(`{"bName":42}`), b64(`[]`), b64(`{"virtualId":""}`), b64(`not json`), "%%%",
	} {
		sign, _ := publisher.Sign(s.PublisherKey, bdata)
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
	fuzzOnce.Do(func() {
		var sm *sim.Sim
		sm, fuzzOnce.err = sim.New(sim.Options{DataDir: f.TempDir()})
		if fuzzOnce.err == nil {
			fuzzOnce.h = sm.Handler(sim.All)
			fuzzOnce.set, fuzzOnce.err = schema.Compile(schemas.FS)
		}
	})
	if fuzzOnce.err != nil {
		f.Fatal(fuzzOnce.err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, op := range contract.Ops {
			if op.Auth != contract.SignedEnvelope {
				continue
			}
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(op.Method, op.Path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			fuzzOnce.h.ServeHTTP(rec, req)
			if msg := conform.Answer(fuzzOnce.set, op, rec.Code, rec.Body.Bytes()); msg != "" {
				t.Fatalf("%s: HTTP %d %s: %s", op.Name, rec.Code, rec.Body, msg)
			}
		}
	})
}
