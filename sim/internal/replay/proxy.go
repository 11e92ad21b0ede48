package replay

// The record proxy: it stands between a publisher's app and an upstream
// service and keeps every exchange, for a recording file.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// Recorder is a recording proxy (SIM-4): it forwards every request to an
// upstream service (a real UAT, or another rewardsim) and keeps each
// exchange, so the traffic can be written as a recording file.
type Recorder struct {
	targets Targets
	client  *http.Client
	clock   clock.Clock
	mu      sync.Mutex
	builder *journal.Builder
	secrets *secrets.Memory // what builder learnt to mask, masked again in the recording
	entries []journal.Entry
	note    recfile.ProxyNote
	seen    []recfile.Answer // the answers as passed on, for readSwitches
	read    func([]recfile.Answer) map[string]string
}

// RecorderOptions configure NewRecorder.
type RecorderOptions struct {
	// Upstream is one base URL for all hosts, or three separated by
	// commas (rewards,bank,hotdeals); each request goes to the host its
	// path belongs to in the contract.
	Upstream string
	HTTP     *http.Client
	// Clock stamps the exchanges; nil means the wall clock.
	Clock interface{ Now() time.Time }
	// ReadSwitches reads, from the answers passed on, the switches the
	// recorded service shows (calibrate.ReadAnswers, wired by the CLI);
	// nil writes no switches into the recording.
	ReadSwitches func([]recfile.Answer) map[string]string
}

// NewRecorder makes a recording proxy.
func NewRecorder(o RecorderOptions) (*Recorder, error) {
	t, err := ParseTargets(o.Upstream)
	if err != nil {
		return nil, fmt.Errorf("upstream: %w", err)
	}
	if o.HTTP == nil {
		o.HTTP = NoRedirectClient() // redirects go back to the publisher
	}
	var clk clock.Clock = clock.Real{}
	if o.Clock != nil {
		clk = o.Clock
	}
	mem := secrets.New()
	return &Recorder{targets: t, client: o.HTTP, clock: clk, builder: journal.NewBuilder(mem), secrets: mem, read: o.ReadSwitches}, nil
}

// hopHeaders are not forwarded by a proxy (RFC 9110, 7.6.1).
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// ServeHTTP forwards one request and records the exchange.
func (r *Recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at, start := r.clock.Now(), time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, 8<<20))
	if err != nil {
		http.Error(w, "rewardsim record: reading the request: "+err.Error(), http.StatusBadGateway)
		return
	}
	host := ""
	if op, ok := contract.ByPath(req.Method, req.URL.Path); ok {
		host = string(op.Host)
	}
	target, _ := url.Parse(r.targetBase(host) + req.URL.EscapedPath())
	target.RawQuery = req.URL.RawQuery
	out, err := http.NewRequestWithContext(req.Context(), req.Method, target.String(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "rewardsim record: "+err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = req.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	res, err := r.client.Do(out)
	if err != nil {
		http.Error(w, "rewardsim record: upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	answer, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		http.Error(w, "rewardsim record: upstream answer: "+err.Error(), http.StatusBadGateway)
		return
	}
	answer, rewritten, left := r.rewriteURLs(answer, ownBase(req))
	if loc := res.Header.Get("Location"); loc != "" {
		l, n, _ := r.rewriteURLs([]byte(loc), ownBase(req))
		res.Header.Set("Location", string(l))
		rewritten += n
	}
	for k, vs := range res.Header {
		if k == "Content-Length" {
			continue
		}
		w.Header()[k] = vs
	}
	for _, h := range hopHeaders {
		w.Header().Del(h)
	}
	w.WriteHeader(res.StatusCode)
	_, _ = w.Write(answer)

	x := &journal.Exchange{
		At: at, Latency: time.Since(start), Listener: "all", Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery,
		RequestHeader: req.Header, ResponseHeader: res.Header, RequestBody: body, ResponseBody: answer, Status: res.StatusCode,
	}
	// Another service's traffic: whom each call was for is what it says.
	x.Channel, x.ChannelID, x.VirtualID = envelope.Identity(req.Header.Get("X-CHANNELID"), body)
	r.mu.Lock()
	e := r.builder.Build(x)
	e.Seq = uint64(len(r.entries) + 1)
	if e.Host == "" {
		e.Listener = ""
	}
	r.entries = append(r.entries, *e)
	if r.read != nil {
		r.seen = append(r.seen, recfile.Answer{Op: e.Endpoint, Method: req.Method, URL: req.URL.String(), Status: res.StatusCode, Header: res.Header, Body: answer, At: at})
	}
	r.note.Rewritten += rewritten
	r.note.LeftInSigned += left
	r.mu.Unlock()
}

func (r *Recorder) targetBase(host string) string {
	switch host {
	case string(contract.Bank):
		return r.targets.Bank
	case string(contract.Hotdeals):
		return r.targets.Hotdeals
	}
	return r.targets.Rewards
}

// Note is what the proxy changed in the answers so far.
func (r *Recorder) Note() recfile.ProxyNote {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.note
}

// Len is how many exchanges were recorded.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries)
}

// Recording returns the recorded exchanges as a recording file.
func (r *Recorder) Recording(name, description string) ([]byte, error) {
	r.mu.Lock()
	es := append([]journal.Entry(nil), r.entries...)
	note := r.note
	var switches map[string]string
	if r.read != nil {
		switches = r.read(r.seen)
	}
	r.mu.Unlock()
	o := BuildOptions{Name: name, Description: description, Secrets: r.secrets}
	if len(es) > 0 {
		o.RecordedAt = es[0].At
	}
	rec := Build(es, o)
	note.Upstream = r.targets.bases()
	rec.Proxy = &note
	rec.Switches = switches
	return rec.Marshal()
}

// ownBase is the proxy's own base URL as the client called it.
func ownBase(req *http.Request) string {
	if req.TLS != nil {
		return "https://" + req.Host
	}
	return "http://" + req.Host
}

// rewriteURLs points the upstream's absolute URLs in an answer (a card's
// trackLink, a redirect) at the proxy, so the app's next call to them
// comes through it and is recorded. A URL inside a signed envelope's
// BDATA is left (rewriting it would break SIGN) and counted in left.
func (r *Recorder) rewriteURLs(b []byte, own string) (out []byte, rewritten, left int) {
	out = b
	for _, up := range r.targets.bases() {
		if up == own {
			continue
		}
		rewritten += bytes.Count(out, []byte(up))
		out = bytes.ReplaceAll(out, []byte(up), []byte(own))
	}
	var env struct {
		BDATA string `json:"BDATA"`
	}
	if json.Unmarshal(out, &env) == nil && env.BDATA != "" {
		if raw, err := base64.StdEncoding.DecodeString(env.BDATA); err == nil {
			for _, up := range r.targets.bases() {
				left += bytes.Count(raw, []byte(up))
			}
		}
	}
	return out, rewritten, left
}
