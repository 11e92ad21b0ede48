package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

func open(t *testing.T, o Options) (*Journal, *store, *echo.Echo) {
	t.Helper()
	j, err := Open(t.TempDir(), o)
	if err != nil {
		t.Fatal(err)
	}
	st := j.store
	t.Cleanup(func() { j.Close() })
	e := echo.New()
	e.Use(j.Middleware("all"))
	e.POST("/api/:op", func(c echo.Context) error {
		body := make([]byte, 64)
		n, _ := c.Request().Body.Read(body)
		// As a way in notes whom the call is for: the journal reads no request.
		ch, id, v := envelope.Identity(c.Request().Header.Get("X-Channelid"), body[:n])
		httpx.NoteCaller(c, ch, id, v)
		if strings.Contains(string(body[:n]), "fail") {
			c.Response().Header().Set("X-Rewardsim-Reason", "injected fault: http-status")
			return c.String(http.StatusTeapot, "teapot")
		}
		return c.JSON(http.StatusOK, map[string]any{"ok": true, "echo": string(body[:n])})
	})
	return j, st, e
}

func serve(e *echo.Echo, path, body string, h http.Header) {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	for k, v := range h {
		req.Header[k] = v
	}
	e.ServeHTTP(httptest.NewRecorder(), req)
}

// clause: SIM-4
// The bound holds under a 100k-request run: the journal keeps exactly
// MaxEntries entries and its file stays small, while parallel queries run.
func TestJournal_SIM4_boundHoldsUnder100kRequests(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 10_000
	}
	const max = 1000
	j, st, e := open(t, Options{MaxEntries: max})
	var wg sync.WaitGroup
	workers := 4
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				serve(e, "/api/GetReward", fmt.Sprintf(`{"channelName":"DEMOBANK","virtualId":"VU-%d","extTransactionId":"T%d"}`, i%50, i), nil)
				if i%20_000 == 0 {
					if _, err := j.Query(context.Background(), Filter{Limit: 5}); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	p, err := j.Query(context.Background(), Filter{Limit: 2000})
	if err != nil {
		t.Fatal(err)
	}
	// Every answer is numbered as it starts (X-Rewardsim-Seq), so an
	// entry dropped on a full queue leaves a gap in the numbers.
	if p.Stored != max || len(p.Entries) != max || p.Entries[max-1].Seq > uint64(n) || p.Entries[max-1].Seq-p.Entries[0].Seq < max-1 {
		t.Fatalf("stored %d, page %d (seq %d..%d), dropped %d; want %d of the newest of %d", p.Stored, len(p.Entries), p.Entries[0].Seq, p.Entries[len(p.Entries)-1].Seq, p.Dropped, max, n)
	}
	for i := 1; i < max; i++ {
		if p.Entries[i].Seq <= p.Entries[i-1].Seq {
			t.Fatalf("entries out of order at %d: %d after %d", i, p.Entries[i].Seq, p.Entries[i-1].Seq)
		}
	}
	info, err := os.Stat(st.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > 32<<20 {
		t.Errorf("the store grew to %d bytes for %d kept entries", info.Size(), max)
	}
	t.Logf("%d requests, %d dropped, file %d KiB", n, p.Dropped, info.Size()>>10)
}

// clause: SIM-4
func TestJournal_SIM4_identifiesChannelUserFaultAndMasks(t *testing.T) {
	j, _, e := open(t, Options{Clock: clock.One{Clock: clock.NewFake(time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC))}})
	serve(e, "/api/fetchCouponCode", `{"offerId":"O1","virtualId":"VU-9","channelName":"DEMOBANK"}`,
		http.Header{"X-Channelid": {"DEMOID"}, "Authorization": {"ServiceAppKey APP:SEC"}})
	serve(e, "/api/GetReward", `{"fail":1}`, http.Header{"X-Channelid": {"HOTID"}})
	serve(e, "/api/x", `not json`, nil)
	es, err := j.Entries(context.Background(), Filter{})
	if err != nil || len(es) != 3 {
		t.Fatalf("%d entries, %v", len(es), err)
	}
	a, b, c := es[0], es[1], es[2]
	if a.Channel != "DEMOBANK" || a.ChannelID != "DEMOID" || a.VirtualID != "VU-9" || a.Request.Header["Authorization"] != "ServiceAppKey "+secrets.Fingerprint("APP:SEC") {
		t.Errorf("coupon entry: %+v", a)
	}
	if b.Channel != "HOTID" || b.Fault != "http-status" || b.Status != http.StatusTeapot || b.Response.Text != "teapot" {
		t.Errorf("fault entry: %+v", b)
	}
	if c.Request.Text != "not json" || c.Request.Body != nil || !a.At.Equal(time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("text entry: %+v", c)
	}
}

