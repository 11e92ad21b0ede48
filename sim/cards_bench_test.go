package sim_test

// Scratch-card benchmarks (docs/performance.md, "Scratch cards"). Every
// request goes through the real HTTP stack (httptest) and every write is a
// durable bbolt commit (fsync; parallel writers share one via db.Batch).
// Large stores are prefilled directly through the state package, once per
// size, then copied for each run. Run them with
//
//	go test -run '^$' -bench 'GetRewardNewCard|CardsAtScale' -benchtime 3s ./sim/

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/cputime"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/state"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// benchClient has enough connections for RunParallel's goroutines and
// skips the harness's schema check (the tests prove the shapes).
// benchParallelism is RunParallel's goroutines per core: enough callers
// in flight that a group commit carries many writes (REWARDSIM_BENCH_PAR overrides).
func benchParallelism() int {
	if n, err := strconv.Atoi(os.Getenv("REWARDSIM_BENCH_PAR")); err == nil && n > 0 {
		return n
	}
	return 128
}

// benchMeasure runs fn's timed region and reports throughput and CPU per op.
func benchMeasure(b *testing.B, unit string, fn func()) {
	b.ResetTimer()
	cpu := cputime.Process()
	fn()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
}

func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024}}
}

func benchPost(b *testing.B, c *http.Client, url, bearer string, body []byte, want []byte) {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	benchSend(b, c, req, want)
}

func benchSend(b *testing.B, c *http.Client, req *http.Request, want []byte) {
	res, err := c.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Contains(raw, want) {
		b.Errorf("HTTP %d %s", res.StatusCode, raw)
	}
}

// BenchmarkGetRewardNewCard issues one new card per call (a new user and
// extTransactionId each time), 64 callers in parallel.
func BenchmarkGetRewardNewCard(b *testing.B) {
	benchNewCards(b, simtest.New(b), "B", "cards/s")
}

// benchNewCards measures GetReward issuing a new card to a new user each
// call (users named by prefix), benchParallelism callers at once.
func benchNewCards(b *testing.B, s *simtest.Server, prefix, unit string) {
	ref, err := s.Client.ReferenceToken(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	c := benchClient()
	var n atomic.Int64
	b.SetParallelism(benchParallelism())
	b.ReportAllocs()
	benchMeasure(b, unit, func() {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				i := n.Add(1)
				body := fmt.Appendf(nil, `{"channelName":"DEMOBANK","virtualId":"%sV-%d","triggerEventType":"UPI","extTransactionId":"%sX%d","amount":100.00,"dateandtime":"15012026100000"}`, prefix, i, prefix, i)
				benchPost(b, c, s.RewardsURL+"/api/GetReward", ref.ReferenceKey, body, []byte(`"status":true`))
			}
		})
	})
}

const benchChannel = "DEMOBANK"

