package sim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/internal/cputime"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// BenchmarkJournal measures what journaling costs through the real HTTP
// stack, with parallel clients: the RSA-dominated getSecuredReferenceToken
// round trip, and a cheap answer (an unknown CHANNELID, refused before
// any signature work) where the journal's share is largest.
func BenchmarkJournal(b *testing.B) {
	for _, bc := range []struct {
		name    string
		channel string
	}{{"referenceToken", "DEMOBANK"}, {"cheapFailure", "NOSUCH"}} {
		for _, mode := range []struct {
			name string
			opts sim.JournalOptions
		}{{"journal=off", sim.JournalOptions{Disabled: true}}, {"journal=on", sim.JournalOptions{}}} {
			b.Run(bc.name+"/"+mode.name, func(b *testing.B) {
				s := simtest.New(b, simtest.WithJournal(mode.opts))
				env, err := publisher.Seal(s.PublisherKey, bc.channel, map[string]string{"bName": "DEMOBANK"})
				if err != nil {
					b.Fatal(err)
				}
				body, _ := json.Marshal(env)
				url := s.RewardsURL + "/api/getSecuredReferenceToken"
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
				b.ReportAllocs()
				cpu0 := cputime.Process()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						res, err := client.Post(url, "application/json", bytes.NewReader(body))
						if err != nil {
							b.Error(err)
							return
						}
						_, _ = io.Copy(io.Discard, res.Body)
						res.Body.Close()
						if res.StatusCode != http.StatusOK {
							b.Errorf("HTTP %d", res.StatusCode)
							return
						}
					}
				})
				b.StopTimer()
				// The process's CPU time per request (client, server and
				// journal writer together) is far steadier than ns/op on
				// a shared machine.
				b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
				res, err := http.Get(s.ControlURL + "/__sim/journal?limit=1")
				if err != nil {
					b.Fatal(err)
				}
				var page struct{ Dropped int }
				_ = json.NewDecoder(res.Body).Decode(&page)
				res.Body.Close()
				b.ReportMetric(float64(page.Dropped), "dropped")
			})
		}
	}
}
