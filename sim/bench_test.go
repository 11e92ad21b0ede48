package sim_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
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
// with b.RunParallel in the same `go test -bench` run; the README reports
// round-trip ops/s divided by raw-sign ops/s (target 0.9 or more).
func BenchmarkTokenRoundTrip(b *testing.B) {
	keyPEM, _ := fs.ReadFile(certs.FS, certs.ServiceKey)
	serviceKey, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		b.Fatal(err)
	}
	answerBDATA := base64.StdEncoding.EncodeToString([]byte(`{"expireDate":"2026-01-15 11:00:00.000","referenceKey":"3ZRLMFcSPk10yTlJG2un00pBZAAHswWMbRAasypD5OA"}`))

	b.Run("raw-sign", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := publisher.Sign(serviceKey, answerBDATA); err != nil {
					b.Fatal(err)
				}
			}
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
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
		b.SetParallelism(8) // hide the group-commit fsync wait behind other requests
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				res, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				ans, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 || !bytes.Contains(ans, []byte(`"SIGN"`)) {
					b.Fatalf("HTTP %d %s", res.StatusCode, ans)
				}
			}
		})
	})
}
