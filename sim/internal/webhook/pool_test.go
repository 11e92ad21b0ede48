package webhook

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
	s := New(Options{Store: st, Clock: clk, Rand: rand.Reader,
		Channel: func(name string) (Channel, bool) { return Channel{Name: name, WebhookURL: url}, true }})
	t.Cleanup(s.Stop)
	return s, st, clk
}

// A due push is attempted by the workers; Fire waits for it when the
// receiver answers in time, and returns after its wait when it does not.
func TestFire_waitsBoundedForAttempts(t *testing.T) {
	release := make(chan struct{})
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/silent" {
			<-release
		}
		w.Write([]byte(`{"status":"OK"}`))
	}))
	defer rc.Close()
	defer close(release)

	s, _, _ := newTestScheduler(t, rc.URL+"/ok")
	ps, err := s.Schedule(Request{Channel: "C", OfferID: "O", Reason: "OUT_OF_STOCK"})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Fire(10 * time.Second); n != 1 || err != nil {
		t.Fatalf("Fire = %d, %v; want 1 due", n, err)
	}
	if p, ok, _ := s.Lookup("C", ps[0].ID); !ok || p.State != Delivered {
		t.Fatalf("after Fire: %+v", p)
	}

	silent, _, _ := newTestScheduler(t, rc.URL+"/silent")
	ps, _ = silent.Schedule(Request{Channel: "C", OfferID: "O", Reason: "OUT_OF_STOCK", Deadline: 0})
	start := time.Now()
	if n, _ := silent.Fire(100 * time.Millisecond); n != 1 {
		t.Fatalf("Fire = %d, want 1", n)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("Fire waited %s on a silent receiver", took)
	}
	if p, _, _ := silent.Lookup("C", ps[0].ID); p.State != Pending {
		t.Fatalf("a push still being attempted shows %s", p.State)
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
