// Package outbound is the redirect policy of every HTTP client rewardsim
// sends with (calibrate, the control API client, the publisher kit, the
// record proxy and replay, the webhook deliverer): a redirect to another
// origin (scheme, host and port) is never followed, so credentials
// (ServiceAppKey, a bearer or control token, X-CHANNELID) and signed
// bodies go only where the user pointed rewardsim (issue 55). net/http
// would follow one, keeping custom headers, and re-send the body on a 307
// or 308.
package outbound

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxRedirects is net/http's own bound on a chain within one origin.
const maxRedirects = 10

// OtherOriginError is a redirect refused because it leaves the origin
// the first request was sent to.
type OtherOriginError struct {
	From, To string // origins: scheme://host:port
}

func (e *OtherOriginError) Error() string {
	return fmt.Sprintf("refused to follow a redirect from %s to %s: another origin, where rewardsim sends no credentials and no signed body", e.From, e.To)
}

// SameOrigin is an http.Client CheckRedirect: a redirect within the
// origin of the first request is followed (at most 10, as net/http
// does), one to another origin is an *OtherOriginError.
func SameOrigin(req *http.Request, via []*http.Request) error {
	if from, to := Origin(via[0].URL), Origin(req.URL); from != to {
		return &OtherOriginError{From: from, To: to}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// Never is an http.Client CheckRedirect that follows no redirect: the
// 3xx is the answer (a proxy hands it back, a replay compares it, a
// webhook attempt records it).
func Never(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Client is an http.Client with timeout (0: none) that follows
// redirects within one origin only (SameOrigin).
func Client(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, CheckRedirect: SameOrigin}
}

// Origin is u's scheme://host:port, lower case, with the scheme's
// default port written out, so http://a and http://A:80 are one origin.
func Origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
