package controlplane

import (
	"time"
)

// kindStoryClock keeps how the stories applied to a channel moved its
// clock, so `story clear` puts it back after a restart too.
const kindStoryClock = "storyclock"

// StoryClock is how the stories applied to Channel moved its clock: Own
// says whether the channel had a clock of its own before the first of
// them, By how far they moved it in all.
type StoryClock struct {
	Channel string        `json:"channel"`
	Stories []string      `json:"stories"`
	Own     bool          `json:"own"`
	By      time.Duration `json:"by"`
}

// NoteStoryClock adds story's move of channel's clock by d to what is
// kept (own: whether the channel had a clock of its own before this
// move; only the first move's counts).
func (p *Plane) NoteStoryClock(channel, story string, own bool, d time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	sc := StoryClock{Channel: channel, Own: own}
	for _, x := range p.StoryClocks() {
		if x.Channel == channel {
			sc = x
		}
	}
	sc.Stories, sc.By = append(sc.Stories, story), sc.By+d
	return p.store.WriteConfig(put(kindStoryClock, channel, sc))
}

// StoryClocks is every channel's kept story clock move.
func (p *Plane) StoryClocks() []StoryClock {
	var out []StoryClock
	restore(p, kindStoryClock, func(sc StoryClock) error {
		out = append(out, sc)
		return nil
	})
	return out
}

// ForgetStoryClock drops what is kept of channel's story clock move
// (its stories were cleared).
func (p *Plane) ForgetStoryClock(channel string) error {
	return p.store.WriteConfig(del(kindStoryClock, channel))
}
