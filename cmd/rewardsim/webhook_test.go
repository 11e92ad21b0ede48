package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: WH-1
// `rewardsim webhook send` reports the control API's refusals clearly and
// sends the control token.
func TestWebhookSend_WH1_errorsAndToken(t *testing.T) {
	s := simtest.New(t, simtest.WithControl(sim.ControlOptions{Token: "tk"}))
	run := func(args ...string) (string, error) {
		root := newRoot()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetArgs(append([]string{"webhook", "send", "--control", s.ControlURL}, args...))
		err := root.ExecuteContext(context.Background())
		return out.String(), err
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--channel", "DEMOBANK", "--offer", "O1", "--reason", "OUT_OF_STOCK"}, "HTTP 401"},
		{[]string{"--control-token", "tk", "--channel", "DEMOBANK", "--offer", "O1", "--reason", "BORED"}, "reason"},
		{[]string{"--control-token", "tk", "--channel", "NOPE", "--offer", "O1", "--reason", "OUT_OF_STOCK"}, `no channel named "NOPE"`},
		{[]string{"--control-token", "tk", "--channel", "DEMOBANK", "--offer", "O1", "--reason", "OUT_OF_STOCK"}, "no registered webhook URL"},
		{[]string{"--control-token", "tk", "--offer", "O1", "--reason", "OUT_OF_STOCK"}, `"channel" not set`},
		{[]string{"--control-token", "tk", "--channel", "DEMOBANK", "--offer", "O1", "--reason", "OUT_OF_STOCK", "--wait", "31s"}, `wait "31s" is not a duration from 0s to 30s`},
	} {
		_, err := run(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one mentioning %q", tc.args, err, tc.want)
		}
	}
}
