package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
)

func newStateCmd() *cobra.Command {
	return group("state", "Read a user's state, or wipe a channel's (/__sim/state)", "",
		newStateResetCmd(), newStateUserCmd())
}

func newStateResetCmd() *cobra.Command {
	return channelVerb("reset [--channel C]",
		"Wipe the state (tokens, sessions, cards, coupons, pushes) of one channel, or of every channel; configuration stays",
		"only this channel's state", cobra.NoArgs, func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			what := "every channel"
			if channel != "" {
				what = "channel " + channel
			}
			return v.show(cmd, fixed("wiped the state of "+what))(v.ResetState(cmd.Context(), channel))
		})
}

// userState is GET /__sim/state/users/{channel}/{virtualId}, counted.
type userState struct {
	Channel   string `json:"channel"`
	VirtualID string `json:"virtualId"`
	Now       string `json:"now"`
	Tokens    []struct {
		Expired bool `json:"expired"`
	} `json:"tokens"`
	Sessions []json.RawMessage `json:"sessions"`
	Cards    []json.RawMessage `json:"cards"`
	Coupons  []json.RawMessage `json:"coupons"`
}

func (u userState) String() string {
	expired := 0
	for _, t := range u.Tokens {
		if t.Expired {
			expired++
		}
	}
	return fmt.Sprintf("%s on %s at %s: %d token(s) (%d expired), %d session(s), %d card(s), %d coupon(s); --json for the whole state",
		u.VirtualID, u.Channel, u.Now, len(u.Tokens), expired, len(u.Sessions), len(u.Cards), len(u.Coupons))
}

func newStateUserCmd() *cobra.Command {
	cmd, v := plainVerb("user CHANNEL VIRTUALID", "A user's tokens (expired or not, on the channel's clock), sessions, cards and coupons", cobra.ExactArgs(2),
		func(cmd *cobra.Command, v *verb, args []string) error {
			return v.show(cmd, decoded(func(u userState) string { return u.String() }))(v.UserState(cmd.Context(), args[0], args[1]))
		})
	cmd.ValidArgsFunction = channelArg(v)
	return cmd
}
