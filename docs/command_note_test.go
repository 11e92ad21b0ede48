package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runsCommand matches a shell line that runs the rewardsim command: at the
// start, after a pipe, ;, &&, ( or $( .
var runsCommand = regexp.MustCompile(`(^|[|;&(]\s*|\$\()rewardsim [a-z]`)

// The places a Java or Node team learns how to run the command without Go.
const javaCommand, nodeCommand = "java.md#the-rewardsim-command", "node.md#the-rewardsim-command"

// Issue 51: every page whose examples run the rewardsim command says how
// a Java or Node team runs it (java -jar rewardsim.jar, npx rewardsim),
// pointing to the one place each library's chapter explains it.
func TestDocs_commandForJavaAndNodeTeams(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, page := range append(pages, "../README.md") {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		runs, inSh := false, false
		for _, line := range strings.Split(text, "\n") {
			switch trimmed := strings.TrimSpace(line); {
			case trimmed == "```sh":
				inSh = true
			case strings.HasPrefix(trimmed, "```"):
				inSh = false
			case inSh && runsCommand.MatchString(trimmed):
				runs = true
			}
		}
		if !runs {
			continue
		}
		checked++
		switch filepath.Base(page) {
		case "java.md":
			if !strings.Contains(text, "## The rewardsim command") || !strings.Contains(text, "java -jar") {
				t.Errorf("%s has no section The rewardsim command", page)
			}
		case "node.md":
			if !strings.Contains(text, "## The rewardsim command") || !strings.Contains(text, "npx rewardsim") {
				t.Errorf("%s has no section The rewardsim command", page)
			}
		default:
			if !strings.Contains(text, javaCommand) || !strings.Contains(text, nodeCommand) {
				t.Errorf("%s runs the rewardsim command in its examples but does not say how a Java or Node team runs it (link %s and %s)",
					page, javaCommand, nodeCommand)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d pages run the rewardsim command: the check matches nothing", checked)
	}
}
