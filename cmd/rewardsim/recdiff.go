package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/recordings"
)

// errCannotCompare exits 2: the diff could not run (a file missing or not
// a recording, a bad flag), so CI tells "the app sends otherwise" (1)
// from "the check did not run".
type errCannotCompare struct{ err error }

func (e errCannotCompare) Error() string { return e.err.Error() }
func (e errCannotCompare) Unwrap() error { return e.err }
func (errCannotCompare) ExitCode() int   { return 2 }

// newRecordingDiffCmd is `rewardsim recording diff OLD NEW`.
func newRecordingDiffCmd() *cobra.Command {
	var masks []string
	var junit string
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compare two recordings of the app's traffic request by request: exit 0 same, 1 different, 2 cannot compare",
		Long: `Pairs the steps of two recordings by operation, in order, and prints every way the
app's requests differ: a call added or dropped, another path, query, header or body field. The
fields that differ between runs by design (extTransactionId, dateandtime, transDateAndTime,
deviceToken, sessionId) are compared for presence only; --mask FIELD=KIND adds more, as replay's.
Replay re-sends recorded requests, so it checks the service; this checks the app.`,
		Example: "  rewardsim recording diff before.json after.json --junit diff.xml",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			m := map[string]string{}
			for _, s := range masks {
				k, v, ok := strings.Cut(s, "=")
				if !ok {
					return errCannotCompare{fmt.Errorf("--mask %q: want FIELD=KIND", s)}
				}
				m[k] = v
			}
			var files [2][]byte
			for i, p := range args {
				data, err := os.ReadFile(p)
				if err != nil {
					return errCannotCompare{err}
				}
				files[i] = data
			}
			res, err := recordings.Diff(files[0], files[1], m)
			if err != nil {
				return errCannotCompare{err}
			}
			var out bytes.Buffer
			res.Format(&out)
			fmt.Fprint(cmd.OutOrStdout(), out.String())
			if junit != "" {
				c := junitCase{Name: args[0] + " vs " + args[1], ClassName: "recording.diff", Time: seconds(0)}
				if !res.OK() {
					c.Failure = &junitProblem{Message: fmt.Sprintf("%d difference(s)", len(res.Differences)), Text: out.String()}
				}
				data, err := junitXML(junitSuite{Name: "rewardsim recording diff", Time: seconds(0), Cases: []junitCase{c}})
				if err == nil {
					err = writeFile(junit, data)
				}
				if err != nil {
					return errCannotCompare{err}
				}
			}
			if !res.OK() {
				return errors.New(fmt.Sprint(len(res.Differences), " difference(s)"))
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&masks, "mask", nil, "compare FIELD as KIND (value, digits, url, ignore, none); repeatable")
	cmd.Flags().StringVar(&junit, "junit", "", "also write JUnit XML to this file (one case, failing on any difference)")
	return cmd
}
