package microsite

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/cards"
	"github.com/rewardsim/rewardsim/sim/internal/clock"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// MaxCards is how many of a user's cards the page shows (unscratched first).
const MaxCards = 100

// pageView is what page.html renders.
type pageView struct {
	Channel, VirtualID, SessionID string
	// Bridge and IOSHandler name the reveal callbacks (SDK-3).
	Bridge, IOSHandler string
	Lang               string
	Tiles              []tile
	Unscratched        int
	Revealed           int
	// Launch is set when the page came from the SDK launch emulation.
	Launch *launchPayload
	// Note is a line shown above the cards (a deep link that opened a card).
	Note string
}

// tile is one card on the page.
type tile struct {
	ID                                  uint64
	Revealed, Expired, Fallback, Focus  bool
	Open                                bool // the detail panel starts open
	Created, Expires                    string
	TrackLinks                          []string
	ClickURL, RewardClickURL, BannerURL string
	// CoverURL is the offer's cover image, or a generated one.
	CoverURL string
	Offer    model.Offer
	Steps    []string
	BgColor  string
}

var funcs = template.FuncMap{
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	// bg is a card's background colour for a style attribute: only a
	// hex colour from the scenario gets through, anything else is the default.
	"bg": func(s string) template.CSS {
		if hexColor.MatchString(s) {
			return template.CSS("--accent:" + s)
		}
		return template.CSS("--accent:#4338CA")
	},
}

var hexColor = regexp.MustCompile(`^#[0-9A-Fa-f]{3,8}$`)

// stepRe splits "1. Do this. 2. Do that." into steps.
var stepRe = regexp.MustCompile(`(?:^|\s)\d+[.)]\s+`)

