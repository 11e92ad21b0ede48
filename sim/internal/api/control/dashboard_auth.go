package control

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// The dashboard's session: with --control-token the page asks for the
// token once (POST /__sim/login) and the browser then keeps a cookie,
// SameSite=Strict and HttpOnly, whose value is a random session id with
// its MAC (never the token). Every write the page sends carries the
// session's CSRF token, a MAC of its id, in CSRFHeader, and a write on the
// cookie's authority without it is refused: the guard's checks (guard.go)
// already refuse a page of another origin, the CSRF token is the second
// lock. The CSRF token is in the dashboard only, never in the login page
// (served to anyone), and one session's is refused with another's cookie.
// A caller that sends the token itself (a script, a test library) needs
// no CSRF token, as before.
const (
	SessionCookie = "rewardsim_control"
	CSRFHeader    = "X-Rewardsim-CSRF"
)

// newSecret keys the session and CSRF MACs when the simulator has no
// control token (one per process: a restart asks the page to reload).
func newSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails on the platforms served
	return b
}

func (a *API) mac(purpose string) string {
	key := a.secret
	if a.o.Token != "" {
		key = []byte(a.o.Token)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("rewardsim dashboard " + purpose))
	return hex.EncodeToString(m.Sum(nil))
}

// newSession is a session cookie's value: a random id, a dot, its MAC.
func (a *API) newSession() string {
	id := hex.EncodeToString(newSecret()[:16])
	return id + "." + a.mac("session "+id)
}

// session is the id of the request's valid session cookie, if any.
func (a *API) session(r *http.Request) (string, bool) {
	ck, err := r.Cookie(SessionCookie)
	if err != nil || a.o.Token == "" {
		return "", false
	}
	id, sum, ok := strings.Cut(ck.Value, ".")
	if !ok || id == "" || subtle.ConstantTimeCompare([]byte(sum), []byte(a.mac("session "+id))) != 1 {
		return "", false
	}
	return id, true
}

// csrf is the CSRF token of session id.
func (a *API) csrf(id string) string { return a.mac("csrf " + id) }

// pageCSRF is the CSRF token a dashboard page carries: its session's, or
// none when the page was opened without one (no control token, or the
// token itself), where writes need none.
func (a *API) pageCSRF(r *http.Request) string {
	if id, ok := a.session(r); ok {
		return a.csrf(id)
	}
	return ""
}

func (a *API) sessionCookie(r *http.Request) bool {
	_, ok := a.session(r)
	return ok
}

func (a *API) headerToken(r *http.Request) bool {
	got := presentedToken(r)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(a.o.Token)) == 1
}

// presentedToken is the control token a call presents, in TokenHeader
// or as Authorization: Bearer.
func presentedToken(r *http.Request) string {
	got := r.Header.Get(TokenHeader)
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && got == "" {
		got = v
	}
	return got
}

func isWrite(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// csrfOK reports whether a write may go on: one on the cookie's
// authority must carry that session's CSRF token.
func (a *API) csrfOK(r *http.Request, byCookie bool) bool {
	if !isWrite(r.Method) || !byCookie {
		return true
	}
	id, ok := a.session(r)
	return ok && subtle.ConstantTimeCompare([]byte(r.Header.Get(CSRFHeader)), []byte(a.csrf(id))) == 1
}

// Login is POST /__sim/login {"token": T}: with the right token, the
// session cookie; the dashboard's token prompt sends it.
func (a *API) Login(c echo.Context) error {
	var req struct {
		Token string `json:"token"`
	}
	if err := a.bind(c, "control.login", &req); err != nil {
		return err
	}
	if a.o.Token == "" {
		return c.JSON(http.StatusOK, map[string]any{"session": false, "reason": "this simulator has no control token"})
	}
	if subtle.ConstantTimeCompare([]byte(req.Token), []byte(a.o.Token)) != 1 {
		return fail(http.StatusUnauthorized, "that is not this simulator's control token")
	}
	c.SetCookie(&http.Cookie{Name: SessionCookie, Value: a.newSession(), Path: "/__sim", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return c.JSON(http.StatusOK, map[string]any{"session": true})
}
