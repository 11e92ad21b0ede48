package controlplane

import (
	"strings"

	"github.com/rewardsim/rewardsim/sim/internal/story"
)

// copyRuntimeFaults arms, for channel name made like src, a copy of each
// run-time rule bound to src: ID "<id>~<name>", bound to name, with
// counters of its own. A channel made like a sweep run's channel (a test
// class's, through REWARDSIM_LIKE) so meets the run's fault, as it meets
// the scenario's. It returns the copies' IDs.
//
// What src has used up is not configuration: a rule that will fire no
// more on src (a spent one-shot, an nth rule past its call) is not
// copied, for a fresh copy would fire it again (issue 50). A story's
// rule is not copied either: a story is applied to one channel, and its
// book would not know the copy (apply it to the copy).
func (p *Plane) copyRuntimeFaults(src, name string) ([]string, error) {
	var ids []string
	for _, st := range p.faults.List() {
		if st.Channel != src || st.Done() || strings.HasPrefix(st.ID, story.RulePrefix) {
			continue
		}
		r := st.Rule
		r.ID, r.Channel = st.ID+"~"+name, name
		if _, err := p.AddFault(r); err != nil {
			return ids, err
		}
		ids = append(ids, r.ID)
	}
	return ids, nil
}
