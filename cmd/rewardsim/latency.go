package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

func newLatencyCmd() *cobra.Command {
	return group("latency", "Set, list and remove the latency profiles of a running simulator (/__sim/latency)",
		"A latency profile is how long the simulated service takes to answer one endpoint (docs/latency.md):\n"+
			"fixed, uniform between two figures, or log-normal given by median and p99, with an optional cap and seed;\n"+
			"for one channel or every channel, over the scenario's own profiles, kept across a restart.\n"+
			"Latency is simulator behaviour, not contract.",
		newLatencySetCmd(), newLatencyLsCmd(), newLatencyRmCmd())
}

// latencyAnswer prints out as JSON under --json, else human's line.
func latencyAnswer(cmd *cobra.Command, v *verb, out any, human string) error {
	if v.json {
		raw, err := json.Marshal(out)
		if err != nil {
			return err
		}
		v.print(cmd, raw)
		return nil
	}
	fmt.Fprintln(cmd.OutOrStdout(), human)
	return nil
}

// pair reads "A,B" as two Go durations, written back as Go writes them.
func pair(flag, s string) (string, string, error) {
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return "", "", fmt.Errorf("--%s %q: write two durations, e.g. 100ms,300ms", flag, s)
	}
	x, err := duration(flag, a)
	if err != nil {
		return "", "", err
	}
	y, err := duration(flag, b)
	return x, y, err
}

func duration(flag, s string) (string, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("--%s %q is not a duration: write one as Go does, e.g. 250ms", flag, s)
	}
	return d.String(), nil
}

func newLatencySetCmd() *cobra.Command {
	var (
		endpoint, fixed, uniform, lognormal, maxD string
		seed                                      int64
	)
	cmd, _ := channelVerbOf("set --endpoint E (--fixed D | --uniform MIN,MAX | --lognormal MEDIAN,P99) [--max D] [--seed N] [--channel C]",
		"Set one endpoint's latency profile, for a channel or every channel (POST /__sim/latency); kept across a restart",
		"the channel (default: every channel)", cobra.NoArgs, func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			p := controlapi.LatencyProfile{Endpoint: endpoint, Channel: channel, Seed: seed}
			var err error
			shapes := 0
			if fixed != "" {
				shapes++
				if p.Fixed, err = duration("fixed", fixed); err != nil {
					return err
				}
			}
			if uniform != "" {
				shapes++
				p.Uniform = &controlapi.LatencyUniform{}
				if p.Uniform.Min, p.Uniform.Max, err = pair("uniform", uniform); err != nil {
					return err
				}
			}
			if lognormal != "" {
				shapes++
				p.LogNormal = &controlapi.LatencyLogNormal{}
				if p.LogNormal.Median, p.LogNormal.P99, err = pair("lognormal", lognormal); err != nil {
					return err
				}
			}
			if shapes != 1 {
				return fmt.Errorf("give exactly one of --fixed, --uniform and --lognormal")
			}
			if maxD != "" {
				if p.Max, err = duration("max", maxD); err != nil {
					return err
				}
			}
			got, err := v.SetLatency(cmd.Context(), p)
			if err != nil {
				return err
			}
			return latencyAnswer(cmd, v, got, "latency "+got.String())
		})
	cmd.Flags().StringVar(&endpoint, "endpoint", "", "the operation (GetReward, fetchCouponCode, ...) or * for every one")
	cmd.Flags().StringVar(&fixed, "fixed", "", "every call takes this long (250ms)")
	cmd.Flags().StringVar(&uniform, "uniform", "", "MIN,MAX: drawn evenly between them (100ms,300ms)")
	cmd.Flags().StringVar(&lognormal, "lognormal", "", "MEDIAN,P99: log-normal with this median and 99th percentile (200ms,800ms)")
	cmd.Flags().StringVar(&maxD, "max", "", "cap every draw at this (at most 1m)")
	cmd.Flags().Int64Var(&seed, "seed", 0, "seed the profile's draws, so a run is reproducible (0: unseeded)")
	_ = cmd.MarkFlagRequired("endpoint")
	cmd.Example = "  rewardsim latency set --endpoint GetReward --lognormal 200ms,800ms --max 2s --seed 7\n  rewardsim latency set --endpoint '*' --fixed 50ms --channel DEMOBANK"
	return cmd
}

func newLatencyLsCmd() *cobra.Command {
	var v verb
	cmd := &cobra.Command{Use: "ls", Short: "List the latency profiles in force: the run-time ones, then each scenario's own (GET /__sim/latency)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := v.Latency(cmd.Context())
			if err != nil {
				return err
			}
			var b strings.Builder
			if len(l.Profiles) == 0 {
				b.WriteString("no run-time latency profile\n")
			} else {
				b.WriteString("run-time (consulted first):\n")
			}
			for _, p := range l.Profiles {
				fmt.Fprintf(&b, "  %s\n", p)
			}
			names := make([]string, 0, len(l.Scenarios))
			for n := range l.Scenarios {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(&b, "scenario %s:\n", n)
				for _, p := range l.Scenarios[n] {
					fmt.Fprintf(&b, "  %s\n", p)
				}
			}
			return latencyAnswer(cmd, &v, l, strings.TrimRight(b.String(), "\n"))
		}}
	v.flags(cmd)
	return cmd
}

func newLatencyRmCmd() *cobra.Command {
	var endpoint string
	cmd := channelVerb("rm [--endpoint E] [--channel C]",
		"Remove run-time latency profiles (every one, or an endpoint's, or a channel's), so the scenario's own are in force again (DELETE /__sim/latency)",
		"only this channel's profiles (default: every channel's)", cobra.NoArgs, func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			gone, err := v.RemoveLatency(cmd.Context(), endpoint, channel)
			if err != nil {
				return err
			}
			line := fmt.Sprintf("removed %d latency profile(s)", len(gone))
			for _, p := range gone {
				line += "\n  " + p.String()
			}
			return latencyAnswer(cmd, v, map[string]any{"removed": gone}, line)
		})
	cmd.Flags().StringVar(&endpoint, "endpoint", "", "only this operation's profiles")
	return cmd
}
