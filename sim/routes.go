package sim

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/rewardsim/rewardsim/sim/internal/api/bank"
	"github.com/rewardsim/rewardsim/sim/internal/api/control"
	"github.com/rewardsim/rewardsim/sim/internal/api/hotdeals"
	"github.com/rewardsim/rewardsim/sim/internal/api/microsite"
	"github.com/rewardsim/rewardsim/sim/internal/api/rewards"
	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/openapi"
)

// contractOps is the contract table New routes (a variable so a test can
// hand New a table with an operation no host serves).
var contractOps = contract.Ops

// route is one path the simulator serves.
type route struct {
	host         Host // a public host, public (every one of them) or Control
	method, path string
	handle       echo.HandlerFunc
}

// public places a route on every public host: the simulator's own
// resources (tracking, assets, coupon redirects) answer wherever the URL
// that names them points, in split mode too.
const public Host = "public"

// anyMethod routes every method.
const anyMethod = "ANY"

// routes is every route of the simulator, the one place that lists them:
// the contract's operations, bound from each host's handlers by the
// contract table, then the simulator's own routes and the control API.
// The services they call are built apart (services.go).
func (s *Sim) routes() ([]route, error) {
	sv, err := s.services()
	if err != nil {
		return nil, err
	}
	bankOps, err := merge(bank.Handlers(sv.bank), microsite.Handlers(sv.microsite))
	if err != nil {
		return nil, err
	}
	ops, err := bindOps(contractOps, map[contract.Host]httpx.OpHandlers{
		contract.Rewards:  rewards.Handlers(sv.rewards),
		contract.Bank:     bankOps,
		contract.Hotdeals: hotdeals.Handlers(sv.hotdeals),
	})
	if err != nil {
		return nil, err
	}
	pages := pageRoutes(sv.rewards, sv.hotdeals, sv.microsite)
	ctl, sweeps := sv.control, sv.sweeps
	all := append(ops, pages...)
	all = append(all, s.controlTable(ctl, sweeps)...)
	for _, r := range all {
		if r.host == Control {
			*sv.controlRoutes = append(*sv.controlRoutes, openapi.ControlRoute{Method: r.method, Path: r.path})
		}
	}
	return all, nil
}

// pageRoutes are the simulator's own resources on every public host
// (tracking, assets, coupon redirects) and the bank's microsite pages.
func pageRoutes(rw rewards.Deps, hd hotdeals.Deps, ms microsite.Deps) []route {
	page, scratch, launch := microsite.Pages(ms)
	image, assets := microsite.Assets()
	return []route{
		{public, http.MethodGet, cards.ImpressionPath, rewards.Tracking(rw, cards.Impression)},
		{public, http.MethodGet, cards.ClickPath, rewards.Tracking(rw, cards.Click)},
		{public, http.MethodGet, microsite.ImagePath, image},
		{public, http.MethodGet, microsite.AssetsPath + "/*", assets},
		{public, http.MethodGet, hotdeals.RedirectRoute, hotdeals.Redirect(hd)},

		{Bank, http.MethodGet, microsite.PagePath, page},
		{Bank, http.MethodPost, microsite.ScratchPath, scratch},
		{Bank, http.MethodGet, microsite.LaunchPath, launch},
		{Bank, http.MethodPost, microsite.LaunchPath, launch},
	}
}

