package sim_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/browser"
	"github.com/rewardsim/rewardsim/sim/internal/golden"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// screenshotDir holds the browser tests' screenshots (gitignored artefacts).
var screenshotDir = filepath.Join(golden.FixturesDir(), "artifacts", "screenshots")

// session is a fresh GenerateSessionInfoV2 sessionId for vid.
func (e *cardEnv) session(vid string) string {
	e.t.Helper()
	s, err := e.s.Client.Session(e.ctx, vid)
	if err != nil {
		e.t.Fatalf("session: %v", err)
	}
	return s.SessionID
}

// micrositeURL is the hosted microsite for a sessionId and virtualId pair.
func (e *cardEnv) micrositeURL(sessionID, vid string, extra ...string) string {
	q := url.Values{"sessionId": {sessionID}, "virtualId": {vid}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return e.s.BankURL + "/microsite?" + q.Encode()
}

// get fetches a page of the bank host.
func (e *cardEnv) get(u string) (*http.Response, string) {
	e.t.Helper()
	res, err := e.s.HTTP.Get(u)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res, string(raw)
}

// post sends a JSON body and decodes a JSON answer of any status into out.
func (e *cardEnv) post(u string, body, out any) *http.Response {
	e.t.Helper()
	res, data := e.postBytes(u, body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			e.t.Fatalf("POST %s: HTTP %d: %v: %s", u, res.StatusCode, err, data)
		}
	}
	return res
}

// postBytes sends a JSON body through the validating client and returns the answer.
func (e *cardEnv) postBytes(u string, body any) (*http.Response, []byte) {
	e.t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := e.s.HTTP.Post(u, "application/json", strings.NewReader(string(raw)))
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, data
}

// isBlank reports whether a page is the blank initial screen (SESS-2).
func isBlank(page string) bool {
	return strings.Contains(page, `data-state="blank"`) && !strings.Contains(page, "tile")
}

// tracking is GET /__sim/tracking of one card.
type tracking struct {
	Impressions, Clicks int
	Events              []struct{ Kind, Source string }
}

func (e *cardEnv) tracking(id uint64) tracking {
	e.t.Helper()
	var tr tracking
	if code := e.control(fmt.Sprintf("/__sim/tracking?rewardId=%d", id), &tr); code != http.StatusOK {
		e.t.Fatalf("tracking of %d: HTTP %d", id, code)
	}
	return tr
}

// fakeBridges installs the app-side reveal callbacks a webview app would
// expose: the Android bridge object RewardsimAndroid and the iOS message
// handler of the given name.
func fakeBridges(iosHandler string) string {
	return `
window.__android = []; window.__ios = [];
window.RewardsimAndroid = {onReveal: function (s) { window.__android.push(s); }};
window.webkit = {messageHandlers: {` + iosHandler + `: {postMessage: function (m) { window.__ios.push(m); }}}};
`
}

// callbacks reads what the fake bridges received.
func callbacks(t *testing.T, b *browser.Browser) (android []string, ios []map[string]any) {
	t.Helper()
	b.Eval(`return window.__android || []`, &android)
	b.Eval(`return window.__ios || []`, &ios)
	return android, ios
}

var schemaSet *schema.Set

func schemasForTest(t *testing.T) *schema.Set {
	t.Helper()
	if schemaSet == nil {
		s, err := schema.Compile(schemas.FS)
		if err != nil {
			t.Fatal(err)
		}
		schemaSet = s
	}
	return schemaSet
}
