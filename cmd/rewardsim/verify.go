package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

// errVerifyFailed exits 1: the count does not hold (the near misses are printed).
type errVerifyFailed struct{ msg string }

func (e errVerifyFailed) Error() string { return e.msg }

// errCannotVerify exits 2: verify could not ask (bad flags, the control
// API unreachable or refusing the question), so a CI step tells "your
// service did otherwise" from "the check did not run".
type errCannotVerify struct{ err error }

func (e errCannotVerify) Error() string { return e.err.Error() }
func (e errCannotVerify) Unwrap() error { return e.err }
func (errCannotVerify) ExitCode() int   { return 2 }

func newVerifyCmd() *cobra.Command {
	var (
		cc                     controlClient
		channel, endpoint      string
		where                  []string
		times, atLeast, atMost int
		since                  uint64
	)
	cmd := &cobra.Command{
		Use:   "verify --channel C --endpoint E [--where /ptr=value ...] [--times N | --at-least N | --at-most N] [--since SEQ]",
		Short: "Assert how often a channel called an endpoint with a request like this; exits 1 printing the near misses",
		Long: `Counts the channel's exchanges with the endpoint whose request passes every --where
(a JSON pointer into the decoded BDATA, the JSON body or a GET's query: /ptr=value compares
the text, /ptr~=regex matches), from journal sequence --since on (X-Rewardsim-Seq, inclusive).
Without --times, --at-least or --at-most: at least once. Exit 0 when the count holds, 1 when not,
2 when it could not ask (bad flags, the control API unreachable or refusing the question).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			body := map[string]any{"channel": channel}
			if endpoint != "" {
				body["endpoint"] = endpoint
			}
			if since > 0 {
				body["since"] = since
			}
			for name, v := range map[string]int{"times": times, "atLeast": atLeast, "atMost": atMost} {
				if v >= 0 {
					body[name] = v
				}
			}
			w, err := whereClauses(where)
			if err != nil {
				return err
			}
			if len(w) > 0 {
				body["where"] = w
			}
			out, err := controlapi.Body(cc.Verify(cmd.Context(), body))
			if err != nil {
				return errCannotVerify{err}
			}
			var v controlapi.Verdict
			if err := json.Unmarshal(out, &v); err != nil {
				return errCannotVerify{fmt.Errorf("control API: %w", err)}
			}
			return printVerdict(cmd.OutOrStdout(), v)
		},
	}
	f := cmd.Flags()
	f.StringVar(&channel, "channel", "", "channel name or CHANNELID (required)")
	f.StringVar(&endpoint, "endpoint", "", "operation name (fetchCouponCode) or path")
	f.StringArrayVar(&where, "where", nil, "/json/pointer=value or /json/pointer~=regex (repeatable)")
	f.IntVar(&times, "times", -1, "exactly N (0: never)")
	f.IntVar(&atLeast, "at-least", -1, "at least N")
	f.IntVar(&atMost, "at-most", -1, "at most N")
	f.Uint64Var(&since, "since", 0, "count from this journal sequence on (X-Rewardsim-Seq), inclusive")
	_ = cmd.MarkFlagRequired("channel")
	cmd.MarkFlagsMutuallyExclusive("times", "at-least")
	cmd.MarkFlagsMutuallyExclusive("times", "at-most")
	addControlFlags(cmd, &cc)
	return cmd
}

// whereClauses are the --where flags as /__sim/verify takes them.
func whereClauses(where []string) (map[string]any, error) {
	// /ptr=value compares the found value's text ({"text"}), so
	// /coinsUsed=100 matches "100" and 100 alike.
	w := map[string]any{}
	for _, p := range where {
		ptr, val, ok := strings.Cut(p, "=")
		if !ok || !strings.HasPrefix(ptr, "/") {
			return nil, errCannotVerify{fmt.Errorf("--where %q: want /pointer=value or /pointer~=regex", p)}
		}
		if re, isRe := strings.CutSuffix(ptr, "~"); isRe {
			w[re] = map[string]string{"regex": val}
		} else {
			w[ptr] = map[string]string{"text": val}
		}
	}
	return w, nil
}

// printVerdict prints v's count and, when it fails, its near misses.
func printVerdict(out io.Writer, v controlapi.Verdict) error {
	if v.OK {
		fmt.Fprintf(out, "ok: %d matching (seq %v)\n", v.Count, v.Matches)
		return nil
	}
	fmt.Fprintf(out, "FAILED: %d matching (seq %v)\n", v.Count, v.Matches)
	if len(v.NearMisses) == 0 {
		fmt.Fprintln(out, "no near misses: the channel has no other exchanges in range")
	} else {
		fmt.Fprintln(out, "near misses:")
	}
	for _, m := range v.NearMisses {
		fmt.Fprintf(out, "  seq %d %s: %s\n", m.Seq, m.Endpoint, m.Failed)
	}
	return errVerifyFailed{fmt.Sprintf("verify: %d matching exchanges do not satisfy the count", v.Count)}
}
