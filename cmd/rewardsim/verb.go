package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"
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

// call makes one control call (body nil: none; []byte: sent as YAML;
// anything else: as JSON) and returns the answer's body; a refusal or an
// unreachable simulator is an error with its exit status.
func (v *verb) call(cmd *cobra.Command, method, path string, q url.Values, body any) ([]byte, error) {
	var raw []byte
	ct := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		raw, ct = b, "application/yaml"
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			return nil, err
		}
		ct = "application/json"
	}
	a, err := v.Send(cmd.Context(), method, path, q, ct, raw)
	if err != nil {
		return nil, errUnreachable{err}
	}
	if a.Status >= 300 {
		if v.json && len(a.Body) > 0 {
			v.print(cmd, a.Body)
		}
		var e struct{ Error string }
		reason := strings.TrimSpace(string(a.Body))
		if json.Unmarshal(a.Body, &e) == nil && e.Error != "" {
			reason = e.Error
		}
		return nil, errRefused{a.Status, reason}
	}
	return a.Body, nil
}

// run makes the call and prints its answer: the JSON with --json (an
// answer with no body prints {}), else the line human makes of it.
func (v *verb) run(cmd *cobra.Command, method, path string, q url.Values, body any, human func([]byte) (string, error)) error {
	out, err := v.call(cmd, method, path, q, body)
	if err != nil {
		return err
	}
	return v.answer(cmd, out, human)
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

// channelQuery is ?channel=C, or none.
func channelQuery(channel string) url.Values {
	if channel == "" {
		return nil
	}
	return url.Values{"channel": {channel}}
}

// channelVerb is a control verb with --channel (completed with the
// running simulator's channels) and the verb flags; run gets the verb and
// the channel given ("" for none).
func channelVerb(use, short, channelHelp string, args cobra.PositionalArgs, run func(cmd *cobra.Command, v *verb, channel string, args []string) error) *cobra.Command {
	cmd, _ := channelVerbOf(use, short, channelHelp, args, run)
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
