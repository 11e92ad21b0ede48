package webhook

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
)

// memStore keeps push records in a map, as the state store does in bbolt.
type memStore struct {
	mu   sync.Mutex
	recs map[string]json.RawMessage // channel \x00 id
}

func (m *memStore) PutWebhook(channel, id string, v any) error {
	raw, _ := json.Marshal(v)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs[channel+"\x00"+id] = raw
	return nil
}

func (m *memStore) UpdateWebhook(channel, id string, v any) (bool, error) {
	m.mu.Lock()
	_, ok := m.recs[channel+"\x00"+id]
	m.mu.Unlock()
	if !ok {
		return false, nil
	}
	return true, m.PutWebhook(channel, id, v)
}

func (m *memStore) Webhooks(channel string) ([]json.RawMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []json.RawMessage
	for k, v := range m.recs {
		if channel == "" || strings.HasPrefix(k, channel+"\x00") {
			out = append(out, v)
		}
	}
	return out, nil
}

func (m *memStore) Webhook(channel, id string) (json.RawMessage, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.recs[channel+"\x00"+id]
	return v, ok, nil
}

func (m *memStore) clear() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.recs)
}

func newTestScheduler(t *testing.T, url string) (*Scheduler, *memStore, *clock.Fake) {
	st := &memStore{recs: map[string]json.RawMessage{}}
	clk := clock.NewFake(time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC))
	s := New(Options{Store: st, Clock: clock.One{Clock: clk}, Rand: rand.Reader,
		Channel: func(name string) (Channel, bool) { return Channel{Name: name, WebhookURL: url}, true }})
	t.Cleanup(s.Stop)
	return s, st, clk
}

// A due push is handed to the workers and Dispatch returns at once,
// naming it; Batch.Wait and Settle wait for its attempt when asked, and
// for a receiver that never answers they return when their ask ends,
// the push shown as delivering.
func TestDispatch_answersAtOnceAndWaitsOnlyWhenAsked(t *testing.T) {
	release := make(chan struct{})
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/silent" {
			<-release
		}
		w.Write([]byte(`{"status":"OK"}`))
	}))
	defer rc.Close()
	defer close(release)

	for _, tc := range []struct {
		path       string
		wantWaited bool
		wantState  string // after a 300ms wait
	}{
		{"/ok", true, Delivered},
		{"/silent", false, StateDelivering},
	} {
		t.Run(tc.path, func(t *testing.T) {
			s, _, _ := newTestScheduler(t, rc.URL+tc.path)
			ps, err := s.Schedule(Request{Channel: "C", OfferID: "O", Reason: "OUT_OF_STOCK"})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			b, err := s.Dispatch()
			if err != nil || len(b.Pushes) != 1 || b.Pushes[0] != (Due{ps[0].ID, "C"}) {
				t.Fatalf("Dispatch = %+v, %v; want the one push", b, err)
			}
			if took := time.Since(start); took > time.Second {
				t.Fatalf("Dispatch took %s", took)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			if waited := b.Wait(ctx); waited != tc.wantWaited {
				t.Fatalf("Batch.Wait = %v, want %v", waited, tc.wantWaited)
			}
			st, err := s.States(b.Pushes)
			if err != nil || len(st) != 1 || st[0].State != tc.wantState {
				t.Fatalf("States = %+v, %v; want %s", st, err, tc.wantState)
			}
			ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			p, ok, err := s.Settle(ctx, "C", ps[0].ID)
			if err != nil || !ok || (p.State == Delivered) != tc.wantWaited {
				t.Fatalf("Settle = %s, %v, %v", p.State, ok, err)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("waited %s in all, asked for 500ms", took)
			}
		})
	}
}

