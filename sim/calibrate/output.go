package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

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
		if !f.Determined {
			open = append(open, fmt.Sprintf("  %s: %s", f.Switch, f.Why))
			continue
		}
		n := root
		for _, part := range strings.Split(f.Switch, ".") {
			n = n.child(part)
		}
		n.value = yamlValue(s, f.Value)
		n.comment = "probe " + f.Probe + ": " + strings.Join(f.Evidence, "\n  then ")
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

// Compare lists each determined switch whose reading differs from sc's;
// a switch not determined is no drift (nothing is known of it).
func (rep *Report) Compare(sc *scenario.Scenario) []Drift {
	var out []Drift
	for _, f := range rep.Findings {
		s, ok := SwitchByName(f.Switch)
		if !ok || !f.Determined {
			continue
		}
		want := s.Value(sc)
		if s.Same(want, f.Value) {
			continue
		}
		d := Drift{Switch: f.Switch, Scenario: want, Target: f.Value}
		if len(f.Evidence) > 0 {
			d.Evidence = f.Evidence[len(f.Evidence)-1]
		}
		out = append(out, d)
	}
	rep.Drift = out
	return out
}

// CompareFile compares with the scenario file at path (Compare).
func (rep *Report) CompareFile(path string) ([]Drift, error) {
	sc, err := LoadScenario(path)
	if err != nil {
		return nil, err
	}
	return rep.Compare(sc), nil
}
