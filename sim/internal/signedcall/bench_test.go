package signedcall

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

type benchChannels struct {
	ch model.Channel
	sc *scenario.Scenario
}

func (b benchChannels) ByChannelID(id string) (model.Channel, *scenario.Scenario, bool) {
	return b.ch, b.sc, id == b.ch.ChannelID
}
func (b benchChannels) Active() *scenario.Scenario { return b.sc }

// BenchmarkSignedPath is the signed path's own work on a
// getSecuredReferenceToken call, without the HTTP stack or the store:
// Open (envelope, one RSA verify, BDATA into the request), and the
// answer's sealing but for its RSA sign (Encode, then the envelope
// written as the answer). The verify is in open's figure (about 18 µs
// with libcrypto); the rest is the parsing and encoding this package and
// envelope do.
func BenchmarkSignedPath(b *testing.B) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	set, err := schema.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	sc := &scenario.Scenario{}
	d := &Deps{Schemas: set, ServiceKey: key, Channels: benchChannels{model.Channel{Name: "DEMOBANK", ChannelID: "DEMO01", PublicKey: &key.PublicKey}, sc}}
	op, _ := contract.ByName(contract.OpReferenceToken)
	env, err := envelope.Seal(key, "DEMO01", map[string]string{"bName": "DEMOBANK"})
	if err != nil {
		b.Fatal(err)
	}
	body, _ := json.Marshal(env)
	e := echo.New()
	e.JSONSerializer = httpx.JSONSerializer{}
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var req struct {
				BName string `json:"bName"`
			}
			if _, err := d.Open(nil, op, body, nil, &req); err != nil || req.BName != "DEMOBANK" {
				b.Fatal(err, req)
			}
		}
	})
	sign := env.SIGN
	b.Run("answer-but-sign", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bdata, err := envelope.Encode(map[string]string{"expireDate": "2026-01-15 11:00:00.000", "referenceKey": "3ZRLMFcSPk10yTlJG2un00pBZAAHswWMbRAasypD5OA"})
			if err != nil {
				b.Fatal(err)
			}
			rec := httptest.NewRecorder()
			c := e.NewContext(httptest.NewRequest(http.MethodPost, "/api/getSecuredReferenceToken", nil), rec)
			if err := WriteEnvelope(c, envelope.Envelope{CHANNELID: "RWDSIM01", SIGN: sign, BDATA: bdata}); err != nil || !bytes.Contains(rec.Body.Bytes(), []byte(sign)) {
				b.Fatal(err)
			}
		}
	})
}
