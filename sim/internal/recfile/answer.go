package recfile

import (
	"net/http"
	"time"
)

// Answer is one answer the record proxy passed on, as a reader of the
// recorded service's switches needs it (calibrate.ReadAnswers): the
// recording wing hands these out and does not read them itself, so it
// needs no calibrate.
type Answer struct {
	// Op is the contract operation's name (GetReward, ...).
	Op, Method, URL string
	Status          int
	Header          http.Header
	Body            []byte
	At              time.Time
}