// Settle returns at once for a push due later, and after its attempt
// for one due now that no call dispatched (the tick does, here Dispatch
// a moment later); it says ok false for a push that is not there.
func TestSettle(t *testing.T) {
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"status":"nope"}`))
	}))
	defer rc.Close()
	s, _, clk := newTestScheduler(t, rc.URL)
	later, err := s.Schedule(Request{Channel: "C", OfferID: "O", Reason: "OUT_OF_STOCK", At: clk.Now().Add(time.Hour).Format(time.RFC3339)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if p, ok, err := s.Settle(ctx, "C", later[0].ID); !ok || err != nil || p.State != Pending || time.Since(start) > time.Second {
		t.Fatalf("a push due later: %s %v %v after %s", p.State, ok, err, time.Since(start))
	}
	now, _ := s.Schedule(Request{Channel: "C", OfferID: "O", Reason: "OUT_OF_STOCK"})
	go func() {
		time.Sleep(50 * time.Millisecond)
		_, _ = s.Dispatch()
	}()
	p, ok, err := s.Settle(ctx, "C", now[0].ID)
	if !ok || err != nil || p.State != Pending || len(p.Attempts) != 1 || !p.Due.After(clk.Now()) {
		t.Fatalf("a push due now, refused by its receiver: %+v %v %v; want pending with its retry due later", p, ok, err)
	}
	if _, ok, _ := s.Settle(ctx, "C", "nope"); ok {
		t.Fatal("Settle found a push that is not there")
	}
}

// Since reports, and its Batch waits for, what a dispatch after the mark
// (the background tick's, racing a control call) handed to the workers,
// beside what it dispatches itself; not what came before the mark.
func TestSince_includesTheTicksDispatch(t *testing.T) {
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"status":"OK"}`))
	}))
	defer rc.Close()
	s, _, _ := newTestScheduler(t, rc.URL)
	before, _ := s.Schedule(Request{Channel: "A", OfferID: "O", Reason: "OUT_OF_STOCK"})
	if b, err := s.Dispatch(); err != nil || len(b.Pushes) != 1 || b.Pushes[0].ID != before[0].ID {
		t.Fatalf("Dispatch = %+v, %v", b, err)
	}
	mark := s.Mark()
	ticks, _ := s.Schedule(Request{Channel: "A", OfferID: "O", Reason: "OUT_OF_STOCK"})
	if _, err := s.Dispatch(); err != nil { // the tick, first
		t.Fatal(err)
	}
	own, _ := s.Schedule(Request{Channel: "B", OfferID: "O", Reason: "OUT_OF_STOCK"})
	b, err := s.Since(mark)
	want := []Due{{ticks[0].ID, "A"}, {own[0].ID, "B"}}
	if err != nil || !slices.Equal(b.Pushes, want) {
		t.Fatalf("Since = %+v, %v; want %+v", b.Pushes, err, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !b.Wait(ctx) {
		t.Fatal("Batch.Wait ended before the attempts")
	}
	st, _ := s.States(b.Pushes)
	for _, d := range st {
		if d.State != Delivered {
			t.Errorf("%+v after Wait, want delivered", d)
		}
	}
}

// A channel holds at most MaxPending pushes; pushes deleted behind the
// index's back (a reset) are recounted at the bound, not held against it.
func TestSchedule_pendingBound(t *testing.T) {
	s, st, _ := newTestScheduler(t, "http://127.0.0.1:9/never")
	at := "2099-01-01T00:00:00Z"
	for range MaxPending / MaxRepeat {
		if _, err := s.Schedule(Request{Channel: "C", OfferID: "O", Reason: "OUT_OF_STOCK", At: at, Repeat: MaxRepeat}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Schedule(Request{Channel: "C", OfferID: "O", Reason: "OUT_OF_STOCK", At: at})
	if !refusal.Is(err, refusal.LimitReached) {
		t.Fatalf("push %d: %v, want a limit-reached refusal (429)", MaxPending+1, err)
	}
	if _, err := s.Schedule(Request{Channel: "D", OfferID: "O", Reason: "OUT_OF_STOCK", At: at}); err != nil {
		t.Fatalf("another channel is refused too: %v", err)
	}
	st.clear() // a reset of every channel
	if _, err := s.Schedule(Request{Channel: "C", OfferID: "O", Reason: "OUT_OF_STOCK", At: at}); err != nil {
		t.Fatalf("after a reset: %v", err)
	}
	if n := s.Pending("C"); n != 1 {
		t.Fatalf("pending after the reset and one push: %d", n)
	}
}

// Issue 42: a channel whose receiver never answers holds at most its
// share of the workers (never all of them), so another channel's push
// due now is delivered at once, however many pushes the first holds;
// the workers it leaves free go round robin between channels.
func TestDispatch_fairAcrossChannels(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	silent, most := 0, 0
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/silent" {
			mu.Lock()
			silent++
			most = max(most, silent)
			mu.Unlock()
			<-release
			return
		}
		w.Write([]byte(`{"status":"OK"}`))
	}))
	defer rc.Close()
	defer close(release) // before rc.Close: the silent handlers return
	st := &memStore{recs: map[string]json.RawMessage{}}
	clk := clock.NewFake(time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC))
	s := New(Options{Store: st, Clock: clock.One{Clock: clk}, Rand: rand.Reader, Deadline: MaxDeadline,
		Channel: func(name string) (Channel, bool) {
			if name == "SILENT" {
				return Channel{Name: name, WebhookURL: rc.URL + "/silent"}, true
			}
			return Channel{Name: name, WebhookURL: rc.URL + "/ok"}, true
		}})
	defer s.Stop()
	for range 80 / MaxRepeat {
		if _, err := s.Schedule(Request{Channel: "SILENT", OfferID: "O", Reason: "OUT_OF_STOCK", Repeat: MaxRepeat}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Dispatch(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the silent channel takes what it may
	ps, err := s.Schedule(Request{Channel: "HEALTHY", OfferID: "O", Reason: "OUT_OF_STOCK"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := s.Dispatch(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p, ok, err := s.Settle(ctx, "HEALTHY", ps[0].ID)
	took := time.Since(start)
	if err != nil || !ok || p.State != Delivered || took > 2*time.Second {
		t.Fatalf("the healthy channel's push beside 80 silent ones: %s after %v (%v), want delivered at once", p.State, took, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if most > Workers-1 {
		t.Fatalf("the silent channel held %d workers at once, want at most %d", most, Workers-1)
	}
	t.Logf("delivered in %v beside 80 pushes to a silent receiver (which held %d workers)", took.Round(time.Millisecond), most)
}