// controlTable is the control API's routes, with pprof's when the
// options ask for them.
func (s *Sim) controlTable(ctl *control.API, sweeps *control.Sweeps) []route {
	// Every control call but health needs the control token (when set).
	auth := ctl.Auth
	// Calls that read the whole journal share a small bound (429 beyond).
	heavy := func(h echo.HandlerFunc) echo.HandlerFunc { return auth(ctl.Heavy(h)) }
	// Calls on one channel also take that channel's own token (a shared
	// box's, docs/security.md); every other call is the box's.
	on := ctl.ForChannel
	query, body, named := control.QueryChannel, control.BodyChannel, control.ParamChannel("name")
	all := []route{
		{Control, http.MethodGet, "/__sim/health", ctl.Health},
		{Control, http.MethodGet, "/__sim/openapi.json", ctl.OpenAPIDoc},
		{Control, http.MethodGet, "/__sim/openapi-control.json", ctl.OpenAPIControlDoc},
		{Control, http.MethodGet, "/__sim/certs/service.pem", auth(ctl.ServiceCert)},
		{Control, http.MethodGet, "/__sim/certs/", auth(ctl.ListCerts)},
		{Control, http.MethodGet, "/__sim/certs/:name", auth(ctl.CertFile)},
		// The dashboard asks for the token itself (a page, not a 401).
		{Control, http.MethodGet, "/__sim/", ctl.LoginGate(ctl.Heavy(ctl.Dashboard))},
		{Control, http.MethodGet, "/__sim/dashboard", ctl.LoginGate(ctl.Heavy(ctl.Dashboard))},
		{Control, http.MethodPost, "/__sim/login", ctl.Login},
		{Control, http.MethodGet, "/__sim/scenarios", auth(ctl.ListScenarios)},
		{Control, http.MethodPost, "/__sim/scenarios", auth(ctl.LoadScenario)},
		{Control, http.MethodGet, "/__sim/scenarios/active", auth(ctl.ActiveScenario)},
		{Control, http.MethodGet, "/__sim/scenarios/:name", auth(ctl.ShowScenario)},
		{Control, http.MethodPost, "/__sim/scenarios/:name/activate", auth(ctl.ActivateScenario)},
		{Control, http.MethodGet, "/__sim/channels", auth(ctl.ListChannels)},
		{Control, http.MethodPost, "/__sim/channels", auth(ctl.RegisterChannel)},
		{Control, http.MethodGet, "/__sim/channels/:name", on(named, ctl.GetChannel)},
		{Control, http.MethodPatch, "/__sim/channels/:name", on(named, ctl.PatchChannel)},
		{Control, http.MethodDelete, "/__sim/channels/:name", on(named, ctl.UnregisterChannel)},
		{Control, http.MethodPost, "/__sim/channels/:name/token", auth(ctl.IssueChannelToken)},
		{Control, http.MethodPost, "/__sim/state/reset", on(body, ctl.ResetState)},
		{Control, http.MethodGet, "/__sim/state/users/:channel/:virtualId", on(control.ParamChannel("channel"), ctl.ReadUser)},
		{Control, http.MethodPost, "/__sim/webhooks", on(body, ctl.ScheduleWebhook)},
		{Control, http.MethodGet, "/__sim/webhooks", auth(ctl.ListWebhooks)},
		{Control, http.MethodGet, "/__sim/webhooks/:id", auth(ctl.GetWebhook)},
		{Control, http.MethodPost, "/__sim/webhooks/run", auth(ctl.RunWebhooks)},
		{Control, http.MethodGet, "/__sim/journal", on(query, ctl.Journal)},
		{Control, http.MethodDelete, "/__sim/journal", on(query, ctl.ResetJournal)},
		{Control, http.MethodPost, "/__sim/verify", on(body, ctl.Verify)},
		{Control, http.MethodGet, "/__sim/recording", heavy(ctl.Recording)},
		{Control, http.MethodGet, "/__sim/session", heavy(ctl.Recording)}, // the former name
		{Control, http.MethodGet, "/__sim/report", heavy(ctl.Report)},
		{Control, http.MethodGet, "/__sim/report.html", heavy(ctl.ReportHTML)},
		{Control, http.MethodGet, "/__sim/tracking", on(ctl.CardChannel, ctl.Tracking)},
		{Control, http.MethodGet, "/__sim/metrics", auth(echo.WrapHandler(s.metrics.Handler()))},
		{Control, http.MethodGet, "/__sim/live", auth(ctl.LiveStream)},
		{Control, http.MethodGet, "/__sim/diagram.svg", heavy(ctl.Diagram)},
		{Control, http.MethodPost, "/__sim/diagram.svg", heavy(ctl.RecordingDiagram)},
		{Control, http.MethodGet, "/__sim/notifications", on(ctl.CardChannel, ctl.Notifications)},
		{Control, http.MethodGet, "/__sim/cards/:rewardId", on(ctl.CardChannel, ctl.Card)},
		{Control, http.MethodGet, "/__sim/sweeps/last", auth(sweeps.Last)},
		{Control, http.MethodGet, "/__sim/sweeps/last.html", auth(sweeps.LastHTML)},
		{Control, http.MethodPost, "/__sim/sweeps/last", auth(sweeps.PutLast)},
		{Control, anyMethod, "/__sim", auth(ctl.NotFound)},
		{Control, anyMethod, "/__sim/*", auth(ctl.NotFound)},
	}
	// Before the catch-alls: echo matches the static and parameter routes
	// first anyway, but the table reads in the order a reader expects.
	all = append(behaviourRoutes(ctl), all...)
	if s.opts.DebugPprof {
		all = append(all, route{Control, http.MethodGet, debugPprofPath + "*", auth(debugPprof)},
			route{Control, http.MethodGet, debugStorePath, auth(s.debugStore)})
	}
	return all
}