// steps splits redeemSteps into a list: numbered steps, else lines.
func steps(s string) []string {
	var out []string
	parts := stepRe.Split(s, -1)
	if len(parts) <= 1 {
		parts = strings.Split(s, "\n")
	}
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// page is the hosted microsite (SESS-2, SESS-3).
func (h *handlers) page(c echo.Context) error {
	q := c.QueryParams()
	open, _ := strconv.ParseUint(q.Get("open"), 10, 64)
	return h.show(c, q.Get("sessionId"), q.Get("virtualId"), q.Get("channel"), open, nil)
}

// show authenticates the pair and renders the user's cards, or the blank screen.
func (h *handlers) show(c echo.Context, sessionID, virtualID, channel string, open uint64, launch *launchPayload) error {
	u, err := h.authenticate(sessionID, virtualID, channel)
	var blank errBlank
	if errors.As(err, &blank) {
		return h.blank(c, blank.why)
	}
	if err != nil {
		return err
	}
	list, _, err := h.Cards.List(u.channel.Name, u.session.VirtualID, 0, MaxCards)
	if err != nil {
		return err
	}
	v := pageView{
		Channel: u.channel.Name, VirtualID: u.session.VirtualID, SessionID: u.session.ID,
		Bridge: u.scenario.SDK.AndroidBridge, IOSHandler: "Handle" + u.scenario.Partner(u.channel.Name) + "ScDetails",
		Lang: "en", Launch: launch,
	}
	if launch != nil && launch.Language != "" {
		v.Lang = launch.Language
	}
	base := httpx.BaseURL(c, h.PublicURL)
	found := false
	for _, card := range list {
		t := h.tile(base, u.scenario, card)
		if card.RewardID == open {
			t.Focus, t.Open, found = true, t.Revealed, true
		}
		if t.Revealed {
			v.Revealed++
		} else {
			v.Unscratched++
		}
		v.Tiles = append(v.Tiles, t)
	}
	switch {
	case open != 0 && found:
		v.Note = fmt.Sprintf("Opened scratch card #%d from your notification.", open)
	case open != 0:
		httpx.SetReason(c, fmt.Sprintf("the deep link's card %d is not one of this user's cards: showing the list", open))
	}
	return h.render(c, "page.html", v)
}

// tile builds the view of one card, with the tracking URLs of the listing.
func (h *handlers) tile(base string, sc *scenario.Scenario, card model.Card) tile {
	wire, clicks := cards.Wire(base, sc, []model.Card{card})
	t := tile{
		ID: card.RewardID, Revealed: card.Revealed(),
		Created:    card.CreatedAt.In(sc.Location).Format("2 Jan 2006, 15:04"),
		TrackLinks: wire[0].TrackLink, ClickURL: clicks[0],
		BannerURL: cards.Banner(sc, card),
	}
	if !card.ExpiresAt.IsZero() {
		t.Expires = card.ExpiresAt.In(sc.Location).Format("2 Jan 2006, 15:04")
		t.Expired = !t.Revealed && !clock.NowFor(h.Clock, card.Channel).Before(card.ExpiresAt)
	}
	if card.Reward != nil {
		t.Offer, t.Fallback = card.Reward.Offer, card.Reward.Fallback
		t.Steps = steps(card.Reward.RedeemSteps)
		t.BgColor = card.Reward.BgColor
		t.CoverURL = t.Offer.CoverImage
		if t.CoverURL == "" {
			t.CoverURL = AssetsPath + "/img/scratch-card-cover.svg"
			if t.Fallback {
				t.CoverURL = AssetsPath + "/img/better-luck-cover.svg"
			}
		}
		if t.Fallback && t.Offer.Description == "" {
			t.Offer.Description = cards.BetterLuck.Description
		}
		if r := cards.RevealedWire(base, sc, card); len(r.ClickTrack) > 0 {
			t.RewardClickURL = r.ClickTrack[0]
		}
	}
	return t
}

// banner is the card's campaign banner, or the default.

// scratchAnswer is the page's reveal answer: the revealed tile rendered by
// the same template as the page, and the callback payload of a first
// reveal (empty when none is due).
type scratchAnswer struct {
	RewardID uint64 `json:"rewardId"`
	First    bool   `json:"first"`
	Tile     string `json:"tile"`
	Callback string `json:"callback"`
}

// Callback is the reveal callback payload (SDK-3), the simulator's
// reading: the JSON text given to onReveal(string) and as scDetails.
type Callback struct {
	Event            string `json:"event"`
	Channel          string `json:"channel"`
	VirtualID        string `json:"virtualId"`
	RewardID         uint64 `json:"rewardId"`
	CampaignID       string `json:"campaignId"`
	IsFallback       bool   `json:"isFallback"`
	RevealedDateTime string `json:"revealedDateTime"`
	model.Offer
}

func pageError(status int, msg string) error {
	return &httpx.Error{Status: status, Body: map[string]string{"message": msg}, Reason: msg}
}

// scratch reveals one card for the page: the pair authenticates again and
// the reveal is cards.Service.Reveal, FetchRewardInfo's one-shot path.
func (h *handlers) scratch(c echo.Context) error {
	body, err := httpx.ReadBody(c)
	if errors.Is(err, httpx.ErrTooLarge) {
		return pageError(http.StatusRequestEntityTooLarge, err.Error())
	}
	if err != nil {
		return pageError(http.StatusBadRequest, "body could not be read: "+err.Error())
	}
	var req struct {
		SessionID string `json:"sessionId"`
		VirtualID string `json:"virtualId"`
		RewardID  uint64 `json:"rewardId"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.RewardID == 0 {
		return pageError(http.StatusBadRequest, "the body must be {sessionId, virtualId, rewardId}")
	}
	u, err := h.authenticate(req.SessionID, req.VirtualID, "")
	var blank errBlank
	if errors.As(err, &blank) {
		return pageError(http.StatusForbidden, blank.why)
	}
	if err != nil {
		return err
	}
	card, first, err := h.Cards.Reveal(u.scenario, u.channel.Name, u.session.VirtualID, req.RewardID)
	switch {
	case errors.Is(err, cards.ErrNoCard), errors.Is(err, cards.ErrNotYours):
		return pageError(http.StatusNotFound, fmt.Sprintf("this user has no card %d", req.RewardID))
	case errors.Is(err, cards.ErrCardExpired):
		return pageError(http.StatusGone, fmt.Sprintf("card %d has expired", req.RewardID))
	case err != nil:
		return err
	}
	base := httpx.BaseURL(c, h.PublicURL)
	t := h.tile(base, u.scenario, card)
	t.Open, t.Focus = true, true
	var b strings.Builder
	if err := parsedPages().ExecuteTemplate(&b, "tile", t); err != nil {
		return err
	}
	ans := scratchAnswer{RewardID: card.RewardID, First: first, Tile: b.String()}
	if first && !(card.Reward.Fallback && u.scenario.Switches.SDK.MissCallback == scenario.MissSkip) {
		raw, err := json.Marshal(Callback{
			Event: "reveal", Channel: card.Channel, VirtualID: card.VirtualID, RewardID: card.RewardID,
			CampaignID: card.CampaignID, IsFallback: card.Reward.Fallback,
			RevealedDateTime: card.Reward.RevealedAt.In(u.scenario.Location).Format(cards.DateTimeMs),
			Offer:            cards.AbsoluteOffer(base, card.Reward.Offer), // absolute, as in FetchRewardInfo
		})
		if err != nil {
			return err
		}
		ans.Callback = string(raw)
	}
	if !first {
		httpx.SetReason(c, fmt.Sprintf("card %d was revealed before: shown again, no callback", card.RewardID))
	}
	return c.JSON(http.StatusOK, ans)
}

// launchPayload is the SDK launch payload (SDK-2). Types are not shown
// by the contract: IsEmployee may be a boolean or a string.
type launchPayload struct {
	Component    string `json:"Component"`
	IsEmployee   string `json:"IsEmployee"`
	Language     string `json:"Language"`
	DeeplinkInfo string `json:"DeeplinkInfo"`
	CustomerID   string `json:"customerId"`
}

var langRe = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)

// parsePayload reads the launch payload JSON; scalars become strings.
func parsePayload(raw string) (*launchPayload, error) {
	p := &launchPayload{}
	if strings.TrimSpace(raw) == "" {
		return p, nil
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, errors.New("payload is not a JSON object")
	}
	known := map[string]*string{
		"Component": &p.Component, "IsEmployee": &p.IsEmployee, "Language": &p.Language,
		"DeeplinkInfo": &p.DeeplinkInfo, "customerId": &p.CustomerID,
	}
	for k, v := range m {
		dst, ok := known[k]
		if !ok {
			return nil, fmt.Errorf("payload key %q is not one of Component, IsEmployee, Language, DeeplinkInfo, customerId", k)
		}
		switch t := v.(type) {
		case string:
			*dst = t
		case bool, json.Number:
			*dst = fmt.Sprint(t)
		case nil:
		default:
			return nil, fmt.Errorf("payload key %s is not a string, number or boolean", k)
		}
	}
	if p.Language != "" && !langRe.MatchString(p.Language) {
		return nil, fmt.Errorf("payload Language %q is not a language tag", p.Language)
	}
	return p, nil
}

// deepLinkCard reads the rewardId (and channel) of a deep link handed out
// by GetScratchCardForBank or client issuance.
func deepLinkCard(link string) (channel string, id uint64, ok bool) {
	u, err := url.Parse(link)
	if err != nil {
		return "", 0, false
	}
	id, err = strconv.ParseUint(u.Query().Get("rewardId"), 10, 64)
	return u.Query().Get("channel"), id, err == nil && id > 0
}

// launch is the SDK launch emulation (SDK-2): virtualId, sessionId,
// channel and payload as query parameters (GET) or as a form or JSON
// body (POST). An invalid pair, or a payload the SDK could not read,
// leaves the blank initial screen; a DeeplinkInfo opens its card.
func (h *handlers) launch(c echo.Context) error {
	var in struct {
		VirtualID   string          `json:"virtualId"`
		SessionID   string          `json:"sessionId"`
		Channel     string          `json:"channel"`
		ChannelName string          `json:"channelName"`
		Payload     json.RawMessage `json:"payload"`
	}
	payload := ""
	if c.Request().Method == http.MethodPost && strings.HasPrefix(c.Request().Header.Get("Content-Type"), "application/json") {
		body, err := httpx.ReadBody(c)
		if err != nil {
			return h.blank(c, "body could not be read: "+err.Error())
		}
		if err := json.Unmarshal(body, &in); err != nil {
			return h.blank(c, "the launch body is not a JSON object: "+err.Error())
		}
		payload = string(in.Payload)
		var s string
		if json.Unmarshal(in.Payload, &s) == nil {
			payload = s // the payload as a JSON-encoded string
		}
	} else {
		// Form bodies get the same 1 MiB bound as every other body.
		c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, httpx.MaxBody)
		in.VirtualID, in.SessionID = c.FormValue("virtualId"), c.FormValue("sessionId")
		in.Channel, in.ChannelName = c.FormValue("channel"), c.FormValue("channelName")
		payload = c.FormValue("payload")
	}
	if in.Channel == "" {
		in.Channel = in.ChannelName
	}
	p, err := parsePayload(payload)
	if err != nil {
		return h.blank(c, err.Error())
	}
	var open uint64
	if p.DeeplinkInfo != "" {
		ch, id, ok := deepLinkCard(p.DeeplinkInfo)
		switch {
		case !ok:
			httpx.SetReason(c, "DeeplinkInfo names no card: showing the list")
		case ch != "" && in.Channel != "" && ch != in.Channel:
			httpx.SetReason(c, fmt.Sprintf("DeeplinkInfo is a card of channel %s: showing the list", ch))
		default:
			open = id
		}
	}
	return h.show(c, in.SessionID, in.VirtualID, in.Channel, open, p)
}
