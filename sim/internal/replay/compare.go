package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/recfile"
)

// Format writes a readable report of r.
func (r *ResendResult) Format(w io.Writer, name string) {
	if r.OK() {
		fmt.Fprintf(w, "replay %s: %d steps, no difference\n", name, r.Steps)
		return
	}
	fmt.Fprintf(w, "replay %s: %d steps, %d difference(s)\n", name, r.Steps, len(r.Differences))
	for _, d := range r.Differences {
		fmt.Fprintf(w, "- %s\n", d)
	}
}

func compare(st *recfile.Step, a answer, masks map[string]recfile.MaskKind) []recfile.Difference {
	var out []recfile.Difference
	add := func(where, want, got, compared, note string) {
		out = append(out, recfile.Difference{Step: st.ID, Label: st.Label(), Where: where, Want: want, Got: got, Compared: compared, Note: note})
	}
	if a.status != st.Expect.Status {
		note := refusalText(st, a)
		if r := a.header.Get("X-Rewardsim-Reason"); note == "" && r != "" {
			note = "the target's reason: " + r // why it answered otherwise
		}
		add("status", fmt.Sprint(st.Expect.Status), fmt.Sprint(a.status), "", note)
	}
	for h, want := range st.Expect.Header {
		got := a.header.Get(h)
		if h == "Content-Type" {
			wm, _, _ := mime.ParseMediaType(want)
			gm, _, _ := mime.ParseMediaType(got)
			if wm == gm {
				continue
			}
		}
		if got != want {
			add("header "+h, recfile.Quote(want), recfile.Quote(got), "", "")
		}
	}
	if len(st.Expect.BDATA) > 0 {
		if a.bdata == nil {
			add("bdata", string(st.Expect.BDATA), string(a.body), "", "the recorded answer was a signed envelope; the replayed one is not")
		} else {
			recfile.DiffJSON("bdata", st.Expect.BDATA, a.bdata, masks, add)
		}
	}
	switch {
	case len(st.Expect.Body) > 0:
		if _, ok := recfile.Decode(a.body); !ok {
			add("body", string(st.Expect.Body), recfile.Quote(string(a.body)), "", "the replayed answer is not JSON")
			break
		}
		recfile.DiffJSON("body", st.Expect.Body, a.body, masks, add)
	case st.Expect.Text != "" && recfile.PageText(string(a.body)) != recfile.PageText(st.Expect.Text):
		add("body", recfile.Quote(st.Expect.Text), recfile.Quote(string(a.body)), "", "")
	}
	return out
}

// refusalText is why the target refused a control step: the control
// API's error message (only a control step's status is compared, so its
// body would otherwise never show).
func refusalText(st *recfile.Step, a answer) string {
	if st.Host != recfile.HostControl || a.status < 300 {
		return ""
	}
	var e struct {
		Error, Message string
	}
	if json.Unmarshal(a.body, &e) == nil && (e.Error != "" || e.Message != "") {
		return "the control API said: " + strings.TrimSpace(e.Message+" "+e.Error)
	}
	if t := strings.TrimSpace(string(a.body)); t != "" {
		if len(t) > 300 {
			t = t[:300] + "..."
		}
		return "the control API said: " + t
	}
	return ""
}
