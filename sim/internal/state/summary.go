package state

import "github.com/rewardsim/rewardsim/sim/internal/model"

// UserCards counts one user's cards by state (the dashboard's cards per user).
type UserCards struct {
	VirtualID   string
	Unscratched int
	Revealed    int
}

// CardSummary is a read-only overview of one channel's cards.
type CardSummary struct {
	Users []UserCards // in key order, at most the limit asked for
	// MoreUsers is true when users beyond the limit exist.
	MoreUsers bool
	Cards     int
	// Tracks counts tracking GETs by kind (impression, click).
	Tracks map[string]int
}

// Summary counts a channel's cards per user (up to maxUsers users) and its
// tracking GETs by kind, in one read transaction. It walks the channel's
// user index and tracking log, so it costs what the channel holds: a
// dashboard read, not a request path.
func (t *CardTx) Summary(maxUsers int) (CardSummary, error) {
	out := CardSummary{Users: []UserCards{}, Tracks: map[string]int{}}
	if u := t.sub(subUser); u != nil {
		cur := u.Cursor()
		for k, _ := cur.First(); k != nil; k, _ = cur.Next() {
			user, st, ok := indexedCard(k)
			if !ok {
				continue
			}
			out.Cards++
			last := len(out.Users) - 1
			if last < 0 || out.Users[last].VirtualID != string(user) {
				if len(out.Users) == maxUsers {
					out.MoreUsers = true
					continue
				}
				out.Users = append(out.Users, UserCards{VirtualID: string(user)})
				last++
			}
			if st == stateRevealed {
				out.Users[last].Revealed++
			} else {
				out.Users[last].Unscratched++
			}
		}
	}
	err := t.EachTrack(func(ev model.TrackEvent) error {
		out.Tracks[ev.Kind]++
		return nil
	})
	return out, err
}

// Total is the user's card count.
func (u UserCards) Total() int { return u.Unscratched + u.Revealed }
