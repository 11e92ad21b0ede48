package sim

import (
	"sync"

	"github.com/rewardsim/rewardsim/sim/internal/api/bank"
	"github.com/rewardsim/rewardsim/sim/internal/api/control"
	"github.com/rewardsim/rewardsim/sim/internal/api/hotdeals"
	"github.com/rewardsim/rewardsim/sim/internal/api/microsite"
	"github.com/rewardsim/rewardsim/sim/internal/api/rewards"
	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
	"github.com/rewardsim/rewardsim/sim/internal/openapi"
	"github.com/rewardsim/rewardsim/sim/internal/signedcall"
	"github.com/rewardsim/rewardsim/sim/internal/story"
	"github.com/rewardsim/rewardsim/sim/internal/token"
	"github.com/rewardsim/rewardsim/sim/sweep"
)

// services is what the routes call: each host's dependencies and the
// control API, built once here (as smocker builds its services apart
// from registering its routes); routes.go only lists paths.
type services struct {
	rewards   rewards.Deps
	hotdeals  hotdeals.Deps
	bank      bank.Deps
	microsite microsite.Deps
	control   *control.API
	sweeps    *control.Sweeps
	// controlRoutes is filled by routes from its table before anything
	// is served; the control API's own OpenAPI document is drawn from it
	// on first request.
	controlRoutes *[]openapi.ControlRoute
}

// services builds the front door (its openers, dialects and failures
// for every auth scheme and host), the workshops the hosts share, and
// the control API.
func (s *Sim) services() (*services, error) {
	stories := story.NewBook(s.plane.Faults().List())
	for _, sc := range s.plane.StoryClocks() { // a story's clock move, known again after a restart
		for i, name := range sc.Stories {
			var moved *story.ClockBefore
			if i == 0 {
				moved = &story.ClockBefore{Own: sc.Own, By: sc.By}
			}
			stories.Add(sc.Channel, name, moved)
		}
	}
	s.plane.Faults().OnRemove = func(id string) { stories.Disarmed(id, s.plane.Faults().List()) }
	door := &frontdoor.Door{Faults: s.plane.Faults(), Limits: s.plane.Limits(), Latency: s.plane.Latency(), Stories: stories.On, Log: s.log}
	reg := s.plane.Scenarios()
	signed := &signedcall.Deps{Schemas: s.schemas, ServiceKey: s.serviceKey, Channels: reg}
	tokens := token.New(s.store, s.clock, s.opts.Rand)
	cardSvc := &cards.Service{Store: s.store, Clock: s.clock}
	rw := rewards.Deps{Door: door, Signed: signed, Tokens: tokens, Cards: cardSvc, Channels: reg, PublicURL: s.opts.PublicURL}
	hd := hotdeals.Deps{
		Channels: reg, Schemas: s.schemas, Coupons: s.coupons(), PublicURL: s.opts.PublicURL, Door: door,
		SharedBox:   s.opts.SharedBox,
		KnownSecKey: func(k string) { s.secrets.LearnSecKey(k) },
	}
	bk := bank.Deps{Door: door, Signed: signed, Sessions: tokens, Cards: cardSvc, PublicURL: s.opts.PublicURL}
	ms := microsite.Deps{Sessions: tokens, Channels: reg, Cards: cardSvc, Clock: s.clock,
		Schemas: s.schemas, PublicURL: s.opts.PublicURL, DeepLink: bank.DeepLink, Door: door, LiveSession: s.liveSession()}
	door.Tokens, s.door = tokens, door
	door.Openers = map[contract.Auth]frontdoor.Opener{
		contract.SignedEnvelope: signed.Open,
		contract.BearerRef:      rewards.Opener(rw), contract.BearerUser: rewards.Opener(rw),
		contract.APIKey:    hotdeals.Opener(hd),
		contract.SDKClient: microsite.Opener(ms),
	}
	door.Dialects = map[contract.Dialect]frontdoor.Dialect{
		contract.BareFailure: signedcall.Faults, contract.CardsJSON: rewards.Dialect(rw),
		contract.Coupon: hotdeals.Dialect(hd), contract.SDK: microsite.Dialect(ms),
	}
	door.Failures = map[contract.Dialect]frontdoor.Failure{
		contract.BareFailure: signedcall.InternalFailure, contract.CardsJSON: rewards.Failure,
		contract.Coupon: hotdeals.Failure, contract.SDK: microsite.Failure,
	}
	if err := door.Covers(contractOps); err != nil {
		return nil, err
	}
	// Filled from the table below before anything is served; the control
	// API's own OpenAPI document is drawn from it on first request.
	controlRoutes := new([]openapi.ControlRoute)
	sweeps := &control.Sweeps{Schemas: s.schemas, Page: sweep.HTMLFromJSON}
	ctl := control.New(control.Options{
		Plane: s.plane, Webhooks: s.hooks, Journal: s.journal, Cards: cardSvc, Readers: s.readers(cardSvc),
		Schemas: s.schemas, ServiceCertPEM: s.certPEM, Token: s.opts.Control.Token,
		Version: s.version(), Durability: string(s.opts.Durability),
		OpenAPI: sync.OnceValues(func() ([]byte, error) { return OpenAPI(s.opts.Version, s.opts.PublicURL) }),
		Live:    s.live, WebhookDeadline: s.hooks.Deadline(), Coupons: hd.Coupons, Stories: stories, Sweeps: sweeps,
		OpenAPIControl: sync.OnceValues(func() ([]byte, error) { return ControlOpenAPI(s.opts.Version, *controlRoutes) }),
	})
	return &services{rewards: rw, hotdeals: hd, bank: bk, microsite: ms, control: ctl, sweeps: sweeps, controlRoutes: controlRoutes}, nil
}
