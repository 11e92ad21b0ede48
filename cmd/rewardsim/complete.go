package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/controlapi"
)

// Shell completion (cobra's `completion` command and its hidden
// `__complete`): the static lists come from the binary (the contract
// table, fault.Shown, the schema's errorCodes); channel, fault, scenario
// and story names from the running simulator the command's own
// --control and --control-token point at. A simulator that cannot be
// reached completes nothing rather than failing.

func decodeInto(raw []byte, dst any) error {
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("control API: %w", err)
	}
	return nil
}

func mustJSON(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps and slices of strings and decoded answers are passed
	}
	return raw
}

// words completes from list's words, read when a completion asks: every
// command is built at every start, serve's too, and reading the error
// codes decoded the scenario schema (about a millisecond, issue 56).
func words(list func() []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return starting(list(), prefix), cobra.ShellCompDirectiveNoFileComp
	}
}

// starting keeps the words (each maybe followed by a tab and its
// description) that start with prefix: what a partial word completes to.
func starting(list []string, prefix string) []string {
	var out []string
	for _, w := range list {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	return out
}

// completeFaultFlags completes --endpoint, --kind (what the endpoint
// given so far can show), --code and --channel.
func completeFaultFlags(cmd *cobra.Command, v *verb) {
	_ = cmd.RegisterFlagCompletionFunc("endpoint", words(func() []string { return append(sim.FaultEndpoints(), "*") }))
	_ = cmd.RegisterFlagCompletionFunc("kind", func(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		ep, _ := cmd.Flags().GetString("endpoint")
		return starting(sim.FaultKinds(ep), prefix), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("code", words(sim.ErrorCodes))
	completeChannelFlag(cmd, v)
}

// completeChannelFlag completes --channel with the running simulator's
// channel names.
func completeChannelFlag(cmd *cobra.Command, v *verb) {
	_ = cmd.RegisterFlagCompletionFunc("channel", func(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return starting(channelNames(cmd, v), prefix), cobra.ShellCompDirectiveNoFileComp
	})
}

// channelNames are the running simulator's channels, each with where it
// comes from as its description.
func channelNames(cmd *cobra.Command, v *verb) []string {
	out, err := v.body(cmd)(v.Channels(cmd.Context()))
	if err != nil {
		return nil
	}
	var l struct{ Channels []channelRow }
	if json.Unmarshal(out, &l) != nil {
		return nil
	}
	var names []string
	for _, c := range l.Channels {
		names = append(names, c.Name+"\t"+c.Source+", scenario "+c.Scenario)
	}
	return names
}

// namesAt completes the first argument with the "name" of each item of
// the list under key in the answer of list (a typed control call).
func namesAt(v *verb, list func(*controlapi.Client, context.Context) (*controlapi.Answer, error), key string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out, err := v.body(cmd)(list(&v.Client, cmd.Context()))
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var l map[string]json.RawMessage
		var items []struct{ Name, Description string }
		if json.Unmarshal(out, &l) != nil || json.Unmarshal(l[key], &items) != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for _, it := range items {
			names = append(names, strings.TrimRight(it.Name+"\t"+firstLine(it.Description), "\t"))
		}
		return starting(names, prefix), cobra.ShellCompDirectiveNoFileComp
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// channelArg completes a first argument that names a channel.
func channelArg(v *verb) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return starting(channelNames(cmd, v), prefix), cobra.ShellCompDirectiveNoFileComp
	}
}
