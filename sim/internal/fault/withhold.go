package fault

// Commits reports whether the action asks the endpoint to commit the
// call's effect first and then withhold the answer (CPN-4): wait out
// Delay, or drop the connection. Endpoints that have an effect to commit
// (fetchCouponCode) honour it; others ignore these kinds.
func (a Action) Commits() bool { return a.Kind == CommitThenDelay || a.Kind == CommitThenDrop }
