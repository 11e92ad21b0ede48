package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/spf13/cobra"
)

func newStoryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "story",
		Short: "Named failure stories (stock-out, uat-down, token-expires-now, ...): list, apply to a channel, clear",
	}
	cmd.AddCommand(newStoryLsCmd(), newStoryApplyCmd(), newStoryClearCmd())
	return cmd
}

// storyList is GET /__sim/stories.
type storyList struct {
	Stories []struct{ Name, Description string } `json:"stories"`
	Applied map[string][]string                  `json:"applied"`
}

func (l storyList) String() string {
	var b strings.Builder
	for _, s := range l.Stories {
		fmt.Fprintf(&b, "%-21s %s\n", s.Name, s.Description)
	}
	for ch, names := range l.Applied {
		fmt.Fprintf(&b, "applied to %s: %s\n", ch, strings.Join(names, ", "))
	}
	return b.String()
}

func newStoryLsCmd() *cobra.Command {
	var v verb
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List the stories, what each does, and which channel has which applied",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return v.run(cmd, http.MethodGet, "/__sim/stories", nil, nil, decoded(func(l storyList) string { return l.String() }))
		},
	}
	v.flags(cmd)
	return cmd
}

// storyChannel is the --channel help of story apply and clear.
const storyChannel = "the channel (default: the one channel in force, when there is one)"

func newStoryApplyCmd() *cobra.Command {
	cmd, v := channelVerbOf("apply NAME [--channel C]",
		"Apply a story to a channel: its faults armed, its clock move made, its pushes sent (POST /__sim/stories/NAME/apply)",
		storyChannel, cobra.ExactArgs(1), func(cmd *cobra.Command, v *verb, channel string, args []string) error {
			if err := oneChannelOr(cmd, v, channel); err != nil {
				return err
			}
			return v.run(cmd, http.MethodPost, "/__sim/stories/"+url.PathEscape(args[0])+"/apply", channelQuery(channel), nil,
				decoded(func(a struct{ Story, Channel, Description string }) string {
					return "applied " + a.Story + " to channel " + a.Channel + ": " + a.Description
				}))
		})
	cmd.Example = "  rewardsim story apply stock-out --channel CI-42"
	cmd.ValidArgsFunction = namesAt(v, "/__sim/stories", "stories")
	return cmd
}

func newStoryClearCmd() *cobra.Command {
	return channelVerb("clear [--channel C]", "Undo every story applied to a channel: its rules disarmed, its clock put back",
		storyChannel, cobra.NoArgs, func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			if err := oneChannelOr(cmd, v, channel); err != nil {
				return err
			}
			return v.run(cmd, http.MethodPost, "/__sim/stories/clear", channelQuery(channel), nil,
				decoded(func(a struct {
					Channel string
					Cleared []string
				}) string {
					if len(a.Cleared) == 0 {
						return "no story was applied to channel " + a.Channel
					}
					return "cleared " + strings.Join(a.Cleared, ", ") + " from channel " + a.Channel
				}))
		})
}

// oneChannelOr refuses, in the command's own words, a story call without
// --channel when more than one channel is in force (the control API
// would ask for ?channel=X, which is not what the command takes).
func oneChannelOr(cmd *cobra.Command, v *verb, channel string) error {
	if channel != "" {
		return nil
	}
	out, err := v.call(cmd, http.MethodGet, "/__sim/channels", nil, nil)
	if err != nil {
		return err
	}
	var l struct{ Channels []channelRow }
	if err := decodeInto(out, &l); err != nil {
		return err
	}
	if len(l.Channels) == 1 {
		return nil
	}
	names := make([]string, 0, len(l.Channels))
	for _, c := range l.Channels {
		names = append(names, c.Name)
	}
	return fmt.Errorf("%d channels are in force: give one with --channel (%s)", len(names), strings.Join(names, ", "))
}
