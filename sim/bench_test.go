package sim_test

import (
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// BenchmarkTokenRoundTrip pairs the floor (one raw RSA-2048 sign, what
// every signed answer must pay) with a getSecuredReferenceToken round trip
// through the real HTTP stack: decode, verify, store the token durably,
// sign, encode. The request is signed once before the timer starts, so the
// figure is the server's work (plus the in-process client's). Both run
// with b.RunParallel in the same `go test -bench` run; docs/performance.md reports
// round-trip ops/s divided by raw-sign ops/s (target 0.9 or more), and the
// CPU per operation of each, which this shared VM's noisy wall clock and
// disk leave steadier.
func BenchmarkTokenRoundTrip(b *testing.B) {
	keyPEM, _ := fs.ReadFile(certs.FS, certs.ServiceKey)
	serviceKey, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		b.Fatal(err)
	}
	answerBDATA := base64.StdEncoding.EncodeToString([]byte(`{"expireDate":"2026-01-15 11:00:00.000","referenceKey":"3ZRLMFcSPk10yTlJG2un00pBZAAHswWMbRAasypD5OA"}`))

	b.Run("raw-sign", func(b *testing.B) {
		benchMeasure(b, "signs/s", func() {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := publisher.Sign(serviceKey, answerBDATA); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	})

	b.Run("getSecuredReferenceToken", func(b *testing.B) {
		s := simtest.New(b)
		env, err := publisher.Seal(s.PublisherKey, "DEMOBANK", map[string]string{"bName": "DEMOBANK"})
		if err != nil {
			b.Fatal(err)
		}
		body, _ := json.Marshal(env)
		url := s.RewardsURL + "/api/getSecuredReferenceToken"
		client := benchClient()
		b.SetParallelism(8) // hide the group-commit fsync wait behind other requests
		benchMeasure(b, "tokens/s", func() {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					benchPost(b, client, url, "", body, []byte(`"SIGN"`))
				}
			})
		})
	})
}