// bindOps routes every operation of ops to its host's handler, behind
// the bearer check its Auth column names. An operation no host serves,
// or a handler that serves no operation of its host, is an error: the
// table and the handlers cannot drift apart unnoticed.
func bindOps(ops []contract.Op, hosts map[contract.Host]httpx.OpHandlers) ([]route, error) {
	var errs []error
	routed := map[contract.Host]map[string]bool{}
	out := make([]route, 0, len(ops))
	for _, op := range ops {
		fn, ok := hosts[op.Host][op.Name]
		if !ok {
			errs = append(errs, fmt.Errorf("contract operation %s (%s %s on the %s host) has no handler", op.Name, op.Method, op.Path, op.Host))
			continue
		}
		if routed[op.Host] == nil {
			routed[op.Host] = map[string]bool{}
		}
		routed[op.Host][op.Name] = true
		out = append(out, route{Host(op.Host), op.Method, op.Path, func(c echo.Context) error { return fn(c, op) }})
	}
	for host, handlers := range hosts {
		for name := range handlers {
			if !routed[host][name] {
				errs = append(errs, fmt.Errorf("the %s host has a handler for %s, which is no operation of its in the contract table", host, name))
			}
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return out, errors.Join(errs...)
}

// merge joins the handlers of packages serving one host; an operation
// served twice is an error.
func merge(hs ...httpx.OpHandlers) (httpx.OpHandlers, error) {
	out := httpx.OpHandlers{}
	for _, h := range hs {
		for name, fn := range h {
			if _, dup := out[name]; dup {
				return nil, fmt.Errorf("operation %s has two handlers", name)
			}
			out[name] = fn
		}
	}
	return out, nil
}

func (s *Sim) newEcho() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = httpx.ErrorHandler(s.log)
	e.JSONSerializer = httpx.JSONSerializer{}
	e.Use(middleware.Recover())
	return e
}

// mount builds each face's handler from the routes: a public host serves
// its own routes and the public ones; All serves every public route; the
// control API its own.
func (s *Sim) mount(rs []route) map[Host]http.Handler {
	engines := map[Host]*echo.Echo{}
	for _, h := range []Host{All, Rewards, Bank, Hotdeals} {
		e := s.newEcho()
		e.HTTPErrorHandler = s.door.Unrouted(e.HTTPErrorHandler)
		e.Use(s.journal.Middleware(string(h)))
		if cors := s.cors(); cors != nil {
			e.Use(cors)
		}
		engines[h] = e
	}
	engines[Control] = s.newEcho()
	engines[Control].Use(control.Guard(s.opts.Control.AllowedHosts), control.DecodePathParams)
	for _, r := range rs {
		var on []Host
		switch r.host {
		case public:
			on = []Host{Rewards, Bank, Hotdeals, All}
		case Control:
			on = []Host{Control}
		default:
			on = []Host{r.host, All}
		}
		for _, h := range on {
			if r.method == anyMethod {
				engines[h].Any(r.path, r.handle)
			} else {
				engines[h].Add(r.method, r.path, r.handle)
			}
		}
	}
	out := map[Host]http.Handler{}
	for h, e := range engines {
		out[h] = e
	}
	return out
}

// behaviourRoutes is the control routes that change how the simulator
// answers a channel: its clock, stories, switches, limits, fault rules
// and latency profiles.
func behaviourRoutes(ctl *control.API) []route {
	auth, on := ctl.Auth, ctl.ForChannel
	query, body := control.QueryChannel, control.BodyChannel
	return []route{
		{Control, http.MethodGet, "/__sim/clock", on(query, ctl.ShowClock)},
		{Control, http.MethodPost, "/__sim/clock", on(body, ctl.SetClock)},
		{Control, http.MethodPost, "/__sim/clock/advance", on(body, ctl.AdvanceClock)},
		{Control, http.MethodDelete, "/__sim/clock", on(query, ctl.DropClock)},
		{Control, http.MethodGet, "/__sim/stories", auth(ctl.ListStories)},
		{Control, http.MethodPost, "/__sim/stories/clear", on(query, ctl.ClearStories)},
		{Control, http.MethodPost, "/__sim/stories/:name/apply", on(query, ctl.ApplyStory)},
		{Control, http.MethodGet, "/__sim/switches", auth(ctl.ListSwitches)},
		{Control, http.MethodPost, "/__sim/switches", auth(ctl.SetSwitch)},
		{Control, http.MethodDelete, "/__sim/switches", auth(ctl.ResetSwitches)},
		{Control, http.MethodDelete, "/__sim/switches/:name", auth(ctl.ResetSwitches)},
		{Control, http.MethodGet, "/__sim/limits", on(query, ctl.ListLimits)},
		{Control, http.MethodPost, "/__sim/limits", on(body, ctl.SetLimit)},
		{Control, http.MethodDelete, "/__sim/limits/:channel", on(control.ParamChannel("channel"), ctl.RemoveLimit)},
		{Control, http.MethodGet, "/__sim/faults", auth(ctl.ListFaults)},
		{Control, http.MethodPost, "/__sim/faults", on(body, ctl.AddFault)},
		{Control, http.MethodDelete, "/__sim/faults/:id", on(ctl.RuleChannel, ctl.RemoveFault)},
		{Control, http.MethodDelete, "/__sim/faults", auth(ctl.ClearFaults)},
		{Control, http.MethodGet, "/__sim/latency", auth(ctl.ListLatency)},
		{Control, http.MethodPost, "/__sim/latency", on(body, ctl.SetLatency)},
		{Control, http.MethodDelete, "/__sim/latency", on(query, ctl.RemoveLatency)},
	}
}
