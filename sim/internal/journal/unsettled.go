package journal

import (
	"context"
	"fmt"
	"time"
)

// SettleWait bounds how long Settle waits for an exchange whose answer is
// still being written. A client that stops reading (a socket that
// pipelined requests and reads nothing) keeps its answer unwritten until
// the write timeout; without this bound every verify and journal read, on
// every channel, waited with it.
const SettleWait = 2 * time.Second

// Unsettled is the exchange Settle gave up waiting for: its answer had
// started but not been written out SettleWait later. Readers answer
// without it and say so.
type Unsettled struct {
	Seq  uint64 `json:"seq"`
	Note string `json:"note"`
}

func (u *Unsettled) Error() string { return u.Note }

// unsettled stores what was queued (within parent's own deadline) and
// names the exchange seq that was still unwritten; parent's own end wins.
func unsettled(parent context.Context, j *Journal, seq uint64) error {
	if err := parent.Err(); err != nil {
		return err
	}
	if err := j.Flush(parent); err != nil {
		return err
	}
	return &Unsettled{Seq: seq, Note: fmt.Sprintf(
		"gave up after %v waiting for exchange %d (%s %d), whose answer its client has not read: it is not counted here",
		SettleWait, seq, SeqHeader, seq)}
}
