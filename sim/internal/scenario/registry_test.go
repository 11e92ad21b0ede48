package scenario_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

func named(name string, channels ...string) *scenario.Scenario {
	s := &scenario.Scenario{}
	s.Name = name
	for _, c := range channels {
		s.Channels = append(s.Channels, model.Channel{Name: c, ChannelID: c})
	}
	return s
}

// A change that fails (a refused edit or a failed save) publishes
// nothing; one that succeeds publishes all its edits at once.
func TestRegistry_changeIsAllOrNothing(t *testing.T) {
	r := scenario.NewRegistry(named("a", "A"))
	saveFailed := errors.New("disk full")
	err := r.Change(func(d *scenario.Draft) error {
		d.Load(named("b", "B"))
		if err := d.Activate("b", ""); err != nil {
			return err
		}
		return saveFailed
	})
	if !errors.Is(err, saveFailed) {
		t.Fatalf("err = %v, want the save's", err)
	}
	if _, ok := r.ByName("b"); ok || r.Active().Name != "a" {
		t.Fatalf("a failed change was published: active %s, b loaded %v", r.Active().Name, ok)
	}
	if err := r.Change(func(d *scenario.Draft) error {
		d.Load(named("b", "B"))
		return d.Activate("b", "")
	}); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.ByName("b"); !ok || r.Active().Name != "b" {
		t.Fatalf("change not published: active %s, b loaded %v", r.Active().Name, ok)
	}
	if err := r.Change(func(d *scenario.Draft) error {
		return d.Register(scenario.Registered{Channel: model.Channel{Name: "A", ChannelID: "X"}})
	}); err == nil {
		t.Fatal("a channel clashing with a loaded scenario's was registered")
	}
}

// Readers never see half a change: a change that activates a scenario
// and registers a channel it then governs is seen whole or not at all.
func TestRegistry_readersSeeWholeChanges(t *testing.T) {
	r := scenario.NewRegistry(named("a", "A"))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			_, sc, ok := r.ByChannelName("R")
			if ok && sc.Name != "b" {
				t.Errorf("channel R seen governed by %s before its scenario b", sc.Name)
				return
			}
		}
	})
	for i := range 200 {
		err := r.Change(func(d *scenario.Draft) error {
			d.Load(named("b", "B"))
			if i%2 == 0 {
				d.Unregister("R")
				return d.Activate("a", "")
			}
			if err := d.Activate("b", ""); err != nil {
				return err
			}
			return d.Register(scenario.Registered{Channel: model.Channel{Name: "R", ChannelID: "R"}})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}