// fillCards adds n unscratched cards spread over users of prefix, cardsPerUser each.
func fillCards(b *testing.B, st *state.Store, prefix string, n, cardsPerUser int, revealEvery int) []model.Card {
	var out []model.Card
	const chunk = 50_000
	for done := 0; done < n; done += chunk {
		err := st.UpdateCards(benchChannel, func(tx *state.CardTx) error {
			for i := done; i < min(done+chunk, n); i++ {
				c := model.Card{
					Channel: benchChannel, VirtualID: fmt.Sprintf("%s-%07d", prefix, i/cardsPerUser),
					CampaignID: "CAMP-DEMO", Pool: "DEMO-POOL", Source: "GetReward",
					ExtTransactionID: fmt.Sprintf("%s-X%d", prefix, i), Trigger: "UPI", CreatedAt: simtest.Start,
				}
				if revealEvery > 0 && i%revealEvery == 0 {
					c.Reward = &model.Reward{Offer: model.Offer{OfferTitle: "Prefilled", CouponCode: "PRE-" + strconv.Itoa(i)}, EntryID: "COFFEE-50", RevealedAt: simtest.Start}
				}
				if err := tx.InsertCard(&c); err != nil {
					return err
				}
				if n <= 100_000 {
					out = append(out, c)
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return out
}

func benchUserToken(b *testing.B, st *state.Store, vid string) string {
	v := "bench-user-token-" + vid
	err := st.PutToken(model.Token{Value: v, Kind: model.UserToken, Channel: benchChannel, VirtualID: vid, IssuedAt: simtest.Start, ExpiresAt: simtest.Start.Add(1000 * time.Hour)})
	if err != nil {
		b.Fatal(err)
	}
	return v
}

func benchCopyFile(b *testing.B, from, to string) {
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		b.Fatal(err)
	}
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCardsAtScale compares a first reveal with a raw RSA-2048 sign
// run beside it, and shows that reveal and listing cost does not grow with
// the number of cards in the store (10k against 1M).
func BenchmarkCardsAtScale(b *testing.B) {
	key := simtest.New(b).PublisherKey
	bdata := "eyJyZXdhcmRJZCI6IjEyMzQ1IiwidmlydHVhbElkIjoiQlUtMDAwMDEiLCJjaGFubmVsTmFtZSI6IkRFTU9CQU5LIn0="
	b.Run("raw-rsa2048-sign", func(b *testing.B) {
		b.SetParallelism(32)
		benchMeasure(b, "ops/s", func() {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := publisher.Sign(key, bdata); err != nil {
						b.Error(err)
					}
				}
			})
		})
	})
	for _, size := range []int{10_000, 1_000_000} {
		label := map[int]string{10_000: "10k", 1_000_000: "1M"}[size]
		var once sync.Once
		template := filepath.Join(b.TempDir(), "template")
		prepare := func(b *testing.B) {
			once.Do(func() {
				start := time.Now()
				defer func() { b.Logf("store of %s cards built in %s", label, time.Since(start).Round(time.Millisecond)) }()
				st, err := state.Open(template, state.Options{})
				if err != nil {
					b.Fatal(err)
				}
				fillCards(b, st, "BG", size, 10, 3) // background: 10 cards per user, a third revealed
				fillCards(b, st, "LU", 25, 25, 2)   // the listing user: 25 cards, 13 revealed
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
			})
		}
		// storeCopy gives a sub-benchmark its own open copy of the template store.
		storeCopy := func(b *testing.B) (*state.Store, string) {
			prepare(b)
			dir := b.TempDir()
			benchCopyFile(b, filepath.Join(template, state.FileName), filepath.Join(dir, state.FileName))
			st, err := state.Open(dir, state.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return st, dir
		}
		b.Run("reveal/store="+label, func(b *testing.B) {
			st, dir := storeCopy(b)
			const users = 64
			fresh := fillCards(b, st, "RU", b.N, max(1, (b.N+users-1)/users), 0)
			toks := map[string]string{}
			for _, c := range fresh {
				if toks[c.VirtualID] == "" {
					toks[c.VirtualID] = benchUserToken(b, st, c.VirtualID)
				}
			}
			st.Close()
			// The publisher's request signatures are made before the clock starts.
			bodies := make([][]byte, len(fresh))
			var wg sync.WaitGroup
			for w := range 2 {
				wg.Go(func() {
					for i := w; i < len(fresh); i += 2 {
						env, err := publisher.Seal(key, benchChannel, map[string]string{"rewardId": strconv.FormatUint(fresh[i].RewardID, 10), "virtualId": fresh[i].VirtualID, "channelName": benchChannel})
						if err != nil {
							b.Error(err)
						}
						bodies[i], _ = json.Marshal(env)
					}
				})
			}
			wg.Wait()
			s := simtest.New(b, simtest.WithDataDir(dir))
			c := benchClient()
			var next atomic.Int64
			b.SetParallelism(benchParallelism())
			benchMeasure(b, "reveals/s", func() {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						i := next.Add(1) - 1
						benchPost(b, c, s.RewardsURL+"/api/FetchRewardInfo", toks[fresh[i].VirtualID], bodies[i], []byte(`"SIGN"`))
					}
				})
			})
		})
		b.Run("list/store="+label, func(b *testing.B) {
			st, dir := storeCopy(b)
			tok := benchUserToken(b, st, "LU-0000000")
			st.Close()
			s := simtest.New(b, simtest.WithDataDir(dir))
			c := benchClient()
			b.SetParallelism(8)
			benchMeasure(b, "lists/s", func() {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						req, _ := http.NewRequest(http.MethodGet, s.RewardsURL+"/api/GetAllScratchCardsByUserId?page=2&limit=10", nil)
						req.Header.Set("Authorization", "Bearer "+tok)
						benchSend(b, c, req, []byte(`"total":25`))
					}
				})
			})
		})
	}
}
