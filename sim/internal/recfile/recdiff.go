package recfile

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// Recording diff: two recordings of the app's own traffic compared request
// by request, for what the app now sends differently (the app side's
// regression check; replay re-sends recorded requests, so it cannot
// show it). Steps are paired by their operation in order (a longest
// common subsequence), so a call added or dropped shows as such and the
// rest still pair up.

// RequestMasks are the request fields that differ between two runs of one
// flow by design (a new transaction id, the time of the call): a diff
// compares that they are there, not their values.
var RequestMasks = map[string]MaskKind{
	"extTransactionId": MaskValue, "dateandtime": MaskValue, "transDateAndTime": MaskValue,
	"deviceToken": MaskValue, "sessionId": MaskValue,
}

// unsentHeaders are request headers a diff ignores: transport details,
// not what the app chose to send.
var unsentHeaders = []string{"Content-Length", "User-Agent", "Accept-Encoding", "Connection", "Host", "Date", "X-Forwarded-For"}

// DiffResult is the outcome of a recording diff.
type DiffResult struct {
	Old, New    string
	Paired      int
	Differences []Difference
}

// OK reports whether the app sent the same requests.
func (r *DiffResult) OK() bool { return len(r.Differences) == 0 }

// Format writes r readably: "old" is the first recording, "new" the second.
func (r *DiffResult) Format(w io.Writer) {
	if r.OK() {
		fmt.Fprintf(w, "recording diff %s %s: %d requests paired, no difference\n", r.Old, r.New, r.Paired)
		return
	}
	fmt.Fprintf(w, "recording diff %s %s: %d requests paired, %d difference(s)\n", r.Old, r.New, r.Paired, len(r.Differences))
	for _, d := range r.Differences {
		fmt.Fprintf(w, "- %s\n", d.format("old", "new"))
	}
}

// DiffFiles reads two recording files and compares their requests; masks
// extend RequestMasks (field name to value, digits, url, ignore or none).
// An error means a file is not a recording (the message says which).
func DiffFiles(oldJSON, newJSON []byte, masks map[string]string) (*DiffResult, error) {
	var recs [2]*Recording
	var err error
	for i, data := range [][]byte{oldJSON, newJSON} {
		if recs[i], err = ParseFile(data); err != nil {
			return nil, fmt.Errorf("%s recording: %w", [2]string{"old", "new"}[i], err)
		}
	}
	mk := map[string]MaskKind{}
	for k, v := range masks {
		if mk[k], err = ParseMaskKind(v); err != nil {
			return nil, fmt.Errorf("mask %s: %w", k, err)
		}
	}
	return DiffRequests(recs[0], recs[1], mk), nil
}

// DiffRequests compares the requests of old and new, masks applied to
// their bodies (RequestMasks, then masks).
func DiffRequests(old, new *Recording, masks map[string]MaskKind) *DiffResult {
	masks = Masks(RequestMasks, old.Masks, new.Masks, masks)
	res := &DiffResult{Old: old.Name, New: new.Name, Differences: []Difference{}}
	key := func(st *Step) string { return st.Method + " " + stepName(st) }
	pairs := lcs(old.Steps, new.Steps, key)
	i, j := 0, 0
	for _, p := range append(pairs, [2]int{len(old.Steps), len(new.Steps)}) {
		for ; i < p[0]; i++ {
			st := &old.Steps[i]
			res.Differences = append(res.Differences, Difference{Step: st.ID, Label: st.Label(), Where: "request", Note: "sent in the old recording, not in the new"})
		}
		for ; j < p[1]; j++ {
			st := &new.Steps[j]
			res.Differences = append(res.Differences, Difference{Step: st.ID, Label: st.Label(), Where: "request", Note: "sent in the new recording, not in the old"})
		}
		if i < len(old.Steps) && j < len(new.Steps) {
			res.Paired++
			res.Differences = append(res.Differences, diffRequest(&old.Steps[i], &new.Steps[j], masks)...)
			i, j = i+1, j+1
		}
	}
	return res
}

// stepName is what pairs steps: the operation, else the path.
func stepName(st *Step) string {
	if st.Endpoint != "" {
		return st.Endpoint
	}
	return st.Path
}

// diffRequest compares two requests of one operation.
func diffRequest(o, n *Step, masks map[string]MaskKind) []Difference {
	var out []Difference
	add := func(where, want, got, compared, note string) {
		out = append(out, Difference{Step: n.ID, Label: n.Label(), Where: where, Want: want, Got: got, Compared: compared, Note: note})
	}
	if o.Path != n.Path {
		add("request path", Quote(o.Path), Quote(n.Path), "", "")
	}
	if PageText(o.Query) != PageText(n.Query) {
		add("request query", Quote(o.Query), Quote(n.Query), "", "")
	}
	for _, h := range headerNames(o.Header, n.Header) {
		if ov, nv := o.Header[h], n.Header[h]; ov != nv {
			add("request header "+h, Quote(ov), Quote(nv), "", "")
		}
	}
	switch {
	case o.Envelope != nil && n.Envelope != nil:
		if o.Envelope.CHANNELID != n.Envelope.CHANNELID {
			add("request envelope /CHANNELID", Quote(o.Envelope.CHANNELID), Quote(n.Envelope.CHANNELID), "", "")
		}
		DiffJSON("request bdata", o.Envelope.Payload, n.Envelope.Payload, masks, add)
	case (o.Envelope == nil) != (n.Envelope == nil):
		add("request body", "", "", "", "one request is a signed envelope, the other is not")
	case len(o.Body) > 0 || len(n.Body) > 0:
		DiffJSON("request body", orNull(o.Body), orNull(n.Body), masks, add)
	case PageText(o.Text) != PageText(n.Text):
		add("request body", Quote(o.Text), Quote(n.Text), "", "")
	}
	return out
}

func orNull(b []byte) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}

// headerNames are the headers either request carries that the app chose.
func headerNames(a, b map[string]string) []string {
	var out []string
	for _, m := range []map[string]string{a, b} {
		for h := range m {
			h = http.CanonicalHeaderKey(h)
			if !slices.Contains(unsentHeaders, h) && !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	slices.Sort(out)
	return out
}

// lcs pairs the indexes of a and b whose keys match, in order, as many
// as can be (the classic longest common subsequence).
func lcs(a, b []Step, key func(*Step) string) [][2]int {
	n, m := len(a), len(b)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if key(&a[i]) == key(&b[j]) {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case key(&a[i]) == key(&b[j]):
			out = append(out, [2]int{i, j})
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// format renders d with the two sides named (replay: recorded and
// replayed; a recording diff: old and new).
func (d Difference) format(wantName, gotName string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "step %s %s: %s", d.Step, d.Label, d.Where)
	if d.Note != "" {
		fmt.Fprintf(&b, ": %s", d.Note)
	}
	if d.Want != "" || d.Got != "" {
		fmt.Fprintf(&b, "\n    %s: %s\n    %s: %s", wantName, orAbsent(d.Want), gotName, orAbsent(d.Got))
	}
	if d.Compared != "" {
		fmt.Fprintf(&b, "\n    compared after masking: %s", d.Compared)
	}
	return b.String()
}
