package dashboard

import (
	"fmt"
	"strings"
)

// limitLine is channel ch's capacity limit in force in one line, with its
// counts ("" when none holds it): the run-time one, else its scenario's.
func (s Sources) limitLine(ch string) string {
	cfg, source := s.Scenarios.ActiveFor(ch).LimitOf(ch), "scenario"
	if over, ok := s.Plane.Limits().OverrideOf(ch); ok {
		cfg, source = over, "run-time"
	}
	if cfg.Zero() {
		return ""
	}
	var parts []string
	if cfg.InFlight > 0 {
		parts = append(parts, fmt.Sprintf("%d in flight", cfg.InFlight))
	}
	if cfg.Rate > 0 {
		parts = append(parts, fmt.Sprintf("%g/s (burst %d)", cfg.Rate, cfg.DefaultBurst()))
	}
	wait := "refused at once"
	if cfg.Wait > 0 {
		wait = "waits up to " + cfg.Wait.D().String()
	}
	st := s.Plane.Limits().Stats(ch)
	return fmt.Sprintf("%s, %s (%s); now %d in flight, %d waiting; admitted %d, waited %d, refused %d",
		strings.Join(parts, ", "), wait, source, st.InFlight, st.Waiting, st.Admitted, st.Waited, st.Refused)
}
