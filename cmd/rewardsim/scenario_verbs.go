package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

// scenarioList is GET /__sim/scenarios.
type scenarioList struct {
	Active     string            `json:"active"`
	PerChannel map[string]string `json:"perChannel"`
	Scenarios  []struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		Channels    []string `json:"channels"`
		Faults      int      `json:"faults"`
	} `json:"scenarios"`
}

func (l scenarioList) String() string {
	var b strings.Builder
	for _, s := range l.Scenarios {
		mark := " "
		if s.Name == l.Active {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %s: %s", mark, s.Name, firstLine(s.Description))
		if len(s.Channels) > 0 {
			fmt.Fprintf(&b, " [channels %s]", strings.Join(s.Channels, ", "))
		}
		b.WriteString("\n")
	}
	chans := make([]string, 0, len(l.PerChannel))
	for ch := range l.PerChannel {
		chans = append(chans, ch)
	}
	slices.Sort(chans)
	for _, ch := range chans {
		fmt.Fprintf(&b, "  channel %s runs %s\n", ch, l.PerChannel[ch])
	}
	return b.String()
}

func newScenarioLsCmd() *cobra.Command {
	return listVerb[scenarioList]("List the loaded scenarios (* the default one) and the channels that run their own",
		(*controlapi.Client).Scenarios)
}

// activated says where a scenario now governs.
func activated(name, channel string) string {
	if channel == "" {
		return "scenario " + name + " now governs every channel without its own"
	}
	return "scenario " + name + " now governs channel " + channel
}

func newScenarioLoadCmd() *cobra.Command {
	var activate bool
	cmd, _ := channelVerbOf("load FILE [--activate] [--channel C]", "Upload a scenario file (YAML) to a running simulator, and activate it (for one channel)",
		"with --activate: for this channel only", cobra.ExactArgs(1), func(cmd *cobra.Command, v *verb, channel string, args []string) error {
			raw, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			q := url.Values{"name": {filepath.Base(args[0])}}
			if activate {
				q.Set("activate", "true")
			}
			if channel != "" {
				q.Set("channel", channel)
			}
			return v.show(cmd, decoded(func(s struct{ Name string }) string {
				if activate {
					return "loaded " + activated(s.Name, channel)
				}
				return "loaded scenario " + s.Name + " (not active: scenario activate " + s.Name + ")"
			}))(v.UploadScenario(cmd.Context(), raw, q))
		})
	cmd.Flags().BoolVar(&activate, "activate", false, "activate it once loaded")
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	}
	return cmd
}

func newScenarioActivateCmd() *cobra.Command {
	cmd, v := channelVerbOf("activate NAME [--channel C]", "Make a loaded scenario govern one channel, or every channel without its own",
		"only this channel", cobra.ExactArgs(1), func(cmd *cobra.Command, v *verb, channel string, args []string) error {
			return v.show(cmd, fixed(activated(args[0], channel)))(v.ActivateScenario(cmd.Context(), args[0], channel))
		})
	cmd.ValidArgsFunction = namesAt(v, (*controlapi.Client).Scenarios, "scenarios")
	return cmd
}
