package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

func newStoryCmd() *cobra.Command {
	return group("story", "Named failure stories (stock-out, uat-down, token-expires-now, ...): list, apply to a channel, clear", "",
		newStoryLsCmd(), newStoryApplyCmd(), newStoryClearCmd())
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
	return listVerb[storyList]("List the stories, what each does, and which channel has which applied",
		(*controlapi.Client).Stories)
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
			return v.show(cmd,
				decoded(func(a struct{ Story, Channel, Description string }) string {
					return "applied " + a.Story + " to channel " + a.Channel + ": " + a.Description
				}))(v.ApplyStory(cmd.Context(), args[0], channel))
		})
	cmd.Example = "  rewardsim story apply stock-out --channel CI-42"
	cmd.ValidArgsFunction = namesAt(v, (*controlapi.Client).Stories, "stories")
	return cmd
}

func newStoryClearCmd() *cobra.Command {
	return channelVerb("clear [--channel C]", "Undo every story applied to a channel: its rules disarmed, its clock put back",
		storyChannel, cobra.NoArgs, func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			if err := oneChannelOr(cmd, v, channel); err != nil {
				return err
			}
			return v.show(cmd,
				decoded(func(a struct {
					Channel string
					Cleared []string
				}) string {
					if len(a.Cleared) == 0 {
						return "no story was applied to channel " + a.Channel
					}
					return "cleared " + strings.Join(a.Cleared, ", ") + " from channel " + a.Channel
				}))(v.ClearStories(cmd.Context(), channel))
		})
}

// oneChannelOr refuses, in the command's own words, a story call without
// --channel when more than one channel is in force (the control API
// would ask for ?channel=X, which is not what the command takes).
func oneChannelOr(cmd *cobra.Command, v *verb, channel string) error {
	if channel != "" {
		return nil
	}
	out, err := v.body(cmd)(v.Channels(cmd.Context()))
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
