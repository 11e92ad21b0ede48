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

// tsSwitchValues is index.d.ts's SwitchValues: each switch with the
// values it takes, as TypeScript types.
func tsSwitchValues() string {
	var b strings.Builder
	b.WriteString("export interface SwitchValues {\n")
	for _, s := range sim.Switches() {
		var t string
		switch {
		case s.Values != nil:
			var vs []string
			for _, v := range s.Values {
				vs = append(vs, fmt.Sprintf("%q", v))
				if v == "true" || v == "false" || strings.Trim(v, "0123456789") == "" {
					vs = append(vs, v)
				}
			}
			t = strings.Join(vs, " | ")
		case strings.HasPrefix(s.Allowed, "an integer"):
			t = "number"
		default:
			t = "string"
		}
		fmt.Fprintf(&b, "  /** %s: %s (default %s). */\n  %q: %s;\n", s.Doc, s.Allowed, s.Default, s.Name, t)
	}
	b.WriteString("}\n")
	return b.String()
}

// javaSwitchConstants is Switch.java's constants: each switch with the
// values it takes (none listed for a free integer or duration).
func javaSwitchConstants() string {
	var b strings.Builder
	all := sim.Switches()
	for i, s := range all {
		var camel strings.Builder // coupons.duplicate -> COUPONS_DUPLICATE, tokens.userTTL -> TOKENS_USER_TTL
		for j, r := range s.Name {
			switch {
			case r == '.':
				camel.WriteByte('_')
			case r >= 'A' && r <= 'Z' && j > 0 && s.Name[j-1] >= 'a' && s.Name[j-1] <= 'z':
				camel.WriteByte('_')
				camel.WriteRune(r)
			default:
				camel.WriteString(strings.ToUpper(string(r)))
			}
		}
		args := []string{fmt.Sprintf("%q", s.Name), fmt.Sprintf("%q", s.Default), fmt.Sprintf("%q", s.Allowed)}
		for _, v := range s.Values {
			args = append(args, fmt.Sprintf("%q", v))
		}
		end := ","
		if i == len(all)-1 {
			end = ";"
		}
		fmt.Fprintf(&b, "    /** %s. */\n    %s(%s)%s\n", strings.ReplaceAll(s.Doc, "*/", "*&#47;"), camel.String(), strings.Join(args, ", "), end)
	}
	return b.String()
}

// The libraries' typed surfaces list every switch with the values it
// takes, as the simulator's one switch table says (issue 52, item 1).
func TestDocs_switchSurfaces(t *testing.T) {
	redrawn(t, "../clients/node/index.d.ts", "// switches: drawn from the simulator's switch table (go test ./docs -run TestDocs_switchSurfaces -update)",
		"// end of switches", tsSwitchValues(), "index.d.ts's switch types are not the switch table's (go test ./docs -run TestDocs_switchSurfaces -update redraws them)")
	redrawn(t, "../clients/java/src/main/java/io/github/rewardsim/Switch.java", "    // switches: drawn from the simulator's switch table (go test ./docs -run TestDocs_switchSurfaces -update)",
		"    // end of switches", javaSwitchConstants(), "Switch.java's constants are not the switch table's (go test ./docs -run TestDocs_switchSurfaces -update redraws them)")
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
