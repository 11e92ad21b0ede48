package cards

import "github.com/rewardsim/rewardsim/sim/internal/state"

// SourceSDK is the source of cards issued by the SDK client issuance
// emulation (SDK-1). It is its own idempotency namespace: a duplicate
// extTransactionId sent through the SDK gets the SDK's original cards,
// never GetReward's.
const SourceSDK = "SDK"

// Summary is a channel's cards per user and its tracking GETs, as the
// store counts them (named here so the control API need not import state).
type Summary = state.CardSummary

// Summary counts a channel's cards per user and its tracking GETs, for
// the control dashboard.
func (s *Service) Summary(channel string, maxUsers int) (sum Summary, err error) {
	err = s.Store.ViewCards(channel, func(tx *state.CardTx) error {
		sum, err = tx.Summary(maxUsers)
		return err
	})
	return sum, err
}
