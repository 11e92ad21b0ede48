package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// WriteTable prints the findings: switch, value (or `not determined` and
// why), evidence; then the run's calls against its budget.
func (rep *Report) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SWITCH\tVALUE\tEVIDENCE")
	for _, f := range rep.Findings {
		value, ev := f.Value, ""
		if !f.Determined {
			value, ev = "not determined", f.Why
			if len(f.Candidates) > 0 {
				value += ": " + strings.Join(f.Candidates, " or ")
			}
			if f.AtLeast != "" {
				value += ": over " + f.AtLeast
			}
		} else if len(f.Evidence) > 0 {
			ev = f.Evidence[len(f.Evidence)-1]
		}
		if f.Note != "" {
			ev += " [" + f.Note + "]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Switch, value, ev)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d of %d switches determined, %d calls of a budget of %d", rep.Determined(), len(rep.Findings), rep.Calls, rep.Budget)
	if !rep.AllowWrites {
		fmt.Fprint(w, ", writes off")
	}
	fmt.Fprintln(w)
	for _, l := range rep.Latency {
		written := ""
		if l.Sampled != "" {
			written = ", sampled with " + l.Sampled
		}
		if l.Profiled {
			written += ", written as a log-normal profile"
		}
		fmt.Fprintf(w, "latency %s: median %s, p99 %s from %d samples%s\n", l.Endpoint, l.Median, l.P99, l.Samples, written)
	}
	for _, warn := range rep.Warnings {
		fmt.Fprintln(w, "warning: "+warn)
	}
	if rep.Stopped != "" {
		fmt.Fprintln(w, "stopped: "+rep.Stopped)
	}
}

// WriteJSON writes the report as data (schemas/calibrate.json).
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// overlayNode is one key of the overlay, with the comment above it.
type overlayNode struct {
	key, value, comment string
	children            []*overlayNode
}

func (n *overlayNode) child(key string) *overlayNode {
	for _, c := range n.children {
		if c.key == key {
			return c
		}
	}
	c := &overlayNode{key: key}
	n.children = append(n.children, c)
	return c
}

func (n *overlayNode) write(b *bytes.Buffer, indent string) {
	for _, c := range n.children {
		if c.comment != "" {
			for _, line := range strings.Split(c.comment, "\n") {
				fmt.Fprintf(b, "%s# %s\n", indent, line)
			}
		}
		if len(c.children) > 0 {
			fmt.Fprintf(b, "%s%s:\n", indent, c.key)
			c.write(b, indent+"  ")
			continue
		}
		fmt.Fprintf(b, "%s%s: %s\n", indent, c.key, c.value)
	}
}

// yamlValue writes a switch's value as its kind asks.
func yamlValue(s Switch, v string) string {
	switch s.Kind {
	case "bool", "int":
		return v
	}
	return strconv.Quote(v)
}

