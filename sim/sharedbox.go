package sim

import "github.com/rewardsim/rewardsim/sim/internal/clock"

// liveSession is, on a shared box (Options.SharedBox), the check SDK
// issuance makes in place of a credential: the channel's credentialed
// GenerateSessionInfoV2 issued the user a session that has not lapsed.
// Off a shared box it is nil: the contract's SDK call needs none.
func (s *Sim) liveSession() func(channel, virtualID string) (bool, error) {
	if !s.opts.SharedBox {
		return nil
	}
	return func(channel, virtualID string) (bool, error) {
		list, err := s.store.UserSessions(channel, virtualID)
		if err != nil {
			return false, err
		}
		now := clock.NowFor(s.clock, channel)
		for _, sess := range list {
			if sess.ExpiresAt.IsZero() || now.Before(sess.ExpiresAt) {
				return true, nil
			}
		}
		return false, nil
	}
}
