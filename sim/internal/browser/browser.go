// Package browser drives Debian's headless Chromium over the DevTools
// protocol with chromedp, for rewardsim's own browser tests (the
// dashboard, the microsite, the attacker page of the CSRF test). Start
// skips the test when Chromium is absent, unless REWARDSIM_REQUIRE_BROWSER
// is set (as `make test` does after installing it), in which case it
// fails. The calls keep the shape the tests had on the former WebDriver
// client: a script for Eval is a function body reading `arguments`.
package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ChromiumPath is Debian's package chromium.
const ChromiumPath = "/usr/bin/chromium"

// Flags every session starts Chromium with, beyond chromedp's headless
// defaults: no sandbox (tests may run as root) and no background traffic
// (the machine has no network beyond loopback).
var Flags = []chromedp.ExecAllocatorOption{
	chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
	chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
	chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
	chromedp.WindowSize(1280, 900),
}

// Browser is one headless Chromium with one tab.
type Browser struct {
	t   testing.TB
	ctx context.Context
}

// Step bounds every browser action, so a wedged page fails the test
// rather than hanging it.
const Step = 30 * time.Second

// Start launches a headless Chromium; it stops when the test ends.
func Start(t testing.TB) *Browser {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if os.Getenv("REWARDSIM_REQUIRE_BROWSER") != "" {
			t.Fatalf("browser tests need %s (make test installs Debian's chromium)", ChromiumPath)
		}
		t.Skipf("%s is not installed; `make test` installs it (apt-get install chromium)", ChromiumPath)
	}
	// Chromium puts its singleton socket in a folder of its own under
	// TMPDIR and leaves it when it is killed (as the test's end kills it):
	// a run left a dozen /tmp/org.chromium.Chromium.* folders. A short
	// folder of ours (a socket's path is at most 107 bytes, too few for
	// t.TempDir's), removed once the browser is gone.
	tmp, err := os.MkdirTemp("", "chromium")
	if err != nil {
		t.Fatal(err)
	}
	opts := append([]chromedp.ExecAllocatorOption{chromedp.ExecPath(ChromiumPath), chromedp.Headless,
		chromedp.UserDataDir(t.TempDir()), chromedp.Env("TMPDIR=" + tmp)}, Flags...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc(); _ = os.RemoveAll(tmp) })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start %s: %v", ChromiumPath, err)
	}
	return &Browser{t: t, ctx: ctx}
}

// run runs actions within Step.
func (b *Browser) run(actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(b.ctx, Step)
	defer cancel()
	return chromedp.Do(ctx, actions...)
}

// Open navigates to url and waits for the page to load.
func (b *Browser) Open(url string) {
	b.t.Helper()
	if err := b.run(chromedp.Navigate(url)); err != nil {
		b.t.Fatalf("open %s: %v", url, err)
	}
}

// ErrNoSuchElement is Find's error when nothing matches.
var ErrNoSuchElement = errors.New("no such element")

// IsNoSuchElement reports whether err means the element was not found.
func IsNoSuchElement(err error) bool { return errors.Is(err, ErrNoSuchElement) }

// Element is the first element matching a CSS selector.
type Element struct {
	b   *Browser
	css string
}

// Find returns the first element matching a CSS selector, or an error.
func (b *Browser) Find(css string) (*Element, error) {
	var n int
	if err := b.eval(`return document.querySelectorAll(arguments[0]).length;`, &n, css); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%q: %w", css, ErrNoSuchElement)
	}
	return &Element{b: b, css: css}, nil
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
	var n int
	b.Eval(`return document.querySelectorAll(arguments[0]).length;`, &n, css)
	return n
}

// Click clicks the element as a user would: scrolled into view, a mouse
// press and release at its centre.
func (e *Element) Click() {
	e.b.t.Helper()
	var err error
	// A page that swaps its own DOM (the dashboard's live refresh) can
	// replace the node between finding and clicking it: find it afresh.
	for range 5 {
		if err = e.b.run(chromedp.Click(chromedp.CSS(e.css))); err == nil || !strings.Contains(err.Error(), "node") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		e.b.t.Fatalf("click %q: %v", e.css, err)
	}
}

// Text is the element's rendered text (an SVG element's text content).
func (e *Element) Text() string {
	e.b.t.Helper()
	var s string
	e.b.Eval(`var el = document.querySelector(arguments[0]); return el.innerText !== undefined ? el.innerText : el.textContent;`, &s, e.css)
	return s
}

// SetValue sets an input's or a select's value, as typing or choosing would.
func (e *Element) SetValue(v string) {
	e.b.t.Helper()
	e.b.Eval(`var el = document.querySelector(arguments[0]); el.focus(); el.value = arguments[1];
el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true}));`, nil, e.css, v)
}

// eval runs script as the body of a function called with args (JSON
// values) and decodes its return value into out (nil ignores it).
func (b *Browser) eval(script string, out any, args ...any) error {
	if args == nil {
		args = []any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	expr := "(function () {\n" + script + "\n}).apply(null, " + string(raw) + ")"
	ctx, cancel := context.WithTimeout(b.ctx, Step)
	defer cancel()
	// []byte: the result's JSON as the browser gave it (undefined: none).
	res, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr))
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if out == nil || len(res) == 0 {
		return nil
	}
	return json.Unmarshal(res, out)
}

// Eval runs a script in the page (a function body: `arguments` holds
// args, `return` gives the value) and decodes its return value into out.
func (b *Browser) Eval(script string, out any, args ...any) {
	b.t.Helper()
	if err := b.eval(script, out, args...); err != nil {
		b.t.Fatalf("%v\n%s", err, firstLines(script))
	}
}

func firstLines(s string) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", 4)
	return strings.Join(lines[:min(3, len(lines))], "\n")
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

// Screenshot saves a PNG of the viewport to dir/name.png and returns its path.
func (b *Browser) Screenshot(dir, name string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, Step)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot: %v", err)
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

// Resize lays the page out at width x height CSS pixels.
func (b *Browser) Resize(width, height int) {
	b.t.Helper()
	if err := b.run(chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		b.t.Fatalf("resize to %dx%d: %v", width, height, err)
	}
}
