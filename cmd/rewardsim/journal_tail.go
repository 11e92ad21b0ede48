package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim"
)

// tailEntry is the part of a journal entry `journal tail` prints.
type tailEntry struct {
	Seq       uint64    `json:"seq"`
	Kind      string    `json:"kind"`
	At        time.Time `json:"at"`
	Channel   string    `json:"channel"`
	Endpoint  string    `json:"endpoint"`
	Method    string    `json:"method"`
	Path      string    `json:"path"`
	Status    int       `json:"status"`
	Outcome   string    `json:"outcome"`
	ErrorCode string    `json:"errorCode"`
	Reason    string    `json:"reason"`
	Error     string    `json:"error"`
}

// line is one exchange in a line: time (in loc), channel, endpoint,
// outcome, reason.
func (e tailEntry) line(loc *time.Location) string {
	what := e.Endpoint
	if what == "" {
		what = e.Method + " " + e.Path
	}
	if e.Kind == "webhook" {
		what = "webhook → " + e.Path
	}
	outcome := e.Outcome
	if e.Status != 0 {
		outcome += " " + strconv.Itoa(e.Status)
	}
	if e.ErrorCode != "" {
		outcome += " " + e.ErrorCode
	}
	reason := e.Reason
	if reason == "" {
		reason = e.Error
	}
	ch := e.Channel
	if ch == "" {
		ch = "-"
	}
	return fmt.Sprintf("%s  %-12s %-24s %-20s %s", e.At.In(loc).Format("15:04:05.000"), ch, what, outcome, reason)
}

// journalPage is one page of GET /__sim/journal.
type journalPage struct {
	Entries []json.RawMessage `json:"entries"`
	Next    uint64            `json:"next"`
}

func newJournalCmd() *cobra.Command {
	return group("journal", "Read a running simulator's journal", "",
		newJournalTailCmd())
}

func newJournalTailCmd() *cobra.Command {
	var (
		v                 verb
		channel, endpoint string
		follow            bool
		n                 int
		every             time.Duration
	)
	cmd := &cobra.Command{
		Use:   "tail [-f] [--channel C] [--endpoint E]",
		Short: "The latest exchanges, one line each: time, channel, endpoint, outcome, reason (-f: and those to come)",
		Long: "Prints the last -n exchanges and webhook attempts of the journal (GET /__sim/journal), one line each:\n" +
			"simulated time, channel, endpoint, outcome (with status and errorCode), and the X-Rewardsim-Reason.\n" +
			"--json prints each entry as the control API gives it, one JSON object a line. -f keeps polling until interrupted.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q := url.Values{"limit": {"1000"}}
			for k, s := range map[string]string{"channel": channel, "endpoint": endpoint} {
				if s != "" {
					q.Set(k, s)
				}
			}
			loc, err := v.scenarioZone(cmd, channel)
			if err != nil {
				return err
			}
			last, err := v.tailFrom(cmd, q, 0, n, loc)
			if err != nil || !follow {
				return err
			}
			for {
				select {
				case <-cmd.Context().Done():
					return nil
				case <-time.After(every):
				}
				if last, err = v.tailFrom(cmd, q, last, -1, loc); err != nil {
					return err
				}
			}
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&follow, "follow", "f", false, "keep printing new entries until interrupted")
	f.IntVarP(&n, "lines", "n", 10, "how many of the latest entries to print first")
	f.DurationVar(&every, "every", 500*time.Millisecond, "with -f: how often to ask")
	f.StringVar(&channel, "channel", "", "only this channel's entries")
	f.StringVar(&endpoint, "endpoint", "", "only this endpoint's entries")
	v.flags(cmd)
	completeChannelFlag(cmd, &v)
	_ = cmd.RegisterFlagCompletionFunc("endpoint", words(sim.FaultEndpoints))
	return cmd
}

// scenarioZone is the zone of the scenario governing channel (the
// active one for ""): the clock's answer is in it, as every answer's
// times and the dashboard's are.
func (v *verb) scenarioZone(cmd *cobra.Command, channel string) (*time.Location, error) {
	out, err := v.body(cmd)(v.Clock(cmd.Context(), channel))
	var no errRefused
	if errors.As(err, &no) && channel != "" { // a channel no longer in force: the active scenario's zone
		out, err = v.body(cmd)(v.Clock(cmd.Context(), ""))
	}
	if err != nil {
		return nil, err
	}
	var c struct {
		Now time.Time `json:"now"`
	}
	if err := decodeInto(out, &c); err != nil {
		return nil, err
	}
	return c.Now.Location(), nil
}

// tailFrom reads every entry after seq (following pages) and prints the
// last keep of them (keep < 0: all), times in loc; it returns the last
// sequence seen.
func (v *verb) tailFrom(cmd *cobra.Command, q url.Values, after uint64, keep int, loc *time.Location) (uint64, error) {
	var got []json.RawMessage
	for {
		q.Set("after", strconv.FormatUint(after, 10))
		out, err := v.body(cmd)(v.Journal(cmd.Context(), q))
		if err != nil {
			return after, err
		}
		var p journalPage
		if err := decodeInto(out, &p); err != nil {
			return after, err
		}
		got = append(got, p.Entries...)
		if keep >= 0 && len(got) > keep {
			got = got[len(got)-keep:]
		}
		if len(p.Entries) > 0 {
			var e tailEntry
			if err := decodeInto(p.Entries[len(p.Entries)-1], &e); err != nil {
				return after, err
			}
			after = e.Seq
		}
		if p.Next == 0 {
			break
		}
	}
	for _, raw := range got {
		if v.json {
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", raw)
			continue
		}
		var e tailEntry
		if err := decodeInto(raw, &e); err != nil {
			return after, err
		}
		fmt.Fprintln(cmd.OutOrStdout(), e.line(loc))
	}
	return after, nil
}