// Overlay is the findings as a scenario overlay (extends: default): each
// switch found, with a comment naming its evidence; the switches not
// determined are listed in a comment and inherit default's values.
func (rep *Report) Overlay() []byte {
	root := &overlayNode{}
	var open []string
	for _, f := range rep.Findings {
		s, ok := SwitchByName(f.Switch)
		if !ok {
			continue
		}
		value := f.Value
		if !f.Determined {
			if len(f.Candidates) == 0 {
				open = append(open, fmt.Sprintf("  %s: %s", f.Switch, f.Why))
				continue
			}
			// Readings no answer tells apart: any of them simulates the
			// service as a publisher sees it; default's might not.
			value = f.Candidates[0]
		}
		n := root
		for _, part := range strings.Split(f.Switch, ".") {
			n = n.child(part)
		}
		n.value = yamlValue(s, value)
		n.comment = "probe " + f.Probe + ": " + strings.Join(f.Evidence, "\n  then ")
		if !f.Determined {
			n.comment += "\nnote: " + f.Why
		}
		if f.Note != "" {
			n.comment += "\nnote: " + f.Note
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Written by rewardsim calibrate: the readings of %s (channel %s),\n", rep.Target.Rewards, rep.Target.Channel)
	fmt.Fprintf(&b, "# %d calls of a budget of %d. Each switch below names the exchange that decided it.\n", rep.Calls, rep.Budget)
	if len(open) > 0 {
		fmt.Fprintln(&b, "# Not determined (default's values stand):")
		for _, o := range open {
			fmt.Fprintln(&b, "#"+o)
		}
	}
	b.WriteString("version: 1\nextends: default\n")
	root.write(&b, "")
	rep.writeLatency(&b)
	return b.Bytes()
}

// Drift is one switch where the target and a scenario disagree.
type Drift struct {
	Switch   string `json:"switch"`
	Scenario string `json:"scenario"`
	Target   string `json:"target"`
	Evidence string `json:"evidence,omitempty"`
}

func (d Drift) String() string {
	s := fmt.Sprintf("%s: the scenario says %s, the target answers %s", d.Switch, d.Scenario, d.Target)
	if d.Evidence != "" {
		s += " (" + d.Evidence + ")"
	}
	return s
}

// Check is a run compared with a scenario: how many switches were
// checked, and each one that was not, with why.
type Check struct {
	Scenario  string      `json:"scenario"`
	Checked   int         `json:"checked"`
	Unchecked []Unchecked `json:"unchecked"`
	Verdict   string      `json:"verdict"`
}

// Unchecked is a switch a comparison could not check.
type Unchecked struct {
	Switch string `json:"switch"`
	Cause  string `json:"cause"`
	Why    string `json:"why"`
}

// Checkable counts the unchecked switches some run could have checked:
// all but the ones no publisher can observe.
func (c *Check) Checkable() int {
	return count(c.Unchecked, func(u Unchecked) bool { return u.Cause != CauseUnobservable })
}

// Compare compares the findings with sc: each determined switch whose
// reading differs is a drift; a switch narrowed to candidates, or to a
// lifetime over a bound, drifts when sc's reading is outside them; every
// other switch not determined is unchecked, never "no drift". It sets
// rep.Drift and rep.Against.
func (rep *Report) Compare(sc *scenario.Scenario) []Drift { return rep.compare(sc, "the scenario") }

func (rep *Report) compare(sc *scenario.Scenario, name string) []Drift {
	var out []Drift
	c := &Check{Scenario: name, Unchecked: []Unchecked{}}
	for _, f := range rep.Findings {
		s, ok := SwitchByName(f.Switch)
		if !ok {
			continue
		}
		want := s.Value(sc)
		d, u := compareOne(s, f, want)
		switch {
		case d != nil:
			out = append(out, *d)
			c.Checked++
		case u != nil:
			c.Unchecked = append(c.Unchecked, *u)
		default:
			c.Checked++
		}
	}
	c.Verdict = c.verdict(len(out))
	rep.Drift, rep.Against = out, c
	return out
}

// compareOne compares one finding with the scenario's reading want: a
// drift, an unchecked switch, or neither (checked, the same).
func compareOne(s Switch, f Finding, want string) (*Drift, *Unchecked) {
	drift := func(target string) *Drift {
		d := &Drift{Switch: f.Switch, Scenario: want, Target: target}
		if len(f.Evidence) > 0 {
			d.Evidence = f.Evidence[len(f.Evidence)-1]
		}
		return d
	}
	switch {
	case f.Determined && s.Same(want, f.Value):
		return nil, nil
	case f.Determined:
		return drift(f.Value), nil
	case len(f.Candidates) > 0:
		for _, v := range f.Candidates {
			if s.Same(want, v) {
				return nil, &Unchecked{f.Switch, f.Cause, f.Why}
			}
		}
		return drift(strings.Join(f.Candidates, " or ")), nil
	case f.AtLeast != "":
		bound, _ := time.ParseDuration(f.AtLeast)
		w, err := time.ParseDuration(want)
		switch {
		case err == nil && w > 0 && w <= bound:
			return drift("longer than " + f.AtLeast), nil
		case err == nil && w == 0:
			return nil, &Unchecked{f.Switch, CauseUnobservable, "the scenario's lifetime never runs out, and no wait tells that from one longer than it waited: " + f.Why}
		}
	}
	return nil, &Unchecked{f.Switch, f.Cause, f.Why}
}

// verdict is the comparison's last line: the drifts, the switches
// checked, and the ones not checked counted by cause. It says "no drift"
// only when every switch a publisher could check was checked.
func (c *Check) verdict(drifts int) string {
	counts := map[string]int{}
	for _, u := range c.Unchecked {
		counts[u.Cause]++
	}
	var parts []string
	for _, k := range Causes {
		if n := counts[k.Cause]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k.Counted))
		}
	}
	var head string
	switch {
	case drifts > 0:
		head = fmt.Sprintf("%d drifted against %s among %d checked", drifts, c.Scenario, c.Checked)
	case c.Checkable() > 0:
		head = fmt.Sprintf("drift unknown against %s: none among %d checked", c.Scenario, c.Checked)
	default:
		head = fmt.Sprintf("no drift against %s: %d checked", c.Scenario, c.Checked)
	}
	if len(c.Unchecked) == 0 {
		return head
	}
	return fmt.Sprintf("%s; %d not checked: %s", head, len(c.Unchecked), strings.Join(parts, ", "))
}

// WriteVerdict prints the comparison: each drift, each switch not
// checked, and the verdict line.
func (rep *Report) WriteVerdict(w io.Writer) {
	c := rep.Against
	if c == nil {
		return
	}
	if len(rep.Drift) > 0 {
		fmt.Fprintf(w, "drift against %s:\n", c.Scenario)
		for _, d := range rep.Drift {
			fmt.Fprintln(w, "  DRIFT "+d.String())
		}
	}
	if len(c.Unchecked) > 0 {
		fmt.Fprintf(w, "not checked against %s:\n", c.Scenario)
		for _, u := range c.Unchecked {
			fmt.Fprintf(w, "  NOT CHECKED %s: %s\n", u.Switch, u.Why)
		}
	}
	fmt.Fprintln(w, c.Verdict)
}

// CompareFile compares with the scenario file at path (Compare).
func (rep *Report) CompareFile(path string) ([]Drift, error) {
	sc, err := LoadScenario(path)
	if err != nil {
		return nil, err
	}
	return rep.compare(sc, path), nil
}
