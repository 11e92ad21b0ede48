package schema

import (
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
