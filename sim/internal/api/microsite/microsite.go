// Package microsite serves the hosted rewards microsite and the mobile
// SDK touchpoints on the bank host (issue 7):
//
//	GET  /microsite?sessionId=S&virtualId=V[&channel=C][&open=N]   the user's cards (SESS-2, SESS-3)
//	POST /microsite/scratch                                        the page's one-shot reveal (JSON)
//	GET  /sdk/launch, POST /sdk/launch                             SDK launch emulation (SDK-2)
//	POST /sdk/getScratchCardDetails, POST /sdk/sendRewardCardRequest  client issuance (SDK-1)
//	GET  /assets/*                                                 embedded CSS, JavaScript and images
//
// Pages are server-rendered with html/template and a little vanilla
// JavaScript; every asset is embedded, so they render with no network
// beyond the simulator. Reveals go through cards.Service.Reveal, the same
// one-shot code path as FetchRewardInfo; issuance through
// cards.Service.Issue, the same code as GetReward.
package microsite

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/frontdoor"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/internal/token"
)

// Paths on the bank host.
const (
	PagePath    = "/microsite"
	ScratchPath = "/microsite/scratch"
	LaunchPath  = "/sdk/launch"
	AssetsPath  = "/assets"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Channels finds a channel and its scenario by name.
type Channels interface {
	ByChannelName(name string) (model.Channel, *scenario.Scenario, bool)
}

// Deps is what the microsite and the SDK emulation need.
type Deps struct {
	// Sessions checks the sessions GenerateSessionInfoV2 issued.
	Sessions *token.Service
	Channels Channels
	Cards    *cards.Service
	Clock    clock.PerChannel
	Schemas  *schema.Set
	// PublicURL, when set, is the base of the tracking URLs handed out.
	PublicURL string
	// DeepLink renders a card's deep link (the one GetScratchCardForBank hands out).
	DeepLink func(model.Card) string
	Door     *frontdoor.Door
	// LiveSession, set on a shared box, says whether a credentialed
	// GenerateSessionInfoV2 of channel issued virtualID a live session:
	// SDK issuance, which carries no credential, then serves only such
	// users (docs/security.md).
	LiveSession func(channel, virtualID string) (bool, error)
}

type handlers struct {
	Deps
}

// parsedPages parses the embedded templates once per process, on the
// first page rendered: parsing them when the routes were built was about
// a millisecond of every start-up (issue 56).
var parsedPages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html"))
})

// Pages are the microsite's and the SDK launch's handlers: the page
// (PagePath), its reveal (ScratchPath) and the launch (LaunchPath, GET
// and POST).
func Pages(d Deps) (page, scratch, launch echo.HandlerFunc) {
	h := &handlers{Deps: d}
	return h.page, h.scratch, h.launch
}

// Opener is the SDK client's way in.
func Opener(d Deps) frontdoor.Opener { return (&handlers{Deps: d}).openSDK }

// Dialect is the SDK's dialect of injected faults.
func Dialect(d Deps) frontdoor.Dialect { return (&handlers{Deps: d}).faults }

// Failure is the SDK's answer to a failure of the simulator itself (a
// frontdoor.Failure): its Internal Error body.
func Failure(contract.Op, *frontdoor.Call) *httpx.Error {
	return &httpx.Error{Body: issueAnswer{Message: "Internal Error"}}
}

// Handlers are the SDK's client issuance operations (SDK-1).
func Handlers(d Deps) httpx.OpHandlers {
	h := &handlers{Deps: d}
	issue := frontdoor.Handle(d.Door, frontdoor.Endpoint[issueRequest]{Check: h.checkIssue, Serve: h.issue})
	return httpx.OpHandlers{contract.OpSDKIssueAndroid: issue, contract.OpSDKIssueIOS: issue}
}

// Assets serve the generated imagery (ImagePath) and the embedded assets
// (AssetsPath/*). Scenario imagery points at them from every answer, so
// the composition root routes them on every public host.
func Assets() (image, files echo.HandlerFunc) {
	h := &handlers{}
	sub, _ := fs.Sub(assetFS, "assets")
	assets := http.StripPrefix(AssetsPath+"/", http.FileServer(http.FS(sub)))
	return h.image, echo.WrapHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		// http.FS answers 500 for a name that is not UTF-8 (/assets/%ff):
		// no such file is a 404.
		if !utf8.ValidString(r.URL.Path) {
			http.NotFound(w, r)
			return
		}
		assets.ServeHTTP(w, r)
	}))
}

// user is a launch whose sessionId and virtualId authenticate together.
type user struct {
	session  model.Session
	channel  model.Channel
	scenario *scenario.Scenario
}

// errBlank carries why a launch shows the blank initial screen.
type errBlank struct{ why string }

func (e errBlank) Error() string { return e.why }

// authenticate checks that sessionId and virtualId come together (SESS-2):
// the session exists, belongs to that virtualId (and channel, when one is
// named) and has not expired on the simulated clock.
func (h *handlers) authenticate(sessionID, virtualID, channel string) (user, error) {
	sess, err := h.Sessions.CheckSession(sessionID, virtualID, channel)
	if r, ok := refusal.Of(err); ok {
		return user{}, errBlank{r.Msg}
	}
	if err != nil {
		return user{}, err
	}
	ch, sc, ok := h.Channels.ByChannelName(sess.Channel)
	if !ok {
		return user{}, errBlank{fmt.Sprintf("the session's channel %s is not in the active scenario", sess.Channel)}
	}
	return user{session: sess, channel: ch, scenario: sc}, nil
}

// blank renders the blank initial screen an invalid launch leaves (SESS-2,
// SDK-2): HTTP 200, an empty page shell, the reason in X-Rewardsim-Reason.
func (h *handlers) blank(c echo.Context, why string) error {
	httpx.SetReason(c, why)
	// The contract's refusal is a blank screen (SESS-2, SDK-2), so the
	// reason stays out of sight: in the markup, for WebView developers.
	return h.render(c, "blank.html", why)
}

func (h *handlers) render(c echo.Context, name string, data any) error {
	var b strings.Builder
	if err := parsedPages().ExecuteTemplate(&b, name, data); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTML(http.StatusOK, b.String())
}
