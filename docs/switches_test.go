package docs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim"
)

const (
	switchesBegin = "<!-- switches: drawn from the switch table (scenario.SwitchTable); go test ./docs -run TestDocs_switchRows -update redraws it -->"
	switchesEnd   = "<!-- end of switches -->"
)

// exampleValue is a value of s other than its default, for a row's
// command: the next value it takes, or a free one doubled.
func exampleValue(s sim.SwitchInfo) string {
	for _, v := range s.Values {
		if v != s.Default {
			return v
		}
	}
	if n, err := strconv.Atoi(s.Default); err == nil {
		return strconv.Itoa(n * 2)
	}
	d, _ := time.ParseDuration(s.Default)
	if d == 0 {
		return "30s"
	}
	return strings.TrimSuffix(strings.TrimSuffix((2*d).String(), "0s"), "0m")
}

// drawSwitchRows is toggling-failures.md's switch table: one row a switch.
func drawSwitchRows() string {
	var b strings.Builder
	b.WriteString("| The switch | Its values (default first) | The command | The click (the channel's panel, Switches) | The control API call it makes |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, s := range sim.Switches() {
		values := "`" + s.Default + "` (default); " + s.Allowed
		if s.Values != nil {
			var vs []string
			for _, v := range s.Values {
				vs = append(vs, "`"+v+"`")
			}
			values = strings.Join(vs, ", ")
		}
		ex := exampleValue(s)
		fmt.Fprintf(&b, "| `%s`: %s | %s | `rewardsim switch set %s %s --channel DEMOBANK` | row %s: **%s** | `POST /__sim/switches` `{\"name\":\"%s\",\"value\":\"%s\",\"channel\":\"DEMOBANK\"}` |\n",
			s.Name, s.Doc, values, s.Name, ex, s.Name, ex, s.Name, ex)
	}
	return b.String()
}

// Every behaviour switch of the one table has a row in
// toggling-failures.md (the command, the click, the call), redrawn with
// -update, and a row in scenarios.md's switch table with its default and
// every value it takes (issue 52, item 1).
func TestDocs_switchRows(t *testing.T) {
	redrawn(t, "toggling-failures.md", switchesBegin, switchesEnd, drawSwitchRows(),
		"toggling-failures.md's switch table is not the switch table's (go test ./docs -run TestDocs_switchRows -update redraws it)")

	raw, err := os.ReadFile("scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sim.Switches() {
		full := s.Name
		if !strings.HasPrefix(full, "tokens.") && !strings.HasPrefix(full, "sessions.") {
			full = "switches." + full
		}
		parent, last := full[:strings.LastIndex(full, ".")], full[strings.LastIndex(full, ".")+1:]
		var row string
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(line, "| `"+full+"`") || strings.HasPrefix(line, "| `"+parent+".") && (strings.Contains(line, "`"+last+"`") || strings.Contains(line, "`"+full+"`")) {
				row = line
				break
			}
		}
		if row == "" {
			t.Errorf("scenarios.md's switch table has no row for %s", full)
			continue
		}
		if s.Values == nil {
			continue
		}
		for _, v := range append([]string{s.Default}, s.Values...) {
			if !strings.Contains(row, "`"+v+"`") {
				t.Errorf("scenarios.md's row of %s does not name its value %q: %s", full, v, row)
			}
		}
	}
}

// redrawn checks that the part of file between the begin and end marks
// is want; with -update it rewrites that part, else it fails saying why.
func redrawn(t *testing.T, file, begin, end, want, why string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	b, e := strings.Index(doc, begin), strings.Index(doc, end)
	if b < 0 || e < b {
		t.Fatalf("%s has no part between %q and %q", file, begin, end)
	}
	if got := doc[b+len(begin)+1 : e]; got == want {
		return
	}
	if !*updateImports {
		t.Errorf("%s:\n%s", why, want)
		return
	}
	if err := os.WriteFile(file, []byte(doc[:b+len(begin)+1]+want+doc[e:]), 0o644); err != nil {
		t.Fatal(err)
	}
}
