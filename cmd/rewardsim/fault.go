package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// faultRule is a fault rule as the control API lists it (the fields the
// CLI shows).
type faultRule struct {
	ID        string `json:"id"`
	Endpoint  string `json:"endpoint"`
	Channel   string `json:"channel"`
	VirtualID string `json:"virtualId"`
	Times     int    `json:"times"`
	Action    struct {
		Kind      string `json:"kind"`
		Status    int    `json:"status"`
		Delay     string `json:"delay"`
		ErrorCode string `json:"errorCode"`
	} `json:"action"`
	Seen  int  `json:"seen"`
	Fired int  `json:"fired"`
	Spent bool `json:"spent"`
}

// String is the rule in one line: what fires where, and how often.
func (r faultRule) String() string {
	what := r.Action.Kind
	for _, x := range []string{r.Action.ErrorCode, r.Action.Delay} {
		if x != "" {
			what += " " + x
		}
	}
	if r.Action.Status != 0 {
		what += fmt.Sprintf(" HTTP %d", r.Action.Status)
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
	line := fmt.Sprintf("%s: %s on %s, %s, %s; fired %d of %d seen", r.ID, what, r.Endpoint, where, often, r.Fired, r.Seen)
	if r.Spent {
		line += " (spent)"
	}
	return line
}

// What the dashboard's panel arms a kind with when the command is not
// told (dashboard.html): the command arms the same rule as the click.
var (
	panelDelays = map[string]time.Duration{"delay": 3 * time.Second, "commit-then-delay": 30 * time.Second}
	panelStatus = http.StatusServiceUnavailable
)

func newFaultCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "fault", Short: "Arm, list and disarm fault rules of a running simulator (POST/GET/DELETE /__sim/faults)"}
	cmd.AddCommand(newFaultAddCmd(), newFaultLsCmd(), newFaultRmCmd())
	return cmd
}

func newFaultAddCmd() *cobra.Command {
	var (
		v                                      verb
		endpoint, kind, code, channel, vid, id string
		times, status, nth                     int
		delay                                  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "add --endpoint E --kind K [--code CODE] [--channel C] [--virtual-id V] [--times N] [--delay D] [--id ID]",
		Short: "Arm a fault rule: the next matching calls fail with it (POST /__sim/faults)",
		Example: "  rewardsim fault add --endpoint fetchCouponCode --kind coupon-error --code COUPON_EXHAUSTED --times 1\n" +
			"  rewardsim fault add --endpoint GetAuthToken --kind signature-mismatch --channel CI-42",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if kind == "coupon-error" && code == "" {
				return fmt.Errorf("--kind coupon-error needs --code (COUPON_EXHAUSTED, NON_ELIGIBLE, ...; complete with TAB)")
			}
			if d, ok := panelDelays[kind]; ok && delay == 0 {
				delay = d
			}
			if kind == "http-status" && status == 0 {
				status = panelStatus
			}
			action := map[string]any{"kind": kind}
			if code != "" {
				action["errorCode"] = code
			}
			if status != 0 {
				action["status"] = status
			}
			if delay != 0 {
				action["delay"] = delay.String()
			}
			rule := map[string]any{"endpoint": endpoint, "action": action}
			for k, s := range map[string]string{"id": id, "channel": channel, "virtualId": vid} {
				if s != "" {
					rule[k] = s
				}
			}
			for k, n := range map[string]int{"times": times, "nth": nth} {
				if n > 0 {
					rule[k] = n
				}
			}
			return v.show(cmd, decoded(func(r faultRule) string { return "armed " + r.String() }))(v.ArmFault(cmd.Context(), rule))
		},
	}
	f := cmd.Flags()
	f.StringVar(&endpoint, "endpoint", "", "operation name (fetchCouponCode, GetAuthToken, ...) or * for every endpoint that can show the kind")
	f.StringVar(&kind, "kind", "", "fault kind: what the endpoint can show (complete with TAB)")
	f.StringVar(&code, "code", "", "coupon-error: the errorCode (COUPON_EXHAUSTED, NON_ELIGIBLE, ...)")
	f.IntVar(&status, "status", 0, "http-status: the HTTP status (default 503, as the dashboard arms it); coupon-error: its HTTP status")
	f.DurationVar(&delay, "delay", 0, "delay and commit-then-delay: how long the answer waits (default 3s and 30s, as the dashboard arms them)")
	f.StringVar(&channel, "channel", "", "only this channel's calls (default: every channel)")
	f.StringVar(&vid, "virtual-id", "", "only this user's calls")
	f.IntVar(&times, "times", 0, "fire at most N times (default: every matching call)")
	f.IntVar(&nth, "nth", 0, "fire on the nth matching call only")
	f.StringVar(&id, "id", "", "the rule's id (default: one is made); an armed rule with this id is replaced")
	_ = cmd.MarkFlagRequired("endpoint")
	_ = cmd.MarkFlagRequired("kind")
	v.flags(cmd)
	completeFaultFlags(cmd, &v)
	return cmd
}

// listFaults reads the armed rules, those of channel only when it is
// set, decoded and as the control API gave each.
func listFaults(cmd *cobra.Command, v *verb, channel string) ([]faultRule, []json.RawMessage, error) {
	return listFaultsOf(cmd, v, channel, false)
}

// listFaultsOf is listFaults; active leaves out the spent rules.
func listFaultsOf(cmd *cobra.Command, v *verb, channel string, active bool) ([]faultRule, []json.RawMessage, error) {
	out, err := v.body(cmd)(v.Faults(cmd.Context(), active))
	if err != nil {
		return nil, nil, err
	}
	var l struct{ Rules []json.RawMessage }
	if err := decodeInto(out, &l); err != nil {
		return nil, nil, err
	}
	rules, raws := []faultRule{}, []json.RawMessage{}
	for _, raw := range l.Rules {
		var r faultRule
		if err := decodeInto(raw, &r); err != nil {
			return nil, nil, err
		}
		if channel == "" || r.Channel == channel {
			rules, raws = append(rules, r), append(raws, raw)
		}
	}
	return rules, raws, nil
}

func newFaultLsCmd() *cobra.Command {
	var active bool
	cmd := channelVerb("ls [--channel C] [--active]", "List the armed fault rules with their counters (GET /__sim/faults)",
		"only the rules of this channel", cobra.NoArgs, func(cmd *cobra.Command, v *verb, channel string, _ []string) error {
			rules, raws, err := listFaultsOf(cmd, v, channel, active)
			if err != nil {
				return err
			}
			if v.json {
				return v.answer(cmd, mustJSON(map[string]any{"rules": raws}), nil)
			}
			if len(rules) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no fault rule armed")
			}
			for _, r := range rules {
				fmt.Fprintln(cmd.OutOrStdout(), r.String())
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
			rules, _, err := listFaults(cmd, &v, channel)
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
		rules, _, _ := listFaults(cmd, &v, channel)
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
