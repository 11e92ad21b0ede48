package fault

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Commits reports whether the action asks the endpoint to commit the
// call's effect first and then withhold the answer (CPN-4). An endpoint
// that supports it commits, then calls Withhold.
func (a Action) Commits() bool { return a.Kind == CommitThenDelay || a.Kind == CommitThenDrop }

// ErrDropped is returned by Withhold after it closed the connection: the
// handler must not write anything more.
var ErrDropped = errors.New("fault: connection dropped after commit")

// Withhold carries out a commit-then-* action after the commit: it waits
// Delay (a timer the request context cancels; never time.Sleep) and
// returns nil so the endpoint answers late, or hijacks and closes the
// connection and returns ErrDropped. A cancelled wait returns ctx.Err().
func Withhold(ctx context.Context, w http.ResponseWriter, a Action) error {
	switch a.Kind {
	case CommitThenDelay:
		return Wait(ctx, a.Delay.D())
	case CommitThenDrop:
		return Drop(w)
	}
	return nil
}

// Wait blocks for d or until ctx ends.
func Wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Drop closes the client connection without an answer. When the writer
// cannot be hijacked (HTTP/2), it aborts the handler the way net/http
// documents, which also resets the stream.
func Drop(w http.ResponseWriter) error {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
	return ErrDropped
}
