package control

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/story"
	"github.com/rewardsim/rewardsim/sim/internal/webhook"
)

// ListStories is GET /__sim/stories: every named failure story, what it
// does, and which channel has which applied.
func (a *API) ListStories(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"stories": story.All(), "applied": a.o.Stories.All()})
}

// storyChannel is the channel a story call names (?channel=X); with
// none, the one channel in force, if there is only one.
func (a *API) storyChannel(c echo.Context) (string, error) {
	if err := strictQuery(c, []string{"channel"}); err != nil {
		return "", fail(http.StatusBadRequest, "%s", err.Error())
	}
	ch := c.QueryParam("channel")
	if ch == "" {
		all := a.channels()
		if len(all) != 1 {
			names := make([]string, 0, len(all))
			for _, x := range all {
				names = append(names, x.Name)
			}
			return "", fail(http.StatusBadRequest, "channel: give the channel (?channel=X), one of %s", strings.Join(names, ", "))
		}
		return all[0].Name, nil
	}
	if _, _, ok := a.scenarios.ByChannelName(ch); !ok {
		return "", fail(http.StatusNotFound, "no channel named %q", ch)
	}
	return ch, nil
}

// ApplyStory is POST /__sim/stories/{name}/apply?channel=X: the story's
// fault rules armed for X, its clock move made on X's own clock, its
// pushes scheduled; all or nothing.
func (a *API) ApplyStory(c echo.Context) error {
	s, ok := story.ByName(c.Param("name"))
	if !ok {
		return fail(http.StatusNotFound, "no story %q; the stories are %s", c.Param("name"), strings.Join(story.Names(), ", "))
	}
	ch, err := a.storyChannel(c)
	if err != nil {
		return err
	}
	if a.o.Stories.Has(ch, s.Name) {
		return fail(http.StatusConflict, "story %s is already applied to channel %s (clear it first: POST /__sim/stories/clear?channel=%s)", s.Name, ch, ch)
	}
	mark := a.o.Webhooks.Mark()
	ids, err := a.armStory(s, ch)
	if err != nil {
		return err
	}
	var moved *story.ClockBefore
	if d := s.Advance.D(); d > 0 {
		_, own, _ := a.o.Plane.ChannelClockView(ch)
		if err := a.o.Plane.AdvanceChannelClock(ch, d); err != nil {
			a.disarm(ids)
			return refused(err)
		}
		moved = &story.ClockBefore{Own: own, By: d}
		// Kept, so story clear puts the clock back after a restart too.
		if err := a.o.Plane.NoteStoryClock(ch, s.Name, own, d); err != nil {
			a.disarm(ids)
			_ = a.restoreClock(ch, moved) // best effort: the move was this call's
			return refused(err)
		}
	}
	var pushes []webhook.Push
	if s.Storm != nil {
		if pushes, err = a.storm(ch, *s.Storm); err != nil {
			a.disarm(ids)
			_ = a.restoreClock(ch, moved) // best effort: the move was this call's
			return err
		}
	}
	a.o.Stories.Add(ch, s.Name, moved)
	if _, err := a.fire(c.Request().Context(), mark, false); err != nil {
		return err
	}
	body, err := a.clockBody(ch, nil, nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"story": s.Name, "channel": ch, "description": s.Description,
		"faults": ids, "pushes": len(pushes), "clock": body, "applied": a.o.Stories.All()[ch]})
}

// armStory arms s's fault rules for ch; on a refusal, none stays armed.
func (a *API) armStory(s story.Story, ch string) ([]string, error) {
	ids := []string{}
	for i, r := range s.Faults {
		r.ID, r.Channel = story.RuleID(s.Name, ch, i+1), ch
		if _, err := a.o.Plane.AddFault(r); err != nil {
			a.disarm(ids)
			return nil, refused(err)
		}
		ids = append(ids, r.ID)
	}
	return ids, nil
}

func (a *API) disarm(ids []string) {
	for _, id := range ids {
		_ = a.o.Plane.RemoveFault(id) // best effort: the rule was armed by this call
	}
}

// storm schedules the story's pushes for the channel's first offer.
func (a *API) storm(ch string, st story.Storm) ([]webhook.Push, error) {
	offers := a.scenarios.ActiveFor(ch).OfferList(ch)
	if len(offers) == 0 {
		return nil, fail(http.StatusConflict, "channel %s has no offer for a push to name", ch)
	}
	pushes, err := a.o.Webhooks.Schedule(webhook.Request{Channel: ch, OfferID: offers[0].ID, Reason: st.Reason, Repeat: st.Repeat})
	if err != nil {
		return nil, refused(err)
	}
	return pushes, nil
}

// restoreClock puts back a channel clock stories moved: dropped when the
// channel had none of its own, else moved back.
func (a *API) restoreClock(ch string, moved *story.ClockBefore) error {
	_, own, err := a.o.Plane.ChannelClockView(ch)
	switch {
	case moved == nil || err != nil:
		return err
	case !moved.Own && !own:
		return nil // handed back to the global clock meanwhile (clock real)
	case !moved.Own:
		return a.o.Plane.DropChannelClock(ch)
	default:
		return a.o.Plane.AdvanceChannelClock(ch, -moved.By)
	}
}

// ClearStories is POST /__sim/stories/clear?channel=X: every story
// applied to X is undone (its rules disarmed, X's clock put back), so X
// is as it was; pushes already sent stay sent.
func (a *API) ClearStories(c echo.Context) error {
	ch, err := a.storyChannel(c)
	if err != nil {
		return err
	}
	names, moved := a.o.Stories.Clear(ch)
	removed := []string{}
	for _, st := range a.o.Plane.Faults().List() {
		if name, rch, ok := story.ParseRuleID(st.ID); ok && rch == ch {
			if err := a.o.Plane.RemoveFault(st.ID); err != nil {
				return refused(err)
			}
			removed = append(removed, st.ID)
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	if err := a.restoreClock(ch, moved); err != nil {
		return refused(err)
	}
	if moved != nil {
		if err := a.o.Plane.ForgetStoryClock(ch); err != nil {
			return refused(err)
		}
	}
	body, err := a.clockBody(ch, nil, nil)
	if err != nil {
		return err
	}
	if names == nil {
		names = []string{}
	}
	return c.JSON(http.StatusOK, map[string]any{"channel": ch, "cleared": names, "faults": removed, "clock": body})
}
