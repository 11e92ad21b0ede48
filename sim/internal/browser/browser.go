// Package browser drives Debian's headless Chromium through chromedriver's
// W3C WebDriver API (plain HTTP and JSON, so no dependency beyond the
// standard library). It is test infrastructure: Start skips the test when
// Chromium is absent, unless REWARDSIM_REQUIRE_BROWSER is set (as `make
// test` does after installing it), in which case it fails.
package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Paths of Debian's packages chromium and chromium-driver.
const (
	ChromiumPath     = "/usr/bin/chromium"
	ChromedriverPath = "/usr/bin/chromedriver"
)

// Flags every session starts Chromium with: headless, and no background
// traffic (the machine has no network beyond loopback).
var Flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-quic", "--window-size=1280,900",
}

// Browser is one WebDriver session.
type Browser struct {
	t       testing.TB
	base    string // chromedriver URL
	session string
	http    *http.Client
}

const elementKey = "element-6066-11e4-a52e-4f735466cecf"

// Start launches chromedriver and a headless Chromium session; both stop
// when the test ends.
func Start(t testing.TB) *Browser {
	t.Helper()
	for _, p := range []string{ChromiumPath, ChromedriverPath} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("REWARDSIM_REQUIRE_BROWSER") != "" {
				t.Fatalf("browser tests need %s (make test installs Debian's chromium and chromium-driver)", p)
			}
			t.Skipf("%s is not installed; `make test` installs it (apt-get install chromium chromium-driver)", p)
		}
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd := exec.Command(ChromedriverPath, "--port="+strconv.Itoa(port), "--allowed-ips=127.0.0.1")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("chromedriver: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	b := &Browser{t: t, base: "http://127.0.0.1:" + strconv.Itoa(port), http: &http.Client{Timeout: 60 * time.Second}}
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := b.http.Get(b.base + "/status")
		if err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("chromedriver did not start: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	args := append([]string{"--user-data-dir=" + t.TempDir()}, Flags...)
	var created struct {
		SessionID string `json:"sessionId"`
	}
	err = b.call(http.MethodPost, "/session", map[string]any{
		"capabilities": map[string]any{"alwaysMatch": map[string]any{
			"browserName":        "chrome",
			"goog:chromeOptions": map[string]any{"binary": ChromiumPath, "args": args},
		}},
	}, &created)
	if err != nil {
		t.Fatalf("new session: %v\n%s", err, logs.String())
	}
	b.session = created.SessionID
	t.Cleanup(func() { _ = b.call(http.MethodDelete, "/session/"+b.session, nil, nil) })
	return b
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// call sends one WebDriver command and decodes its "value" into out.
func (b *Browser) call(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, b.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := b.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	raw, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("%s %s: %s", method, path, raw)
	}
	if res.StatusCode != http.StatusOK {
		var werr struct{ Error, Message string }
		_ = json.Unmarshal(env.Value, &werr)
		return &Error{Code: werr.Error, Message: werr.Message}
	}
	if out != nil {
		return json.Unmarshal(env.Value, out)
	}
	return nil
}

// Error is a WebDriver error.
type Error struct{ Code, Message string }

func (e *Error) Error() string { return "webdriver: " + e.Code + ": " + e.Message }

// IsNoSuchElement reports whether err means the element was not found.
func IsNoSuchElement(err error) bool {
	var we *Error
	return errors.As(err, &we) && we.Code == "no such element"
}

// Open navigates to url and waits for the page to load.
func (b *Browser) Open(url string) {
	b.t.Helper()
	if err := b.call(http.MethodPost, "/session/"+b.session+"/url", map[string]string{"url": url}, nil); err != nil {
		b.t.Fatalf("open %s: %v", url, err)
	}
}

// Element is a found element.
type Element struct {
	b  *Browser
	id string
}

// Find returns the first element matching a CSS selector, or an error.
func (b *Browser) Find(css string) (*Element, error) {
	var ref map[string]string
	if err := b.call(http.MethodPost, "/session/"+b.session+"/element", map[string]string{"using": "css selector", "value": css}, &ref); err != nil {
		return nil, err
	}
	return &Element{b: b, id: ref[elementKey]}, nil
}

// MustFind is Find that fails the test.
func (b *Browser) MustFind(css string) *Element {
	b.t.Helper()
	el, err := b.Find(css)
	if err != nil {
		b.t.Fatalf("find %q: %v", css, err)
	}
	return el
}

// Count returns how many elements match a CSS selector.
func (b *Browser) Count(css string) int {
	b.t.Helper()
	var refs []map[string]string
	if err := b.call(http.MethodPost, "/session/"+b.session+"/elements", map[string]string{"using": "css selector", "value": css}, &refs); err != nil {
		b.t.Fatalf("find all %q: %v", css, err)
	}
	return len(refs)
}

// Click clicks the element.
func (e *Element) Click() {
	e.b.t.Helper()
	if err := e.b.call(http.MethodPost, "/session/"+e.b.session+"/element/"+e.id+"/click", map[string]any{}, nil); err != nil {
		e.b.t.Fatalf("click: %v", err)
	}
}

// Text is the element's rendered text.
func (e *Element) Text() string {
	e.b.t.Helper()
	var s string
	if err := e.b.call(http.MethodGet, "/session/"+e.b.session+"/element/"+e.id+"/text", nil, &s); err != nil {
		e.b.t.Fatalf("text: %v", err)
	}
	return s
}

// Eval runs a script in the page and decodes its return value into out.
func (b *Browser) Eval(script string, out any, args ...any) {
	b.t.Helper()
	if args == nil {
		args = []any{}
	}
	if err := b.call(http.MethodPost, "/session/"+b.session+"/execute/sync", map[string]any{"script": script, "args": args}, out); err != nil {
		b.t.Fatalf("eval: %v", err)
	}
}

// WaitFor polls a CSS selector until it matches or timeout passes. Browser
// pages update asynchronously, so tests wait on a condition, never sleep.
func (b *Browser) WaitFor(css string, timeout time.Duration) *Element {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		el, err := b.Find(css)
		if err == nil {
			return el
		}
		if !IsNoSuchElement(err) || time.Now().After(deadline) {
			b.t.Fatalf("wait for %q: %v", css, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Screenshot saves a PNG of the page to dir/name.png and returns its path.
func (b *Browser) Screenshot(dir, name string) string {
	b.t.Helper()
	var data string
	if err := b.call(http.MethodGet, "/session/"+b.session+"/screenshot", nil, &data); err != nil {
		b.t.Fatalf("screenshot: %v", err)
	}
	png, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	return path
}
