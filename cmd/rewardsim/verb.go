package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

// verb is what every control verb (fault, clock, channel, scenario ls,
// state, journal tail, story) shares: the control client and its flags,
// --json, and one way to tell a refusal (exit 1) from an unreachable
// simulator (exit 2).
type verb struct {
	controlClient
	json bool
}

// errRefused exits 1: the simulator answered and said no, with its reason.
type errRefused struct {
	status int
	reason string
}

func (e errRefused) Error() string {
	return fmt.Sprintf("refused (HTTP %d): %s", e.status, e.reason)
}

// errUnreachable exits 2: the control API could not be asked at all.
type errUnreachable struct{ err error }

func (e errUnreachable) Error() string {
	return "cannot reach the simulator: " + e.err.Error() + " (is `rewardsim serve` running? --control or " + envControlURL + ")"
}
func (e errUnreachable) Unwrap() error { return e.err }
func (errUnreachable) ExitCode() int   { return 2 }

// flags registers --control, --control-token and --json on cmd.
func (v *verb) flags(cmd *cobra.Command) {
	addControlFlags(cmd, &v.controlClient)
	cmd.Flags().BoolVar(&v.json, "json", false, "print the control API's JSON answer instead of a short line")
}

// body is what a typed control call (controlapi.Client's methods)
// answered: its body, or a refusal (exit 1, the answer printed first
// with --json) or an unreachable simulator (exit 2) as an error.
func (v *verb) body(cmd *cobra.Command) func(*controlapi.Answer, error) ([]byte, error) {
	return func(a *controlapi.Answer, err error) ([]byte, error) {
		if err != nil {
			return nil, errUnreachable{err}
		}
		if a.Status >= 300 {
			return nil, v.refused(cmd, a.Refusal())
		}
		return a.Body, nil
	}
}

// refused is a refusal as a verb says it (exit 1), the answer printed
// first with --json.
func (v *verb) refused(cmd *cobra.Command, se *controlapi.StatusError) error {
	if v.json && len(se.Body) > 0 {
		v.print(cmd, se.Body)
	}
	return errRefused{se.Status, se.Message}
}

// show prints a typed call's answer: the JSON with --json (an answer
// with no body prints {}), else the line human makes of it.
func (v *verb) show(cmd *cobra.Command, human func([]byte) (string, error)) func(*controlapi.Answer, error) error {
	return func(a *controlapi.Answer, err error) error {
		out, err := v.body(cmd)(a, err)
		if err != nil {
			return err
		}
		return v.answer(cmd, out, human)
	}
}

// answer prints out as run does.
func (v *verb) answer(cmd *cobra.Command, out []byte, human func([]byte) (string, error)) error {
	if v.json {
		if len(bytes.TrimSpace(out)) == 0 {
			out = []byte("{}")
		}
		v.print(cmd, out)
		return nil
	}
	line, err := human(out)
	if err != nil {
		return fmt.Errorf("control API: %w", err)
	}
	if line != "" {
		fmt.Fprintln(cmd.OutOrStdout(), strings.TrimRight(line, "\n"))
	}
	return nil
}

// print writes a JSON answer, indented, ending with a newline.
func (v *verb) print(cmd *cobra.Command, out []byte) {
	var pretty bytes.Buffer
	if json.Indent(&pretty, out, "", "  ") == nil {
		out = pretty.Bytes()
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s\n", bytes.TrimSpace(out))
}

// decoded is a human formatter that decodes the answer into T first.
func decoded[T any](f func(T) string) func([]byte) (string, error) {
	return func(raw []byte) (string, error) {
		var t T
		if err := json.Unmarshal(raw, &t); err != nil {
			return "", err
		}
		return f(t), nil
	}
}

// fixed is a human formatter that prints line whatever the answer.
func fixed(line string) func([]byte) (string, error) {
	return func([]byte) (string, error) { return line, nil }
}

// channelVerb is a control verb with --channel (completed with the
// running simulator's channels) and the verb flags; run gets the verb and
// the channel given ("" for none).
func channelVerb(use, short, channelHelp string, args cobra.PositionalArgs, run func(cmd *cobra.Command, v *verb, channel string, args []string) error) *cobra.Command {
	cmd, _ := channelVerbOf(use, short, channelHelp, args, run)
	return cmd
}

// plainVerb is a control verb without --channel: the verb flags, and run
// gets the verb. It returns the verb too, for a completion that asks
// the simulator.
func plainVerb(use, short string, args cobra.PositionalArgs, run func(cmd *cobra.Command, v *verb, args []string) error) (*cobra.Command, *verb) {
	var v verb
	cmd := &cobra.Command{Use: use, Short: short, Args: args,
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd, &v, args) }}
	v.flags(cmd)
	return cmd, &v
}

// listVerb is an `ls` with the verb flags only: it prints what list
// answers, decoded as T, in T's own words (the JSON with --json).
func listVerb[T fmt.Stringer](short string, list func(*controlapi.Client, context.Context) (*controlapi.Answer, error)) *cobra.Command {
	cmd, _ := plainVerb("ls", short, cobra.NoArgs, func(cmd *cobra.Command, v *verb, _ []string) error {
		return v.show(cmd, decoded(T.String))(list(&v.Client, cmd.Context()))
	})
	return cmd
}

// channelVerbOf is channelVerb that also returns the verb, for a
// completion of its arguments that asks the simulator.
func channelVerbOf(use, short, channelHelp string, args cobra.PositionalArgs, run func(cmd *cobra.Command, v *verb, channel string, args []string) error) (*cobra.Command, *verb) {
	var (
		v       verb
		channel string
	)
	cmd := &cobra.Command{Use: use, Short: short, Args: args,
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd, &v, channel, args) }}
	cmd.Flags().StringVar(&channel, "channel", "", channelHelp)
	v.flags(cmd)
	completeChannelFlag(cmd, &v)
	return cmd, &v
}
