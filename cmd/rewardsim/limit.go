package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

func newLimitCmd() *cobra.Command {
	return group("limit", "Set, list and remove the channels' capacity limits of a running simulator (/__sim/limits)",
		"A capacity limit holds a channel to at most N calls in flight and R calls a second (a token bucket);\n"+
			"a call over it waits up to --wait, then is refused in the endpoint's failure shape (docs/limits.md).\n"+
			"A limit set here overrides the scenario's and is kept across a restart.",
		newLimitSetCmd(), newLimitLsCmd(), newLimitRmCmd())
}

// limitLine is a limit in force in one line.
func limitLine(st controlapi.LimitState) string {
	var parts []string
	if st.Limit.InFlight > 0 {
		parts = append(parts, fmt.Sprintf("%d in flight", st.Limit.InFlight))
	}
	if st.Limit.Rate > 0 {
		parts = append(parts, fmt.Sprintf("%g/s (burst %d)", st.Limit.Rate, st.Burst))
	}
	wait := "refused at once"
	if st.Limit.Wait != "" && st.Limit.Wait != "0s" {
		wait = "waits up to " + st.Limit.Wait
	}
	s := st.Stats
	return fmt.Sprintf("%s: %s, %s (%s); now %d in flight, %d waiting; admitted %d, waited %d, refused %d",
		st.Channel, strings.Join(parts, ", "), wait, st.Source, s.InFlight, s.Waiting, s.Admitted, s.Waited, s.Refused)
}

// limitAnswer prints a typed answer: its JSON with --json, else line.
func limitAnswer(cmd *cobra.Command, v *verb, out any, err error, line func() string) error {
	var se *controlapi.StatusError
	switch {
	case errors.As(err, &se):
		return v.refused(cmd, se)
	case err != nil:
		return errUnreachable{err}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return v.answer(cmd, raw, func([]byte) (string, error) { return line(), nil })
}

func newLimitSetCmd() *cobra.Command {
	var (
		v        verb
		channel  string
		inFlight int
		rate     float64
		burst    int
		wait     time.Duration
	)
	cmd := &cobra.Command{
		Use:   "set --channel C [--in-flight N] [--rate R] [--wait D]",
		Short: "Hold a channel to N calls in flight and R calls a second; a call over it waits up to D, then is refused (POST /__sim/limits)",
		Example: "  rewardsim limit set --channel DEMOBANK --in-flight 4\n" +
			"  rewardsim limit set --channel DEMOBANK --rate 50 --wait 250ms",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if inFlight == 0 && rate == 0 {
				return fmt.Errorf("limit set needs --in-flight or --rate")
			}
			l := controlapi.Limit{InFlight: inFlight, Rate: rate, Burst: burst}
			if wait != 0 {
				l.Wait = wait.String()
			}
			st, err := v.SetLimit(cmd.Context(), channel, l)
			return limitAnswer(cmd, &v, st, err, func() string { return "limited " + limitLine(st) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&channel, "channel", "", "the channel to hold")
	f.IntVar(&inFlight, "in-flight", 0, "at most N of the channel's calls answered at once (0: no bound)")
	f.Float64Var(&rate, "rate", 0, "at most R calls a second, a token bucket (0: no bound)")
	f.IntVar(&burst, "burst", 0, "the bucket's size (default: one second's worth of --rate, at least 1)")
	f.DurationVar(&wait, "wait", 0, "how long a call over the limit waits for room before it is refused (0: refused at once; at most 5m)")
	_ = cmd.MarkFlagRequired("channel")
	v.flags(cmd)
	completeChannelFlag(cmd, &v)
	return cmd
}

func newLimitLsCmd() *cobra.Command {
	return channelVerb("ls [--channel C]", "List the capacity limits in force, with what each admitted, held and refused (GET /__sim/limits)",
		"only this channel's limit", cobra.NoArgs, func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			states, err := v.Limits(cmd.Context(), channel)
			return limitAnswer(cmd, v, map[string]any{"limits": states}, err, func() string {
				if len(states) == 0 {
					return "no capacity limit is in force"
				}
				lines := make([]string, len(states))
				for i, st := range states {
					lines[i] = limitLine(st)
				}
				return strings.Join(lines, "\n")
			})
		})
}

func newLimitRmCmd() *cobra.Command {
	cmd := channelVerb("rm --channel C", "Remove a channel's run-time limit: its scenario's, if any, is in force again (DELETE /__sim/limits/{channel})",
		"the channel whose limit to remove", cobra.NoArgs, func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			if channel == "" {
				return fmt.Errorf("limit rm needs --channel")
			}
			err := v.RemoveLimit(cmd.Context(), channel)
			return limitAnswer(cmd, v, map[string]any{"channel": channel, "removed": true}, err, func() string {
				return "removed the run-time limit of channel " + channel
			})
		})
	_ = cmd.MarkFlagRequired("channel")
	return cmd
}
