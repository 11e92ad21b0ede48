package control

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// Live fans stored journal entries out to the dashboards watching
// GET /__sim/live (server-sent events). A slow watcher misses events
// rather than slowing the journal: each event only says "something
// changed", and the page then reads the dashboard afresh.
type Live struct {
	mu       sync.Mutex
	watchers map[chan liveEvent]struct{}
	closed   bool
	secrets  *secrets.Memory
}

// liveEvent is what a watcher is told of one entry, or (Change set) of
// a control change no entry records.
type liveEvent struct {
	Change   string `json:"change,omitempty"`
	Seq      uint64 `json:"seq"`
	Kind     string `json:"kind"`
	Endpoint string `json:"endpoint,omitempty"`
	Path     string `json:"path"`
	Channel  string `json:"channel,omitempty"`
	Status   int    `json:"status"`
	Fault    string `json:"fault,omitempty"`
}

// NewLive returns a hub with no watchers; mem is the memory of the
// journal it hears, which masks the paths it passes on.
func NewLive(mem *secrets.Memory) *Live {
	return &Live{watchers: map[chan liveEvent]struct{}{}, secrets: mem}
}

// Publish tells every watcher of e; it never blocks (a journal observer).
func (l *Live) Publish(e journal.Entry) {
	l.send(liveEvent{Seq: e.Seq, Kind: e.Kind, Endpoint: e.Endpoint, Path: l.secrets.MaskKnown(e.Path, secrets.Fingerprint), Channel: e.Channel, Status: e.Status, Fault: e.Fault})
}

// Changed tells every watcher that what (latency) changed by a control
// call: no journal entry records it, and a page open elsewhere shows it
// only on an event. Never blocks; nil-safe.
func (l *Live) Changed(what string) {
	if l != nil {
		l.send(liveEvent{Change: what})
	}
}

func (l *Live) send(ev liveEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for w := range l.watchers {
		select {
		case w <- ev:
		default:
		}
	}
}

// Close ends every stream, so a server can shut down without waiting for
// open dashboards.
func (l *Live) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for w := range l.watchers {
		close(w)
		delete(l.watchers, w)
	}
}

func (l *Live) watch() (chan liveEvent, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, false
	}
	w := make(chan liveEvent, 64)
	l.watchers[w] = struct{}{}
	return w, true
}

func (l *Live) unwatch(w chan liveEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.watchers[w]; ok {
		delete(l.watchers, w)
		close(w)
	}
}

type streamSlotKey struct{}

// WithStreamSlot gives GET /__sim/live a bound on open streams: slot
// takes one (ok false: none free) and returns its release. The server's
// connection gate sets it (sim/conngate.go).
func WithStreamSlot(ctx context.Context, slot func() (release func(), ok bool)) context.Context {
	return context.WithValue(ctx, streamSlotKey{}, slot)
}

// liveBeat keeps idle streams open through proxies.
const liveBeat = 15 * time.Second

// LiveStream is GET /__sim/live: an event "entry" for each stored journal
// entry, an event "change" for each control change no entry records (a
// latency profile set or removed), a comment every 15 s, until the
// client leaves or the server stops.
func (a *API) LiveStream(c echo.Context) error {
	if slot, ok := c.Request().Context().Value(streamSlotKey{}).(func() (func(), bool)); ok {
		release, ok := slot()
		if !ok {
			h := c.Response().Header()
			h.Set("Connection", "close")
			h.Set("Retry-After", "5")
			return fail(http.StatusTooManyRequests, "too many live streams open (per listener or from this address); close a dashboard")
		}
		defer release()
	}
	w, ok := a.o.Live.watch()
	if !ok {
		return fail(http.StatusServiceUnavailable, "the simulator is shutting down")
	}
	defer a.o.Live.unwatch(w)
	res := c.Response()
	h := res.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	// The stream outlives the server's write timeout; each write gets
	// its own deadline instead, so a client that stops reading is cut.
	rc := http.NewResponseController(res.Writer)
	_ = rc.SetWriteDeadline(time.Now().Add(2 * liveBeat))
	res.WriteHeader(http.StatusOK)
	fmt.Fprint(res, "retry: 1000\n\n")
	res.Flush()
	beat := time.NewTicker(liveBeat)
	defer beat.Stop()
	for {
		select {
		case <-c.Request().Context().Done():
			return nil
		case <-beat.C:
			fmt.Fprint(res, ": beat\n\n")
		case ev, open := <-w:
			if !open {
				return nil
			}
			data, _ := json.Marshal(ev)
			if ev.Change != "" { // no id: a reconnect resumes after the last entry
				fmt.Fprintf(res, "event: change\ndata: {\"change\":%q}\n\n", ev.Change)
			} else {
				fmt.Fprintf(res, "id: %d\nevent: entry\ndata: %s\n\n", ev.Seq, data)
			}
		}
		_ = rc.SetWriteDeadline(time.Now().Add(2 * liveBeat))
		res.Flush()
	}
}
