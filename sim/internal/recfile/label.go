package recfile

import (
	"fmt"
	"regexp"
	"strings"
)

// Placeholder is a ${name} a replay fills in from an earlier answer.
var Placeholder = regexp.MustCompile(`\$\{([^}]+)\}`)

// Label names the step for people: its operation and request line. A
// path that is a URL an earlier answer handed out is named by where it
// came from, not by its ${...} placeholder (a test report shows it).
func (st *Step) Label() string {
	path := st.Path
	if m := Placeholder.FindStringSubmatch(path); m != nil && m[0] == path {
		from, field, _ := strings.Cut(strings.TrimSuffix(m[1], ".url"), ".")
		path = fmt.Sprintf("the URL in %s's %s", from, strings.ReplaceAll(field, ".", "/"))
		if st.Endpoint == "" {
			return st.Method + " " + path
		}
	}
	name := st.Endpoint
	if name == "" {
		name = path
	}
	return fmt.Sprintf("%s (%s %s)", name, st.Method, path)
}
