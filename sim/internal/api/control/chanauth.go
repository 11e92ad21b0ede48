package control

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"
)

// ChannelOf is the channel a control call acts on, as its route reads it
// ("" when it names none: the call then acts box-wide).
type ChannelOf func(c echo.Context) string

// ForChannel guards a route that acts on one channel: the box's control
// token (or the dashboard's session) acts on every channel, as Auth; a
// channel's own token (IssueChannelToken) acts only when the call names
// that channel, else 403 in the control API's shape.
func (a *API) ForChannel(of ChannelOf, next echo.HandlerFunc) echo.HandlerFunc {
	box := a.Auth(next)
	return func(c echo.Context) error {
		r := c.Request()
		if a.o.Token == "" || a.headerToken(r) {
			return box(c)
		}
		own, ok := a.o.Plane.TokenChannel(presentedToken(r))
		if !ok {
			return box(c) // the session cookie, or the 401
		}
		if ch := of(c); ch != own && !a.isChannelID(own, ch) {
			if ch == "" {
				return fail(http.StatusForbidden, "this control token acts on channel %s alone: name it (channel %s)", own, own)
			}
			return fail(http.StatusForbidden, "this control token acts on channel %s alone, not %q", own, ch)
		}
		return next(c)
	}
}

// isChannelID reports whether id is the CHANNELID of channel name (verify
// and the journal take either).
func (a *API) isChannelID(name, id string) bool {
	ch, _, ok := a.scenarios.ByChannelName(name)
	return ok && id != "" && ch.ChannelID == id
}

// QueryChannel is the channel of ?channel=NAME.
func QueryChannel(c echo.Context) string { return c.QueryParam("channel") }

// ParamChannel is the channel of path parameter name.
func ParamChannel(name string) ChannelOf {
	return func(c echo.Context) string { return c.Param(name) }
}

// maxScopedBody bounds what BodyChannel reads of a body to find its
// channel; the handler reads it again, whole.
const maxScopedBody = 1 << 20

// BodyChannel is the "channel" member of a JSON body, read and put back
// for the handler, which so acts on the channel checked.
func BodyChannel(c echo.Context) string {
	r := c.Request()
	if r.Body == nil {
		return ""
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxScopedBody))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(raw), r.Body))
	var v struct {
		Channel string `json:"channel"`
	}
	if err != nil || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v.Channel
}

// RuleChannel is the channel of the fault rule a call names (:id).
func (a *API) RuleChannel(c echo.Context) string {
	for _, st := range a.o.Plane.Faults().List() {
		if st.ID == c.Param("id") {
			return st.Channel
		}
	}
	return ""
}

// CardChannel is the channel a card call acts on (cardChannel).
func (a *API) CardChannel(c echo.Context) string { return a.cardChannel(c) }

// IssueChannelToken is POST /__sim/channels/{name}/token: a control
// token of the channel's own, shown this once (the store keeps its hash).
func (a *API) IssueChannelToken(c echo.Context) error {
	name := c.Param("name")
	tok, err := a.o.Plane.IssueChannelToken(name)
	if err != nil {
		return refused(err)
	}
	return c.JSON(http.StatusCreated, map[string]string{"channel": name, "token": tok})
}
