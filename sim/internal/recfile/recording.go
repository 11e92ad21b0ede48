// Package recfile is the recorded-traffic file format (SIM-4): a slice of the
// journal as a versioned JSON file that can be replayed. A recording keeps
// how later requests use earlier answers as captures (a value read from
// an answer) and substitutions (a "${name}" placeholder in a later
// request), so a replay feeds the new answers' tokens and ids forward.
package recfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// Version is the current recording file version.
const Version = 1

// SchemaName is the JSON Schema of recording files in schemas/.
const SchemaName = "recording"

// Recording is a recorded sequence of exchanges.
type Recording struct {
	Version     int       `json:"version"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	RecordedAt  time.Time `json:"recordedAt,omitzero"`
	// Masks extend the volatile fields of the answer schemas for this recording: field name to mask kind.
	Masks   map[string]MaskKind `json:"masks,omitempty"`
	Against *Against            `json:"against,omitempty"`
	// Proxy is set on a recording the record proxy made: what it changed
	// in the answers it passed on.
	Proxy *ProxyNote `json:"proxy,omitempty"`
	// Switches are the behaviour switches the recorded answers show (a
	// record proxy's, read by sim/calibrate): a replay compares them.
	Switches map[string]string `json:"switches,omitempty"`
	Steps    []Step            `json:"steps"`
}

// ProxyNote says how the record proxy changed the answers it passed on:
// the upstream's absolute URLs (a trackLink) were pointed at the proxy,
// so the app's calls to them were recorded too; those inside a signed
// answer's BDATA were left, and calls to them bypass the proxy.
type ProxyNote struct {
	Upstream     []string `json:"upstream"`
	Rewritten    int      `json:"rewritten"`
	LeftInSigned int      `json:"leftInSigned,omitempty"`
}

// Against is what a recording was made against, so a replay can use the
// same scenario and notice a target that differs.
type Against struct {
	// Scenario is the name of the scenario in force for the recorded
	// channels, SHA256 the hex digest of its YAML as loaded.
	Scenario string `json:"scenario"`
	SHA256   string `json:"sha256,omitempty"`
	// Channels are the recorded channels (names).
	Channels []string `json:"channels,omitempty"`
	// Faults are the run-time fault rules that applied to those channels
	// (the control API's shape), without their counters.
	Faults []json.RawMessage `json:"faults,omitempty"`
}

// Step is one request and the answer recorded for it.
type Step struct {
	ID string `json:"id"`
	// Host picks the replay target: rewards, bank or hotdeals; empty means
	// the first target. HostControl is the target's control API: a control
	// call (a webhook push scheduled) re-issued so later answers that
	// depend on it compare; only its status is compared.
	Host     string `json:"host,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	Method   string `json:"method"`
	// Path (and Query) may be a single placeholder when the request went
	// to a URL an earlier answer handed out (a trackLink, say).
	Path  string `json:"path"`
	Query string `json:"query,omitempty"`
	// Header holds the request headers; secrets are fingerprints
	// ("Bearer ~fp:...") unless replaced by a placeholder.
	Header map[string]string `json:"header,omitempty"`
	// Exactly one of Body (a plain JSON body), Envelope (a signed
	// envelope) or Text (anything else) is set, or none for no body.
	Body     json.RawMessage `json:"body,omitempty"`
	Envelope *Envelope       `json:"envelope,omitempty"`
	Text     string          `json:"text,omitempty"`
	Captures []Capture       `json:"captures,omitempty"`
	Expect   Expect          `json:"expect"`
}

// HostControl is the Step.Host of a control call.
const HostControl = "control"

// Envelope is a signed-envelope request. BDATA and SIGN are as recorded;
// Payload is BDATA decoded. When Payload holds a placeholder, the replay
// encodes it afresh and, if the recording carried a SIGN, signs it with
// the publisher key; otherwise it sends BDATA and SIGN exactly as
// recorded (a wrong signature stays wrong).
type Envelope struct {
	CHANNELID string          `json:"CHANNELID"`
	SIGN      string          `json:"SIGN,omitempty"`
	BDATA     string          `json:"BDATA"`
	Payload   json.RawMessage `json:"payload"`
}

// Capture reads a value from this step's answer under a name later steps
// use as "${name}".
type Capture struct {
	Name string `json:"name"`
	// From is "body" (the answer body) or "bdata" (its decoded BDATA).
	From string `json:"from"`
	// Pointer is a JSON Pointer (RFC 6901) into From.
	Pointer string `json:"pointer"`
	// URLPath keeps only the path and query of the URL found there.
	URLPath bool `json:"urlPath,omitempty"`
}

