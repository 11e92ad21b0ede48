package sim_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// Every control route with an id in its path reads the id unescaped: a
// client that escapes it (a browser's encodeURIComponent turns the ":"
// of a story's rule id into %3A) names the same thing (issue 52, item 2).
func TestControl_pathIDsAreUnescaped(t *testing.T) {
	s := simtest.New(t)
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", map[string]any{"name": "CI-42", "like": "DEMOBANK"})
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/faults", map[string]any{"id": "my:rule", "endpoint": "GetAuthToken", "action": map[string]any{"kind": "internal-error"}})
	for _, c := range []struct {
		method, path string
		body         any
		want         int
	}{
		{"POST", "/__sim/stories/stock%2Dout/apply?channel=DEMOBANK", nil, http.StatusCreated},
		{"GET", "/__sim/channels/CI%2D42", nil, http.StatusOK},
		{"PATCH", "/__sim/channels/CI%2D42", map[string]any{"webhookUrl": "http://127.0.0.1:9/hooks"}, http.StatusOK},
		{"GET", "/__sim/scenarios/defaul%74", nil, http.StatusOK},
		{"POST", "/__sim/scenarios/defaul%74/activate", map[string]any{}, http.StatusOK},
		{"GET", "/__sim/state/users/DEMOBANK/VU%2D1", nil, http.StatusOK},
		{"GET", "/__sim/certs/publisher-dev%2Ecrt", nil, http.StatusOK},
		{"DELETE", "/__sim/faults/my%3Arule", nil, http.StatusNoContent},
		{"DELETE", "/__sim/channels/CI%2D42", nil, http.StatusNoContent},
	} {
		if st, out := ctl(t, s, c.method, c.path, c.body); st != c.want {
			t.Errorf("%s %s: HTTP %d %s, want %d", c.method, c.path, st, out, c.want)
		}
	}
}

// The × on a story's chip works: the dashboard labels the chip as the
// story's, and disarming the rule (its id escaped, as the page sends it)
// says what that does to the story (issue 52, item 2).
func TestControl_storyChipRemovalSaysWhatItDoesToTheStory(t *testing.T) {
	s := simtest.New(t)
	applied := ctlOK(t, s, http.StatusCreated, "POST", "/__sim/stories/stock-out/apply", nil)
	ids, _ := applied["faults"].([]any)
	if len(ids) == 0 {
		t.Fatalf("stock-out armed no rule: %v", applied)
	}
	id := ids[0].(string)
	page := string(ctlOKRaw(t, s, "/__sim/dashboard"))
	if !strings.Contains(page, `data-story="stock-out"`) || !strings.Contains(page, `<b class="story-of">story stock-out:</b>`) {
		t.Errorf("the dashboard does not label the chip of %s as story stock-out's", id)
	}
	st, out := ctl(t, s, "DELETE", "/__sim/faults/"+strings.ReplaceAll(id, ":", "%3A"), nil)
	if st != http.StatusOK {
		t.Fatalf("DELETE the escaped %s: HTTP %d %s, want 200", id, st, out)
	}
	if err := controlSchemas().ValidateJSON("control.fault.removed", out); err != nil {
		t.Errorf("answer outside control.fault.removed.json: %v: %s", err, out)
	}
	for _, want := range []string{`"removed":"` + id + `"`, `"story":"stock-out"`, `"channel":"DEMOBANK"`, "the story is no longer applied"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the removal's answer does not say %s: %s", want, out)
		}
	}
	if rules := string(ctlOKRaw(t, s, "/__sim/faults")); strings.Contains(rules, id) {
		t.Errorf("%s is still armed: %s", id, rules)
	}
}
