package schema

import (
	"encoding/json"
	"testing"

	"github.com/rewardsim/rewardsim/schemas"
)

// BenchmarkValidate measures, in one run, a valid request checked through
// Validate (quick's walk first) and by the library alone, for the request
// bodies every write carries: the number that decides whether quick.go
// earns its keep (docs/performance.md).
func BenchmarkValidate(b *testing.B) {
	set, err := Compile(schemas.FS)
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct{ schema, body string }{
		{"GetReward.request", `{"channelName":"DEMOBANK","virtualId":"VU-1","triggerEventType":"UPI","extTransactionId":"TXN-1","amount":250.5,"dateandtime":"15012026100000"}`},
		{"fetchCouponCode.request", `{"channelName":"DEMOBANK","offerId":"OFFER-DEMO","virtualId":"VU-1","extTransactionId":"TX-1","coinsUsed":"100"}`},
		{"envelope.request", `{"CHANNELID":"DEMOBANK","BDATA":"eyJiTmFtZSI6IkRFTU9CQU5LIn0=","SIGN":"c2lnbmF0dXJl"}`},
	}
	for _, c := range cases {
		v, err := DecodeJSON([]byte(c.body))
		if err != nil {
			b.Fatal(err)
		}
		sch, err := set.get(c.schema)
		if err != nil {
			b.Fatal(err)
		}
		if err := set.Validate(c.schema, v); err != nil {
			b.Fatalf("%s: %v", c.schema, err)
		}
		b.Run(c.schema+"/quick", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := set.Validate(c.schema, v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.schema+"/library", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := sch.Validate(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeRequest measures, in one run, a JSON request's way in:
// decoded once for the schema check and the request's fields (Parse,
// Validate, Into), beside the second decode it replaced (json.Unmarshal
// after the check), for GetReward's and fetchCouponCode's bodies.
func BenchmarkDecodeRequest(b *testing.B) {
	set, err := Compile(schemas.FS)
	if err != nil {
		b.Fatal(err)
	}
	type getReward struct {
		ChannelName      string          `json:"channelName"`
		VirtualID        string          `json:"virtualId"`
		Trigger          string          `json:"triggerEventType"`
		SubTrigger       string          `json:"subTriggerEventType"`
		ExtTransactionID string          `json:"extTransactionId"`
		Amount           json.Number     `json:"amount"`
		DateAndTime      string          `json:"dateandtime"`
		AdditionalParams json.RawMessage `json:"additionalParams"`
	}
	type claim struct {
		OfferID          string          `json:"offerId"`
		VirtualID        string          `json:"virtualId"`
		ExtTransactionID string          `json:"extTransactionId"`
		CoinsUsed        json.RawMessage `json:"coinsUsed"`
	}
	cases := []struct {
		schema, body string
		req          func() any
	}{
		{"GetReward.request", `{"channelName":"DEMOBANK","virtualId":"VU-1","triggerEventType":"UPI","extTransactionId":"TXN-1","amount":100.00,"dateandtime":"15012026100000"}`,
			func() any { return new(getReward) }},
		{"fetchCouponCode.request", `{"offerId":"OFFER-DEMO","virtualId":"VU-1","channelName":"DEMOBANK","extTransactionId":"TX-1","coinsUsed":"100"}`,
			func() any { return new(claim) }},
	}
	for _, c := range cases {
		body := []byte(c.body)
		for _, way := range []struct {
			name   string
			decode func(p Parsed, dst any) error
		}{
			{"once", Parsed.Into},
			{"twice", func(p Parsed, dst any) error { return json.Unmarshal(p.Raw, dst) }},
		} {
			b.Run(c.schema+"/"+way.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					p, err := Parse(body)
					if err == nil {
						err = set.Validate(c.schema, p.Value)
					}
					if err == nil {
						err = way.decode(p, c.req())
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
