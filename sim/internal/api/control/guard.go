package control

import (
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/labstack/echo/v4"
)

// Guard keeps web pages from driving the control API (CSRF) and
// DNS-rebound names from reaching it at all. It runs before the token
// check, on every control route:
//
//   - Host must be an IP literal, localhost (or *.localhost), a
//     single-label name (rewardsim, the name compose, GitLab services:
//     and Kubernetes give a container), this machine's own host name, or
//     one of allowedHosts. A rebinding attack always carries the
//     attacker's own name in Host, and that name is one the attacker can
//     answer for in public DNS: a name under a registered domain, so with
//     a dot. IP literals, single labels (resolved only by hosts files,
//     container DNS and search domains, none of them the attacker's) and
//     the machine's own name are safe to accept.
//   - A write (any method but GET, HEAD, OPTIONS) is refused when the
//     browser says it is cross-origin: Sec-Fetch-Site other than
//     same-origin or none, or an Origin whose host is not Host.
//   - A write's body must be JSON or YAML: those types are not
//     CORS-safelisted, so a page cannot send them without a preflight,
//     which this API never answers with CORS permission. text/plain, form
//     and multipart bodies, and a body with no type, are refused.
func Guard(allowedHosts []string) echo.MiddlewareFunc {
	allowed := map[string]bool{}
	if own, err := os.Hostname(); err == nil {
		allowedHosts = append([]string{own}, allowedHosts...)
	}
	for _, h := range allowedHosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			allowed[h] = true
		}
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if !hostAllowed(req.Host, allowed) {
				return fail(http.StatusForbidden, "host %q is not loopback, an IP address, a single-label name, this machine's name or one of control-allowed-hosts", req.Host)
			}
			switch req.Method {
			case http.MethodGet, http.MethodHead, http.MethodOptions:
				return next(c)
			}
			if site := req.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
				return fail(http.StatusForbidden, "cross-origin control writes are refused (Sec-Fetch-Site: %s)", site)
			}
			if o := req.Header.Get("Origin"); o != "" && !sameOrigin(o, req.Host) {
				return fail(http.StatusForbidden, "cross-origin control writes are refused (Origin %s)", o)
			}
			ct := req.Header.Get(echo.HeaderContentType)
			hasBody := req.ContentLength != 0 && req.Body != nil && req.Body != http.NoBody
			if ct == "" && !hasBody {
				return next(c) // curl -X POST with no body: nothing a form can send
			}
			if !writeType(ct) {
				return fail(http.StatusUnsupportedMediaType, "control writes take Content-Type application/json or application/yaml, not %q", ct)
			}
			return next(c)
		}
	}
}

// writeType reports whether a control write may carry this content type.
func writeType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	switch mt {
	case "application/json", "application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml":
		return true
	}
	return strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
}

func hostAllowed(hostport string, allowed map[string]bool) bool {
	if hostport == "" {
		return true // HTTP/1.0 without Host: not a browser
	}
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if net.ParseIP(h) != nil || h == "localhost" || strings.HasSuffix(h, ".localhost") || singleLabel(h) {
		return true
	}
	return allowed[h] || allowed[strings.ToLower(hostport)]
}

// singleLabel reports whether h is one DNS label: a service or container
// name, never a name in a public domain.
func singleLabel(h string) bool {
	if h == "" || len(h) > 63 {
		return false
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false // includes "null", the origin of sandboxed and file pages
	}
	return strings.EqualFold(u.Host, host)
}
