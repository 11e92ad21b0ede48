package main

import (
	"net/url"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

func newWebhookCmd() *cobra.Command {
	return group("webhook", "Schedule coupon-status pushes through a running simulator's control API", "",
		newWebhookSendCmd())
}

// newWebhookSendCmd is `rewardsim webhook send`: the same as
// POST /__sim/webhooks, from the command line.
func newWebhookSendCmd() *cobra.Command {
	var ctl controlClient
	var f struct {
		channel, offer, reason, message, expired, reference, eventType, at, deadline string
		retry, retryInterval                                                         string
		repeat, retryMax                                                             int
		wait                                                                         time.Duration
	}
	cmd := &cobra.Command{
		Use:   "send",
		Short: "Schedule a COUPON_INVALIDATED push (now, or --at a simulated time) to a channel's registered webhook URL",
		Long: "Schedule a push through POST /__sim/webhooks and print the answer. The simulator answers at once: a push due now\n" +
			"is handed to its delivery workers and shows as due or delivering under becameDue. --wait waits up to that long\n" +
			"(at most 30s) for its attempt, so the answer shows it (delivered, failed, or pending with a retry due later).",
		Example: "  rewardsim webhook send --channel DEMOBANK --offer OFFER-1 --reason OUT_OF_STOCK --wait 5s\n" +
			"  rewardsim webhook send --channel CI-42 --offer OFFER-1 --reason FRAUD_DETECTED --repeat 2 --at 2026-01-15T11:00:00+05:30",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req := map[string]any{"channel": f.channel, "offerId": f.offer, "reason": f.reason}
			for k, v := range map[string]string{"reasonMessage": f.message, "expiredDate": f.expired, "referenceId": f.reference,
				"eventType": f.eventType, "at": f.at, "deadline": f.deadline} {
				if v != "" {
					req[k] = v
				}
			}
			if f.repeat > 0 {
				req["repeat"] = f.repeat
			}
			if f.retry != "" {
				r := map[string]any{"kind": f.retry}
				if f.retryInterval != "" {
					r["interval"] = f.retryInterval
				}
				if f.retryMax > 0 {
					r["maxAttempts"] = f.retryMax
				}
				req["retry"] = r
			}
			var q url.Values
			if f.wait != 0 {
				q = url.Values{"wait": {f.wait.String()}}
			}
			return printJSON(cmd)(controlapi.Body(ctl.PushWebhook(cmd.Context(), req, q)))
		},
	}
	fl := cmd.Flags()
	addControlFlags(cmd, &ctl)
	fl.StringVar(&f.channel, "channel", "", "channel name (its registered webhookUrl receives the push)")
	fl.StringVar(&f.offer, "offer", "", "offerId whose coupons are invalidated")
	fl.StringVar(&f.reason, "reason", "", "BRAND_CALLED_OUT, OUT_OF_STOCK, TECHNICAL_GLITCH, FRAUD_DETECTED or OFFER_TERMINATED")
	fl.StringVar(&f.message, "message", "", "reasonMessage (default: a text naming the reason)")
	fl.StringVar(&f.expired, "expired", "", "expiredDate, ISO 8601 with offset (default: the due time)")
	fl.StringVar(&f.reference, "reference", "", "referenceId (default: a fresh UUID)")
	fl.StringVar(&f.eventType, "event-type", "", "eventType (default COUPON_INVALIDATED; another value tests that the receiver ignores it)")
	fl.StringVar(&f.at, "at", "", "simulated due time, RFC 3339 (default: now)")
	fl.StringVar(&f.deadline, "deadline", "", "how long the receiver has to answer (default: the simulator's --webhook-deadline)")
	fl.IntVar(&f.repeat, "repeat", 0, "send the same body, same referenceId, this many times")
	fl.StringVar(&f.retry, "retry", "", "retry policy: none, fixed or exponential (default exponential)")
	fl.StringVar(&f.retryInterval, "retry-interval", "", "first (fixed: every) retry wait, simulated time (default 30s)")
	fl.IntVar(&f.retryMax, "retry-max", 0, "attempts in all, the first included (default 4)")
	fl.DurationVar(&f.wait, "wait", 0, "wait up to this long (at most 30s) for the attempt of a push due now (default: answer at once)")
	for _, req := range []string{"channel", "offer", "reason"} {
		_ = cmd.MarkFlagRequired(req)
	}
	return cmd
}
