package sim_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// Issue 50, item 12: a story whose rules are removed otherwise than by
// clearing it (`fault rm` of its rule, a clear of every rule, the
// channel's deletion) is no longer applied: GET /__sim/stories does not
// list it, the answers it no longer shapes carry no X-Rewardsim-Story,
// and it can be applied again. A story of no rule (a clock move) ends
// with its channel.
func TestStories_removedRuleEndsTheStory(t *testing.T) {
	for _, tc := range []struct {
		name, story string
		remove      func(t *testing.T, s *simtest.Server)
	}{
		{"fault rm of its rule", "uat-down", func(t *testing.T, s *simtest.Server) {
			got := ctlOK(t, s, http.StatusOK, "DELETE", "/__sim/faults/story:uat-down:CI-S:1", nil)
			if got["rulesLeft"] != float64(0) || !strings.Contains(got["effect"].(string), "no longer applied") {
				t.Fatalf("removing the story's last rule says %v; want rulesLeft 0 and that the story is no longer applied", got)
			}
		}},
		{"every rule cleared", "uat-down", func(t *testing.T, s *simtest.Server) {
			ctlOK(t, s, http.StatusNoContent, "DELETE", "/__sim/faults", nil)
		}},
		{"the channel deleted", "uat-down", func(t *testing.T, s *simtest.Server) {
			ctlOK(t, s, http.StatusNoContent, "DELETE", "/__sim/channels/CI-S", nil)
			ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "CI-S", "like": "DEMOBANK"})
		}},
		{"a clock story's channel deleted", "token-expires-now", func(t *testing.T, s *simtest.Server) {
			ctlOK(t, s, http.StatusNoContent, "DELETE", "/__sim/channels/CI-S", nil)
			ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "CI-S", "like": "DEMOBANK"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := simtest.New(t)
			ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "CI-S", "like": "DEMOBANK"})
			c := *s.Client
			c.Channel, c.ChannelID = "CI-S", "CI-S"
			storyOf := func() string {
				t.Helper()
				res, err := c.CallSigned(bg, c.RewardsURL+"/api/getSecuredReferenceToken", "", map[string]string{"bName": c.Channel})
				if res == nil { // a refusal (uat-down's 503) still comes with its answer
					t.Fatal(err)
				}
				return res.Header.Get("X-Rewardsim-Story")
			}
			applied := func() bool {
				t.Helper()
				_, ok := ctlOK(t, s, http.StatusOK, "GET", "/__sim/stories", nil)["applied"].(map[string]any)["CI-S"]
				return ok
			}
			apply := "/__sim/stories/" + tc.story + "/apply?channel=CI-S"
			ctlOK(t, s, http.StatusCreated, "POST", apply, nil)
			if got := storyOf(); got != tc.story || !applied() {
				t.Fatalf("after apply: X-Rewardsim-Story %q, applied %v; want %s applied", got, applied(), tc.story)
			}
			tc.remove(t, s)
			if got := storyOf(); got != "" || applied() {
				t.Errorf("after the removal: X-Rewardsim-Story %q, applied %v; want no story", got, applied())
			}
			ctlOK(t, s, http.StatusCreated, "POST", apply, nil)
			if got := storyOf(); got != tc.story {
				t.Errorf("applied again: X-Rewardsim-Story %q, want %s", got, tc.story)
			}
		})
	}
}
