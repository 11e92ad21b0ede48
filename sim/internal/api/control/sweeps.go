package control

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/dashboard"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// Sweeps keeps the last sweep a `rewardsim sweep --control` reported
// (its sweep.json), in memory only, for the dashboard to show.
type Sweeps struct {
	Schemas *schema.Set
	// Page renders a sweep.json as HTML (the sweep package's page).
	Page func(w io.Writer, sweepJSON []byte) error
	mu   sync.Mutex
	last []byte
}

// PutLast is POST /__sim/sweeps/last: a sweep.json (schemas/sweep.json)
// replaces the last one.
func (s *Sweeps) PutLast(c echo.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if err := s.Schemas.ValidateJSON("sweep", body); err != nil {
		return badBody("body does not match schemas/sweep.json: ", err)
	}
	s.mu.Lock()
	s.last = body
	s.mu.Unlock()
	return c.NoContent(http.StatusNoContent)
}

// Last is GET /__sim/sweeps/last: the last sweep reported, or 404.
func (s *Sweeps) Last(c echo.Context) error {
	last, err := s.lastOne()
	if err != nil {
		return err
	}
	return c.JSONBlob(http.StatusOK, last)
}

// LastHTML is GET /__sim/sweeps/last.html: its matrix as a page, for the
// dashboard to show or link.
func (s *Sweeps) LastHTML(c echo.Context) error {
	last, err := s.lastOne()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := s.Page(&b, last); err != nil {
		return internal(err)
	}
	return c.HTMLBlob(http.StatusOK, b.Bytes())
}

// summary is the last sweep as the dashboard shows it; nil before one
// reported.
func (s *Sweeps) summary() *dashboard.LastSweep {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	var doc struct {
		Started string         `json:"started"`
		Command []string       `json:"command"`
		Totals  map[string]int `json:"totals"`
		Failed  bool           `json:"failed"`
	}
	if last == nil || json.Unmarshal(last, &doc) != nil {
		return nil
	}
	out := &dashboard.LastSweep{Started: doc.Started, Command: strings.Join(doc.Command, " "), Failed: doc.Failed}
	for _, g := range gradeOrder {
		if n := doc.Totals[g]; n > 0 {
			out.Totals = append(out.Totals, dashboard.GradeCount{Grade: g, Rows: n})
		}
	}
	return out
}

// gradeOrder is schemas/sweep.json's grades, worst last.
var gradeOrder = []string{"not-reached", "handled", "surfaced", "timed-out", "unsafe"}

func (s *Sweeps) lastOne() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		return nil, fail(http.StatusNotFound, "no sweep has reported to this simulator yet (rewardsim sweep --control reports its sweep.json here)")
	}
	return s.last, nil
}
