package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

// faultLine is a rule in one line: what fires where, and how often.
func faultLine(r controlapi.FaultStatus) string {
	a := r.Action
	what := a.Kind
	if a.ErrorCode != "" {
		what += " " + a.ErrorCode
	}
	if a.Delay != 0 {
		what += " " + a.Delay.D().String()
	}
	if a.Status != 0 {
		what += fmt.Sprintf(" HTTP %d", a.Status)
	}
	if a.Message != "" {
		what += fmt.Sprintf(" %q", a.Message)
	}
	where := "every channel"
	if r.Channel != "" {
		where = "channel " + r.Channel
	}
	if r.VirtualID != "" {
		where += ", user " + r.VirtualID
	}
	often := "every call"
	if r.Times > 0 {
		often = fmt.Sprintf("%d time(s)", r.Times)
	}
	if r.Nth > 0 {
		often += fmt.Sprintf(", call %d only", r.Nth)
	}
	if r.Probability > 0 {
		often += fmt.Sprintf(", with probability %g (seed %d)", r.Probability, r.Seed)
	}
	line := fmt.Sprintf("%s: %s on %s, %s, %s; fired %d of %d seen", r.ID, what, r.Endpoint, where, often, r.Fired, r.Seen)
	if r.Spent {
		line += " (spent)"
	}
	return line
}

// What the dashboard's panel arms a kind with when the command is not
// told (dashboard.html): the command arms the same rule as the click.
var (
	panelDelays = map[string]controlapi.Duration{"delay": controlapi.Duration(3 * time.Second), "commit-then-delay": controlapi.Duration(30 * time.Second)}
	panelStatus = http.StatusServiceUnavailable
)

func newFaultCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "fault", Short: "Arm, list and disarm fault rules of a running simulator (POST/GET/DELETE /__sim/faults)"}
	cmd.AddCommand(newFaultAddCmd(), newFaultLsCmd(), newFaultRmCmd())
	return cmd
}

// newFaultAddCmd arms a rule: each flag fills a field of the control
// API's own rule type (controlapi.FaultRule), which the command posts as
// it is; TestFaultAdd_flagsCoverTheRule keeps a flag for every field.
func newFaultAddCmd() *cobra.Command {
	var (
		v    verb
		rule controlapi.FaultRule
	)
	cmd := &cobra.Command{
		Use:   "add --endpoint E --kind K [--code CODE] [--channel C] [--virtual-id V] [--times N] [--delay D] [--id ID]",
		Short: "Arm a fault rule: the next matching calls fail with it (POST /__sim/faults)",
		Example: "  rewardsim fault add --endpoint fetchCouponCode --kind coupon-error --code COUPON_EXHAUSTED --times 1\n" +
			"  rewardsim fault add --endpoint GetAuthToken --kind signature-mismatch --channel CI-42",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a := &rule.Action
			if a.Kind == "coupon-error" && a.ErrorCode == "" {
				return fmt.Errorf("--kind coupon-error needs --code (COUPON_EXHAUSTED, NON_ELIGIBLE, ...; complete with TAB)")
			}
			if d, ok := panelDelays[a.Kind]; ok && a.Delay == 0 {
				a.Delay = d
			}
			if a.Kind == "http-status" && a.Status == 0 {
				a.Status = panelStatus
			}
			return v.show(cmd, decoded(func(r controlapi.FaultStatus) string { return "armed " + faultLine(r) }))(v.ArmFault(cmd.Context(), rule))
		},
	}
	f := cmd.Flags()
	f.StringVar(&rule.Endpoint, "endpoint", "", "operation name (fetchCouponCode, GetAuthToken, ...) or * for every endpoint that can show the kind")
	f.StringVar(&rule.Action.Kind, "kind", "", "fault kind: what the endpoint can show (complete with TAB)")
	f.StringVar(&rule.Action.ErrorCode, "code", "", "coupon-error: the errorCode (COUPON_EXHAUSTED, NON_ELIGIBLE, ...)")
	f.IntVar(&rule.Action.Status, "status", 0, "http-status: the HTTP status (default 503, as the dashboard arms it); coupon-error: its HTTP status")
	f.Var(durationFlag{&rule.Action.Delay}, "delay", "delay and commit-then-delay: how long the answer waits (default 3s and 30s, as the dashboard arms them)")
	f.StringVar(&rule.Action.Message, "message", "", "the injected answer's text where its shape has one (default: the real outcome's)")
	f.StringVar(&rule.Channel, "channel", "", "only this channel's calls (default: every channel)")
	f.StringVar(&rule.VirtualID, "virtual-id", "", "only this user's calls")
	f.IntVar(&rule.Times, "times", 0, "fire at most N times (default: every matching call)")
	f.IntVar(&rule.Nth, "nth", 0, "fire on the nth matching call only")
	f.Float64Var(&rule.Probability, "probability", 0, "fire on each matching call with this probability, 0 to 1 (default: every one)")
	f.Int64Var(&rule.Seed, "seed", 0, "with --probability: the seed of the rule's own random source (reproducible)")
	f.StringVar(&rule.ID, "id", "", "the rule's id (default: one is made); an armed rule with this id is replaced")
	_ = cmd.MarkFlagRequired("endpoint")
	_ = cmd.MarkFlagRequired("kind")
	v.flags(cmd)
	completeFaultFlags(cmd, &v)
	return cmd
}

