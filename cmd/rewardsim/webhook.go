package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func newWebhookCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Schedule coupon-status pushes through a running simulator's control API",
	}
	cmd.AddCommand(newWebhookSendCmd())
	return cmd
}

// newWebhookSendCmd is `rewardsim webhook send`: the same as
// POST /__sim/webhooks, from the command line.
func newWebhookSendCmd() *cobra.Command {
	var f struct {
		control, token, channel, offer, reason, message, expired, reference, eventType, at, deadline string
		retry, retryInterval                                                                         string
		repeat, retryMax                                                                             int
	}
	cmd := &cobra.Command{
		Use:   "send",
		Short: "Schedule a COUPON_INVALIDATED push (now, or --at a simulated time) to a channel's registered webhook URL",
		Example: "  rewardsim webhook send --channel DEMOBANK --offer OFFER-1 --reason OUT_OF_STOCK\n" +
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
			return postControl(cmd, f.control, f.token, "/__sim/webhooks", req)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.control, "control", envOr("REWARDSIM_CONTROL_URL", "http://127.0.0.1:8090"), "base URL of the control API [env REWARDSIM_CONTROL_URL]")
	fl.StringVar(&f.token, "control-token", os.Getenv("REWARDSIM_CONTROL_TOKEN"), "the control token, if the simulator has one [env REWARDSIM_CONTROL_TOKEN]")
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
	for _, req := range []string{"channel", "offer", "reason"} {
		_ = cmd.MarkFlagRequired(req)
	}
	return cmd
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// postControl POSTs a JSON body to the control API and prints the answer;
// a 4xx or 5xx is an error carrying the simulator's message.
func postControl(cmd *cobra.Command, base, token, path string, body any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(cmd.Context(), http.MethodPost, strings.TrimRight(base, "/")+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("X-Rewardsim-Control-Token", token)
	}
	res, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		return fmt.Errorf("control API: %w", err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode >= 400 {
		var e struct{ Error string }
		if json.Unmarshal(out, &e) == nil && e.Error != "" {
			return fmt.Errorf("control API answered HTTP %d: %s", res.StatusCode, e.Error)
		}
		return fmt.Errorf("control API answered HTTP %d: %s", res.StatusCode, out)
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, out, "", "  ") == nil {
		out = append(pretty.Bytes(), '\n')
	}
	_, err = cmd.OutOrStdout().Write(out)
	return err
}
