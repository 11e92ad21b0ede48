package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim"
)

func newSwitchCmd() *cobra.Command {
	return group("switch", "List, set and reset the behaviour switches of a running simulator, for a channel or every channel (/__sim/switches)",
		"A behaviour switch chooses a reading the contract leaves open (docs/scenarios.md, \"Behaviour switches\").\n"+
			"switch set overrides what the governing scenario says, for one channel (--channel) or every channel, kept\n"+
			"across a restart; switch reset puts the scenario's value back.",
		newSwitchLsCmd(), newSwitchSetCmd(), newSwitchResetCmd())
}

// switchState is one switch as the control API lists it.
type switchState struct {
	Name, Kind, Allowed, Default, Scenario, EveryChannel, Override, Value, Doc string
	Values                                                                     []string
}

// String is the switch in one line: its name, the value in force, and
// where that value comes from.
func (s switchState) String() string {
	from := "default"
	switch {
	case s.Override != "":
		from = "override for this channel"
	case s.EveryChannel != "":
		from = "override for every channel"
	case s.Scenario != s.Default:
		from = "the scenario's"
	}
	return fmt.Sprintf("%-34s %-18s %s (default %s, scenario %s); takes %s", strings.TrimPrefix(s.Name, "switches."), s.Value, from, s.Default, s.Scenario, s.Allowed)
}

// switchList is the answer of GET and DELETE /__sim/switches.
type switchList struct {
	Channel  string
	Scenario string
	Reset    []string
	Switches []switchState
}

func (l switchList) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "switches of %s (scenario %s):\n", whichChannel(l.Channel), l.Scenario)
	for _, s := range l.Switches {
		fmt.Fprintln(&b, s.String())
	}
	return b.String()
}

const switchChannelHelp = "the channel (default: every channel)"

// whichChannel names the channel a switch call is for.
func whichChannel(channel string) string {
	if channel == "" {
		return "every channel"
	}
	return "channel " + channel
}

func newSwitchLsCmd() *cobra.Command {
	return channelVerb("ls [--channel C]", "List every switch: the value in force, the default, the scenario's value and the overrides (GET /__sim/switches)",
		switchChannelHelp, cobra.NoArgs, func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			return v.show(cmd, decoded(func(l switchList) string { return l.String() }))(v.Switches(cmd.Context(), channel))
		})
}

func newSwitchSetCmd() *cobra.Command {
	cmd, _ := channelVerbOf("set NAME VALUE [--channel C]",
		"Override one switch for a channel or every channel (POST /__sim/switches); kept across a restart",
		switchChannelHelp, cobra.ExactArgs(2), func(cmd *cobra.Command, v *verb, channel string, args []string) error {
			body := map[string]any{"name": args[0], "value": args[1]}
			if channel != "" {
				body["channel"] = channel
			}
			return v.show(cmd, decoded(func(s switchState) string {
				return fmt.Sprintf("%s is %s for %s (default %s, scenario %s)", strings.TrimPrefix(s.Name, "switches."), s.Value, whichChannel(channel), s.Default, s.Scenario)
			}))(v.SetSwitch(cmd.Context(), body))
		})
	cmd.Example = "  rewardsim switch set coupons.duplicate reject --channel DEMOBANK\n  rewardsim switch set cards.listMaxLimit 100"
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		switch len(args) {
		case 0:
			var names []string
			for _, s := range sim.Switches() {
				names = append(names, s.Name+"\t"+s.Doc)
			}
			return starting(names, prefix), cobra.ShellCompDirectiveNoFileComp
		case 1:
			for _, s := range sim.Switches() {
				if s.Name == strings.TrimPrefix(args[0], "switches.") {
					values := s.Values
					if values == nil {
						values = []string{s.Default + "\t" + s.Allowed}
					}
					return starting(values, prefix), cobra.ShellCompDirectiveNoFileComp
				}
			}
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return cmd
}

func newSwitchResetCmd() *cobra.Command {
	cmd, _ := channelVerbOf("reset [NAME] [--channel C]",
		"Drop a channel's override of one switch, or of every one, so the scenario's value is in force again (DELETE /__sim/switches)",
		switchChannelHelp, cobra.MaximumNArgs(1), func(cmd *cobra.Command, v *verb, channel string, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			return v.show(cmd, decoded(func(l switchList) string {
				where := whichChannel(channel)
				if len(l.Reset) == 0 {
					return "no switch of " + where + " was overridden"
				}
				names := make([]string, len(l.Reset))
				for i, n := range l.Reset {
					names[i] = strings.TrimPrefix(n, "switches.")
				}
				return "reset " + strings.Join(names, ", ") + " of " + where + " to the scenario's value"
			}))(v.ResetSwitches(cmd.Context(), name, channel))
		})
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for _, s := range sim.Switches() {
			names = append(names, s.Name)
		}
		return starting(names, prefix), cobra.ShellCompDirectiveNoFileComp
	}
	return cmd
}
