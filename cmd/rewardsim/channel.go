package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

// channelRow is a channel as GET /__sim/channels lists it.
type channelRow struct {
	Name       string `json:"name"`
	ChannelID  string `json:"channelId"`
	WebhookURL string `json:"webhookUrl"`
	Scenario   string `json:"scenario"`
	Source     string `json:"source"`
	Like       string `json:"like"`
}

func (c channelRow) String() string {
	line := fmt.Sprintf("%s (CHANNELID %s, %s, scenario %s", c.Name, c.ChannelID, c.Source, c.Scenario)
	if c.Like != "" {
		line += ", like " + c.Like
	}
	if c.WebhookURL != "" {
		line += ", webhook " + c.WebhookURL
	}
	return line + ")"
}

// channelList is GET /__sim/channels.
type channelList struct{ Channels []channelRow }

// String is a channel a line.
func (l channelList) String() string {
	var b strings.Builder
	for _, c := range l.Channels {
		b.WriteString(c.String() + "\n")
	}
	return b.String()
}

func newChannelCmd() *cobra.Command {
	return group("channel", "Register, list and remove channels of a running simulator (/__sim/channels)", "",
		newChannelAddCmd(), newChannelLsCmd(), newChannelRmCmd(), newChannelTokenCmd())
}

func newChannelAddCmd() *cobra.Command {
	var (
		v                                                  verb
		like, webhook, certFile, channelID, appKey, secKey string
		scenario                                           string
	)
	cmd := &cobra.Command{
		Use:   "add NAME [--like DEMOBANK] [--webhook-url URL] [--certificate FILE]",
		Short: "Register a channel at run time: a copy of another (--like) or one with its own certificate",
		Long: "Registers NAME through POST /__sim/channels. --like copies another channel's campaigns, offers,\n" +
			"switches and credentials; without --like or --certificate the channel is made like DEMOBANK,\n" +
			"the default scenario's channel. Registering a name again replaces it.",
		Example: "  rewardsim channel add CI-42 --like DEMOBANK --webhook-url http://127.0.0.1:9000/hooks",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			body := map[string]any{"name": args[0]}
			if certFile != "" {
				pem, err := os.ReadFile(certFile)
				if err != nil {
					return err
				}
				body["certificate"] = string(pem)
			} else if like == "" {
				like = "DEMOBANK"
			}
			for k, s := range map[string]string{"like": like, "webhookUrl": webhook, "channelId": channelID,
				"appKey": appKey, "secKey": secKey, "scenario": scenario} {
				if s != "" {
					body[k] = s
				}
			}
			return v.show(cmd, decoded(func(c channelRow) string { return "registered " + c.String() }))(v.RegisterChannel(cmd.Context(), body))
		},
	}
	f := cmd.Flags()
	f.StringVar(&like, "like", "", "copy this channel (default DEMOBANK when no --certificate)")
	f.StringVar(&webhook, "webhook-url", "", "where coupon-status pushes for this channel go")
	f.StringVar(&certFile, "certificate", "", "PEM file: the publisher certificate or RSA public key that verifies its SIGN")
	f.StringVar(&channelID, "channel-id", "", "CHANNELID (default: NAME)")
	f.StringVar(&appKey, "app-key", "", "ServiceAppKey app key (default: copied with --like)")
	f.StringVar(&secKey, "sec-key", "", "ServiceAppKey secret key (default: copied with --like)")
	f.StringVar(&scenario, "scenario", "", "a loaded scenario that governs the channel")
	v.flags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("like", func(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return starting(channelNames(cmd, &v), prefix), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("certificate", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"pem", "crt"}, cobra.ShellCompDirectiveFilterFileExt
	})
	return cmd
}

func newChannelLsCmd() *cobra.Command {
	return listVerb[channelList]("List the channels in force, each with the scenario that governs it",
		(*controlapi.Client).Channels)
}

func newChannelTokenCmd() *cobra.Command {
	var v verb
	cmd := &cobra.Command{
		Use:   "token NAME",
		Short: "Give a channel a control token of its own, acting on that channel alone (a shared box's; shown this once)",
		Long: "Issues NAME's own control token through POST /__sim/channels/NAME/token (with the box's token) and\n" +
			"prints it, the only time it is shown: hand it to the job that owns the channel, which passes it as\n" +
			"--control-token or REWARDSIM_CONTROL_TOKEN. It acts on NAME's faults, clock, stories, verify,\n" +
			"journal, state and cards alone; a new one replaces the old. Only on `serve --shared-box`.",
		Example: "  rewardsim channel token CI-42",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return v.show(cmd,
				decoded(func(t struct{ Channel, Token string }) string { return t.Token }))(v.ChannelToken(cmd.Context(), args[0]))
		},
	}
	v.flags(cmd)
	cmd.ValidArgsFunction = channelArg(&v)
	return cmd
}

func newChannelRmCmd() *cobra.Command {
	cmd, v := plainVerb("rm NAME", "Remove a channel registered at run time (a scenario's own channels stay)", cobra.ExactArgs(1),
		func(cmd *cobra.Command, v *verb, args []string) error {
			return v.show(cmd, fixed("removed channel "+args[0]))(v.RemoveChannel(cmd.Context(), args[0]))
		})
	cmd.ValidArgsFunction = channelArg(v)
	return cmd
}
