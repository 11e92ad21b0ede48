package controlplane

// copyRuntimeFaults arms, for channel name made like src, a copy of each
// run-time rule bound to src: ID "<id>~<name>", bound to name, with
// counters of its own. A channel made like a sweep run's channel (a test
// class's, through REWARDSIM_LIKE) so meets the run's fault, as it meets
// the scenario's. It returns the copies' IDs.
func (p *Plane) copyRuntimeFaults(src, name string) ([]string, error) {
	var ids []string
	for _, st := range p.faults.List() {
		if st.Channel != src {
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