// clause: SIM-4, WH-2
func TestJournal_SIM4_recordsWebhookAttempts(t *testing.T) {
	j, _, _ := open(t, Options{})
	j.RecordWebhook(WebhookAttempt{At: time.Now(), URL: "http://pub.test/hook", Channel: "DEMOBANK", RequestBody: []byte(`{"eventType":"COUPON_INVALIDATED"}`),
		Status: 200, ResponseBody: []byte(`{"status":"OK"}`), Latency: 1500 * time.Millisecond})
	es, err := j.Entries(context.Background(), Filter{Kind: KindWebhook, Channel: "DEMOBANK"})
	if err != nil || len(es) != 1 {
		t.Fatalf("%d webhook entries, %v", len(es), err)
	}
	if w := es[0]; w.Path != "http://pub.test/hook" || w.LatencyMs != 1500 || string(w.Response.Body) != `{"status":"OK"}` {
		t.Errorf("webhook entry %+v", w)
	}
}

// clause: SIM-4
// A full queue drops (and counts) instead of blocking; Close flushes what
// was queued.
func TestJournal_SIM4_fullQueueDropsAndCloseFlushes(t *testing.T) {
	dir := t.TempDir()
	st, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	j := &Journal{opts: Options{MaxEntries: DefaultMaxEntries, Clock: clock.One{Clock: clock.Real{}}, Wall: clock.Real{}}, store: st, queue: make(chan item, 2), done: make(chan struct{}), builder: NewBuilder(secrets.New())}
	// No writer yet: the third enqueue finds the queue full.
	for i := 0; i < 3; i++ {
		j.RecordWebhook(WebhookAttempt{URL: fmt.Sprint("u", i)})
	}
	if j.Dropped() != 1 {
		t.Fatalf("dropped %d, want 1", j.Dropped())
	}
	go j.write()
	j.Close()
	st, err = openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	n, err := st.count()
	if err != nil || n != 2 {
		t.Errorf("after Close the store holds %d entries, want 2 (%v)", n, err)
	}
	j.RecordWebhook(WebhookAttempt{}) // after Close: ignored, no panic
}

func TestMaskHeader(t *testing.T) {
	got := secrets.MaskHeader(http.Header{"Authorization": {"Bearer abc"}, "X-Sec-Key": {"k"}, "Content-Type": {"application/json"}, "Cookie": {"a=b"}})
	want := map[string]string{"Authorization": "Bearer " + secrets.Fingerprint("abc"), "X-Sec-Key": secrets.Fingerprint("k"), "Content-Type": "application/json", "Cookie": secrets.Fingerprint("a=b")}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("MaskHeader = %s, want %s", g, w)
	}
}

func TestCodec_roundTrip(t *testing.T) {
	in := &record{Seq: 42, Kind: KindExchange, At: time.Date(2026, 1, 15, 10, 0, 0, 5, time.FixedZone("IST", 19800)), LatencyUs: 1234,
		Listener: "all", Host: "rewards", Endpoint: "GetAuthToken", Method: "POST", Path: "/api/GetAuthToken", Query: "a=1",
		Channel: "DEMOBANK", ChannelID: "DEMOID", VirtualID: "VU-1", Status: 200, Reason: "r", Fault: "f", Error: "e",
		ClientGone: true, ResTrunc: true, ReqHeader: map[string]string{"A": "1", "B": ""}, ResHeader: nil,
		ReqBody: []byte(`{"x":1}`), ResBody: nil}
	data := in.appendBinary(nil)
	var out record
	if err := out.unmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if !out.At.Equal(in.At) || out.At.Format(time.RFC3339Nano) != "2026-01-15T10:00:00.000000005+05:30" {
		t.Errorf("at %v", out.At)
	}
	out.At, in.At = time.Time{}, time.Time{}
	if fmt.Sprintf("%+v", out) != fmt.Sprintf("%+v", *in) {
		t.Errorf("round trip\n got %+v\nwant %+v", out, *in)
	}
	for i := range data { // every truncation is an error, never a panic
		var r record
		if r.unmarshalBinary(data[:i]) == nil {
			t.Fatalf("a record cut at %d bytes decoded", i)
		}
	}
}

// clause: SIM-4
// Scan pages by bytes as well as by count (a page of large bodies is a
// few MiB, not 512 of them), and still hands every selected entry over
// once, in order, across the pages; fn returning false stops it.
func TestScan_pagesByBytesAndHandsEveryEntryOnce(t *testing.T) {
	j, _, _ := open(t, Options{})
	big := []byte(`"` + strings.Repeat("x", 60<<10) + `"`)
	const n = 300 // about 18 MiB: several pages of scanPageBytes
	for i := range n {
		body := big
		if i%7 == 0 {
			body = []byte(`{"small":true}`)
		}
		j.RecordWebhook(WebhookAttempt{At: time.Now(), URL: "http://pub.test/hook", Channel: "DEMOBANK", RequestBody: body, Status: 200})
	}
	ctx := context.Background()
	if err := j.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	if err := j.Scan(ctx, Filter{}, func(e Entry) bool { seqs = append(seqs, e.Seq); return true }); err != nil {
		t.Fatal(err)
	}
	if len(seqs) != n {
		t.Fatalf("Scan handed over %d entries, want %d", len(seqs), n)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("entry %d is seq %d after %d", i, seqs[i], seqs[i-1])
		}
	}
	got := 0
	if err := j.Scan(ctx, Filter{After: seqs[100]}, func(Entry) bool { got++; return got < 150 }); err != nil || got != 150 {
		t.Fatalf("a Scan stopped at the 150th entry saw %d, %v", got, err)
	}
}

