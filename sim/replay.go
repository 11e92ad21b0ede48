package sim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/recording"
)

// DefaultReplaySecrets are the API-key credentials of the embedded default
// scenario's DEMOBANK channel (test-only), used when ReplayOptions.Secrets
// is empty.
var DefaultReplaySecrets = []string{"DEMOAPPKEY:DEMOSECKEY"}

// ReplayOptions tune Replay.
type ReplayOptions struct {
	// Target is one base URL for all hosts, or three separated by commas
	// (rewards,bank,hotdeals).
	Target string
	// PublisherKeyPEM re-signs envelopes whose payload changed through
	// captured values; nil means the embedded test-only publisher key.
	PublisherKeyPEM []byte
	// Secrets are credentials the session holds only as fingerprints.
	Secrets []string
	// Masks extend the session's masks: field name to value, digits,
	// ignore or none.
	Masks map[string]string
	HTTP  *http.Client
}

// ReplayResult is the outcome of a replay.
type ReplayResult struct {
	Name        string
	Steps       int
	Differences int
	// Report is the readable diff (or "no difference").
	Report string
}

// OK reports whether the replay matched the recording.
func (r *ReplayResult) OK() bool { return r.Differences == 0 }

// Replay re-sends a recorded session (SIM-4) to the target and compares
// every answer with the recorded one, volatile fields masked. An error
// means the session could not be read or a request could not be sent;
// differences are in the result.
func Replay(ctx context.Context, sessionJSON []byte, o ReplayOptions) (*ReplayResult, error) {
	set, err := compiledSchemas()
	if err != nil {
		return nil, err
	}
	sess, err := recording.Parse(sessionJSON, set)
	if err != nil {
		return nil, err
	}
	targets, err := recording.ParseTargets(o.Target)
	if err != nil {
		return nil, err
	}
	keyPEM := o.PublisherKeyPEM
	if keyPEM == nil {
		keyPEM, _ = fs.ReadFile(certs.FS, certs.PublisherKey)
	}
	key, err := envelope.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("publisher key: %w", err)
	}
	secrets := o.Secrets
	if len(secrets) == 0 {
		secrets = DefaultReplaySecrets
	}
	masks := map[string]recording.MaskKind{}
	for k, v := range o.Masks {
		switch mk := recording.MaskKind(v); mk {
		case recording.MaskValue, recording.MaskDigits, recording.MaskIgnore, recording.MaskNone:
			masks[k] = mk
		default:
			return nil, fmt.Errorf("mask %s=%s: the kind is value, digits, ignore or none", k, v)
		}
	}
	res, err := recording.Replay(ctx, sess, targets, recording.Options{Key: key, Secrets: secrets, Masks: masks, HTTP: o.HTTP})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	res.Format(&buf, sess.Name)
	return &ReplayResult{Name: sess.Name, Steps: res.Steps, Differences: len(res.Differences), Report: buf.String()}, nil
}

// Recorder is a recording proxy (SIM-4): it forwards every request to an
// upstream service (a real UAT, or another rewardsim) and keeps each
// exchange, so the traffic can be written as a session file.
type Recorder struct {
	targets recording.Targets
	client  *http.Client
	clock   clock.Clock
	mu      sync.Mutex
	builder *journal.Builder
	entries []journal.Entry
}

// RecorderOptions configure NewRecorder.
type RecorderOptions struct {
	// Upstream is one base URL for all hosts, or three separated by
	// commas (rewards,bank,hotdeals); each request goes to the host its
	// path belongs to in the contract.
	Upstream string
	HTTP     *http.Client
	// Clock stamps the exchanges; nil means the wall clock.
	Clock Clock
}

// NewRecorder makes a recording proxy.
func NewRecorder(o RecorderOptions) (*Recorder, error) {
	t, err := recording.ParseTargets(o.Upstream)
	if err != nil {
		return nil, fmt.Errorf("upstream: %w", err)
	}
	if o.HTTP == nil {
		o.HTTP = recording.NoRedirectClient() // redirects go back to the publisher
	}
	var clk clock.Clock = clock.Real{}
	if o.Clock != nil {
		clk = o.Clock
	}
	return &Recorder{targets: t, client: o.HTTP, clock: clk, builder: journal.NewBuilder()}, nil
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
	r.mu.Lock()
	e := r.builder.Build(x)
	e.Seq = uint64(len(r.entries) + 1)
	if e.Host == "" {
		e.Listener = ""
	}
	r.entries = append(r.entries, *e)
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
	r.mu.Unlock()
	o := recording.BuildOptions{Name: name, Description: description}
	if len(es) > 0 {
		o.RecordedAt = es[0].At
	}
	return recording.Build(es, o).Marshal()
}

// RecordingFileName turns a recording's name into a file name.
func RecordingFileName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, name)
	return name + ".json"
}