// Expect is the answer recorded. Secret values (tokens, keys) in it are
// replaced by "<masked>" at export; they are masked at comparison anyway.
type Expect struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header,omitempty"`
	Body   json.RawMessage   `json:"body,omitempty"`
	Text   string            `json:"text,omitempty"`
	BDATA  json.RawMessage   `json:"bdata,omitempty"`
}

// Parse reads a recording file and checks it against its schema when set
// is not nil.
func Parse(data []byte, set *schema.Set) (*Recording, error) {
	if set != nil {
		if err := set.ValidateJSON(SchemaName, data); err != nil {
			return nil, fmt.Errorf("recording file: %w", err)
		}
	}
	var s Recording
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return nil, fmt.Errorf("recording file: %w", err)
	}
	if s.Version != Version {
		return nil, fmt.Errorf("recording file: version %d is not supported (want %d)", s.Version, Version)
	}
	return &s, nil
}

// ParseFile is Parse against the embedded schemas: a recording file as
// a tool outside the simulator reads it.
func ParseFile(data []byte) (*Recording, error) {
	set, err := schema.Embedded()
	if err != nil {
		return nil, err
	}
	return Parse(data, set)
}

// WriteTo writes what Marshal returns, a step at a time, so the answer
// of an export never exists whole in memory (issue 23).
func (s *Recording) WriteTo(w io.Writer) (int64, error) {
	sw, err := NewStepWriter(w, s)
	if err != nil {
		return sw.n, err
	}
	for i := range s.Steps {
		if err := sw.Step(&s.Steps[i]); err != nil {
			return sw.n, err
		}
	}
	return sw.Close()
}

// StepWriter writes a recording as Marshal does, its head first and then
// each step as it comes.
type StepWriter struct {
	countingWriter
	steps int
	buf   bytes.Buffer
	enc   *json.Encoder
}

// NewStepWriter starts a recording on w with head (its steps left out).
func NewStepWriter(w io.Writer, head *Recording) (*StepWriter, error) {
	sw := &StepWriter{countingWriter: countingWriter{w: w}}
	h := *head
	h.Steps = []Step{}
	raw, err := h.Marshal()
	if err != nil {
		return sw, err
	}
	// The empty list ends the head: "steps": []\n}\n.
	sw.write(bytes.TrimSuffix(raw, []byte("[]\n}\n")))
	sw.enc = json.NewEncoder(&sw.buf)
	sw.enc.SetEscapeHTML(false)
	sw.enc.SetIndent("    ", "  ")
	return sw, sw.err
}

// Step writes st as the next step.
func (sw *StepWriter) Step(st *Step) error {
	sw.buf.Reset()
	if err := sw.enc.Encode(st); err != nil {
		return err
	}
	if sw.steps == 0 {
		sw.write([]byte("[\n    "))
	} else {
		sw.write([]byte(",\n    "))
	}
	sw.steps++
	sw.write(bytes.TrimSuffix(sw.buf.Bytes(), []byte("\n")))
	return sw.err
}

// Close ends the file and says how much was written.
func (sw *StepWriter) Close() (int64, error) {
	if sw.steps == 0 {
		sw.write([]byte("[]\n}\n"))
	} else {
		sw.write([]byte("\n  ]\n}\n"))
	}
	return sw.n, sw.err
}

type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) write(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
}

// Marshal writes s as indented JSON.
func (s *Recording) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Unresolved lists the steps that send a bearer token no earlier step of
// the recording handed out (a slice cut by --virtual-id or --endpoint
// Leaves the token's fetch out): the journal keeps only its fingerprint,
// so a replay cannot send it and the step fails. One line per token.
func (r *Recording) Unresolved() []string {
	var out []string
	seen := map[string]bool{}
	for _, st := range r.Steps {
		for h, v := range st.Header {
			scheme, cred, ok := strings.Cut(v, " ")
			if !ok || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(cred, "~fp:") || seen[cred] {
				continue
			}
			seen[cred] = true
			out = append(out, fmt.Sprintf("step %s %s sends a bearer token (%s header) fetched outside this slice: a replay cannot send it; export the call that fetched it too (a wider slice, such as --channel)", st.ID, st.Label(), h))
		}
	}
	return out
}

// Written is how many bytes the writer has written so far.
func (sw *StepWriter) Written() int64 { return sw.n }
