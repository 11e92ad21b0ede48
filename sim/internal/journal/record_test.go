package journal

import (
	"encoding/base64"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// The builder takes whom a call was for from the exchange, as its way in
// noted it, and never from the request it carries: a body naming another
// channel, or a token handed out earlier, changes nothing.
func TestBuilder_factsFromTheWayIn(t *testing.T) {
	b := NewBuilder(secrets.New())
	b.record(&Exchange{Method: "POST", Path: "/api/GetAuthToken", Channel: "BANK", ChannelID: "CID", VirtualID: "U1",
		ResponseBody: []byte(`{"BDATA":"` + b64(`{"token":"TOKEN-1"}`) + `"}`)})
	claims := &Exchange{Method: "POST", Path: "/api/GetAuthToken", Channel: "BANK", ChannelID: "CID", VirtualID: "U1",
		RequestBody: []byte(`{"CHANNELID":"OTHER-ID","BDATA":"` + b64(`{"bName":"OTHER","virtualId":"U9"}`) + `"}`)}
	if r := b.record(claims); r.Channel != "BANK" || r.ChannelID != "CID" || r.VirtualID != "U1" {
		t.Errorf("a body naming another channel: %q %q %q, want the way in's BANK CID U1", r.Channel, r.ChannelID, r.VirtualID)
	}
	list := &Exchange{Method: "GET", Path: "/api/rewards", reqPairs: headerPairs{"Authorization", "Bearer TOKEN-1"}}
	if r := b.record(list); r.Channel != "" || r.VirtualID != "" {
		t.Errorf("a bearer call noted by no way in attributed to %q %q", r.Channel, r.VirtualID)
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// BenchmarkOutcome is the cost of an entry's summary, its outcome read
// from the answer (outcome.Of), beside the baseline of expanding its
// answer as every journal read does (message: compacting the JSON and
// decoding BDATA).
func BenchmarkOutcome(b *testing.B) {
	signed := `{"CHANNELID":"X","SIGN":"s","BDATA":"` + base64.StdEncoding.EncodeToString([]byte(`{"status":true,"token":"abcdefghijklmnop","expireDate":"2026-01-15 10:30:00.000"}`)) + `"}`
	for _, c := range []struct {
		name string
		r    record
	}{
		{"plain", record{Kind: KindExchange, Status: 200, ResBody: []byte(`{"status":true,"message":"success","rewards":[]}`)}},
		{"signed", record{Kind: KindExchange, Status: 200, ResBody: []byte(signed)}},
	} {
		b.Run("baseline-message/"+c.name, func(b *testing.B) {
			for b.Loop() {
				_ = message(nil, c.r.ResBody, false)
			}
		})
		b.Run("outcome/"+c.name, func(b *testing.B) {
			for b.Loop() {
				_ = c.r.summary()
			}
		})
	}
}
