package control

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// MaxHeavyReaders bounds the control calls that read the whole journal
// (recording export, report, dashboard, diagram) running at once. Each
// reads a page at a time now, so memory no longer sets the bound (8
// parallel exports once reached 2 GB, issue 23); decoding the whole
// selection is CPU-bound, and one at a time leaves the other core of a
// small runner to the publisher's calls.
const MaxHeavyReaders = 1

// heavyWait is how long a heavy call waits for a free slot before it is
// refused with 429 and Retry-After.
const heavyWait = 2 * time.Second

// Heavy runs next under the heavy readers' bound.
func (a *API) Heavy(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		t := time.NewTimer(heavyWait)
		defer t.Stop()
		select {
		case a.heavy <- struct{}{}:
		case <-t.C:
			c.Response().Header().Set("Retry-After", "2")
			return fail(http.StatusTooManyRequests, "%d journal readers (recording, report, dashboard, diagram) are running, the maximum; retry shortly", MaxHeavyReaders)
		case <-c.Request().Context().Done():
			return c.Request().Context().Err()
		}
		defer func() { <-a.heavy }()
		return next(c)
	}
}