// clause: SIM-4
// A journal page holds at most maxPageBytes of bodies, whatever its
// limit: it ends early with Next set, and following Next hands over
// every entry once.
func TestQuery_pageBoundedByBytes(t *testing.T) {
	j, _, _ := open(t, Options{})
	big := []byte(`"` + strings.Repeat("x", 60<<10) + `"`)
	const n = 300 // about 18 MiB of bodies
	ctx := context.Background()
	for i := range n {
		j.RecordWebhook(WebhookAttempt{At: time.Now(), URL: "http://pub.test/hook", Channel: "DEMOBANK", RequestBody: big, Status: 200})
		if i%50 == 49 { // under the queue's byte bound
			if err := j.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	seen, pages := 0, 0
	for after := uint64(0); ; pages++ {
		p, err := j.Query(ctx, Filter{After: after, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		held := 0
		for _, e := range p.Entries {
			held += e.bodyBytes()
		}
		if held > maxPageBytes+len(big)+64 {
			t.Fatalf("a page held %d bytes of bodies, bound %d", held, maxPageBytes)
		}
		seen += len(p.Entries)
		if p.Next == 0 {
			break
		}
		after = p.Next
	}
	if seen != n || pages < 2 {
		t.Fatalf("%d entries over %d pages, want %d over several", seen, pages+1, n)
	}
}

// The writer masks headers as pairs (issue 25); they must read back as
// MaskHeader's map of the same header, whatever the names' case, repeats
// and secrets, twice over the same memo (its second answers are
// remembered ones).
func TestMaskedPairs_asMaskHeader(t *testing.T) {
	names := []string{"Authorization", "authorization", "Content-Type", "X-Sec-Key", "x-sec-key", "Cookie", "X-Request-Id", "set-cookie", "X-Api-Token"}
	values := []string{"", "Bearer 9Jq3fC0m2v6kXo1R8sYb4LwT7eHdNaUg5pZiQyVxKcE", "application/json", "a=b", "Basic  x ", "k"}
	rng := rand.New(rand.NewPCG(1, 2))
	memo := secrets.NewHeaderMemo()
	for range 2000 {
		h := http.Header{}
		for range rng.IntN(6) {
			var vs []string
			for range rng.IntN(3) {
				vs = append(vs, values[rng.IntN(len(values))])
			}
			h[names[rng.IntN(len(names))]] = vs
		}
		want := secrets.MaskHeader(h)
		for _, m := range []*secrets.HeaderMemo{nil, memo} {
			got := pairsOf(h).maskedPairs(m)
			if !renamedRepeat(h) && !reflect.DeepEqual(got.toMap(), want) {
				t.Fatalf("header %v: pairs %v, MaskHeader %v", h, got, want)
			}
			// Two names that are one canonically: either value may win in
			// the map (its order is random), so the pairs' is one of them.
			if len(got.toMap()) != len(want) || len(got) != 2*len(want) {
				t.Fatalf("header %v: pairs %v, MaskHeader %v", h, got, want)
			}
			for k, v := range got.toMap() {
				if !canonicalValue(h, k, v) {
					t.Fatalf("header %v: pairs %v, MaskHeader %v", h, got, want)
				}
			}
			// Encoded from the pairs, read back as the map.
			r := &record{Kind: KindExchange, reqHeader: got}
			var back record
			if err := back.unmarshalBinary(r.appendBinary(nil)); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back.ReqHeader, got.toMap()) {
				t.Fatalf("pairs %v read back as %v", got, back.ReqHeader)
			}
			if n := len(r.appendBinary(nil)); n > r.binarySize() {
				t.Fatalf("binarySize %d under the encoding's %d", r.binarySize(), n)
			}
		}
	}
}

// renamedRepeat: two of h's names are the same name canonically.
func renamedRepeat(h http.Header) bool {
	seen := map[string]bool{}
	for k := range h {
		ck := http.CanonicalHeaderKey(k)
		if seen[ck] {
			return true
		}
		seen[ck] = true
	}
	return false
}

// canonicalValue: v is MaskHeader's value of one of h's names for k.
func canonicalValue(h http.Header, k, v string) bool {
	for name, vs := range h {
		if http.CanonicalHeaderKey(name) == k && secrets.MaskHeader(http.Header{name: vs})[k] == v {
			return true
		}
	}
	return false
}
