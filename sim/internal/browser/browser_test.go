package browser_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/browser"
)

// The driver itself works against a page with a little JavaScript.
func TestDriver(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><title>t</title><button id=b onclick="setTimeout(function(){var p=document.createElement('p');p.id='done';p.textContent='clicked';document.body.appendChild(p)},100)">go</button>`))
	}))
	defer srv.Close()
	b := browser.Start(t)
	b.Open(srv.URL)
	b.MustFind("#b").Click()
	if got := b.WaitFor("#done", 5*time.Second).Text(); got != "clicked" {
		t.Fatalf("text = %q", got)
	}
	var title string
	b.Eval("return document.title", &title)
	if title != "t" {
		t.Fatalf("title = %q", title)
	}
	if _, err := b.Find("#absent"); !browser.IsNoSuchElement(err) {
		t.Fatalf("absent element: %v", err)
	}
	path := b.Screenshot(t.TempDir(), "driver")
	png, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(png), "\x89PNG") {
		t.Fatal("screenshot is not a PNG")
	}
}
