package webhook

import (
	"strings"
	"testing"
)

// The fair queue takes channels in turn and holds each to an equal share
// of the workers among the channels with work, never all of them.
func TestFairQueue_turnsAndShares(t *testing.T) {
	var q fairQueue
	for range 10 {
		q.push(job{d: due{channel: "A"}})
	}
	q.push(job{d: due{channel: "B"}})
	q.push(job{d: due{channel: "B"}})
	var got []string
	for {
		j, ok := q.take()
		if !ok {
			break
		}
		got = append(got, j.d.channel)
	}
	if want := "A B A B A A"; strings.Join(got, " ") != want {
		t.Fatalf("two channels: took %q, want %q (4 workers each at most)", strings.Join(got, " "), want)
	}
	q.done("B")
	q.done("B")
	got = got[:0]
	for {
		j, ok := q.take()
		if !ok {
			break
		}
		got = append(got, j.d.channel)
	}
	if want := "A A A"; strings.Join(got, " ") != want {
		t.Fatalf("A alone: took %q more, want %q (7 of 8 workers at most)", strings.Join(got, " "), want)
	}
}