// durationFlag fills a control body's duration (controlapi.Duration) from
// a flag, named as pflag names a time.Duration flag.
type durationFlag struct{ d *controlapi.Duration }

func (f durationFlag) String() string {
	if f.d == nil || *f.d == 0 {
		return ""
	}
	return f.d.D().String()
}
func (f durationFlag) Set(s string) error { return f.d.UnmarshalText([]byte(s)) }
func (durationFlag) Type() string         { return "duration" }

// listFaults reads the armed rules, those of channel only when it is
// set.
func listFaults(cmd *cobra.Command, v *verb, channel string) ([]controlapi.FaultStatus, error) {
	return listFaultsOf(cmd, v, channel, false)
}

// listFaultsOf is listFaults; active leaves out the spent rules.
func listFaultsOf(cmd *cobra.Command, v *verb, channel string, active bool) ([]controlapi.FaultStatus, error) {
	out, err := v.body(cmd)(v.Faults(cmd.Context(), active))
	if err != nil {
		return nil, err
	}
	var l controlapi.FaultList
	if err := decodeInto(out, &l); err != nil {
		return nil, err
	}
	rules := []controlapi.FaultStatus{}
	for _, r := range l.Rules {
		if channel == "" || r.Channel == channel {
			rules = append(rules, r)
		}
	}
	return rules, nil
}

func newFaultLsCmd() *cobra.Command {
	var active bool
	cmd := channelVerb("ls [--channel C] [--active]", "List the armed fault rules with their counters (GET /__sim/faults)",
		"only the rules of this channel", cobra.NoArgs, func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			rules, err := listFaultsOf(cmd, v, channel, active)
			if err != nil {
				return err
			}
			if v.json {
				return v.answer(cmd, mustJSON(controlapi.FaultList{Rules: rules}), nil)
			}
			if len(rules) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no fault rule armed")
			}
			for _, r := range rules {
				fmt.Fprintln(cmd.OutOrStdout(), faultLine(r))
			}
			return nil
		})
	cmd.Flags().BoolVar(&active, "active", false, "only the rules that can still fire (no spent one-shot rule)")
	return cmd
}

func newFaultRmCmd() *cobra.Command {
	var (
		v       verb
		all     bool
		channel string
	)
	cmd := &cobra.Command{
		Use:   "rm ID | --all [--channel C]",
		Short: "Disarm one fault rule, or every one (of a channel) (DELETE /__sim/faults)",
		Args: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) == 1) || len(args) > 1 {
				return fmt.Errorf("give one rule ID, or --all")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !all {
				return v.show(cmd, disarmed(args[0]))(v.DisarmFault(cmd.Context(), args[0]))
			}
			if channel == "" {
				return v.show(cmd, fixed("disarmed every fault rule"))(v.DisarmFaults(cmd.Context()))
			}
			rules, err := listFaults(cmd, &v, channel)
			if err != nil {
				return err
			}
			var ids []string
			for _, r := range rules {
				if _, err := v.body(cmd)(v.DisarmFault(cmd.Context(), r.ID)); err != nil {
					return err
				}
				ids = append(ids, r.ID)
			}
			return v.answer(cmd, mustJSON(map[string]any{"removed": ids}),
				fixed(fmt.Sprintf("disarmed %d fault rule(s) of channel %s %s", len(ids), channel, strings.Join(ids, " "))))
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "disarm every rule (with --channel: every rule of that channel)")
	cmd.Flags().StringVar(&channel, "channel", "", "with --all: only this channel's rules")
	v.flags(cmd)
	completeChannelFlag(cmd, &v)
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		rules, _ := listFaults(cmd, &v, channel)
		var ids []string
		for _, r := range rules {
			ids = append(ids, r.ID+"\t"+r.Action.Kind+" on "+r.Endpoint)
		}
		return starting(ids, prefix), cobra.ShellCompDirectiveNoFileComp
	}
	return cmd
}

// disarmed is the line of a rule removed: a story's rule says what that
// did to its story (the control API's effect).
func disarmed(id string) func([]byte) (string, error) {
	return func(raw []byte) (string, error) {
		var a struct{ Effect string }
		if len(strings.TrimSpace(string(raw))) == 0 || json.Unmarshal(raw, &a) != nil || a.Effect == "" {
			return "disarmed " + id, nil
		}
		return "disarmed " + id + ": " + a.Effect, nil
	}
}
