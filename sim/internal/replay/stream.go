package replay

import (
	"io"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
)

// Source reads a selection of the journal, afresh on each call: fn gets
// every entry in journal order until it returns false (journal.Scan
// with a filter, say).
type Source func(fn func(journal.Entry) bool) error

// Stream writes to w the bytes Build's recording of src's entries
// writes, holding one entry at a time rather than every step (issue 23).
// A step's captures are known only once later steps are read, so src is
// read twice: the first read learns which handed-out values later steps
// use (an index of digests, a few dozen bytes a value: no body is kept),
// the second makes each step again and writes it with its captures.
//
// The head's RecordedAt is the first entry's time; complete, when not
// nil, is called with the head after the first read, before anything is
// written, to add what that read taught the caller (Against). An error
// of the first read is returned with nothing written.
//
// The journal may change between the reads (new entries, the oldest
// pruned): the second read stops after the last entry of the first, and
// substitutes only values the first read saw used, so every placeholder
// written has its capture.
func Stream(w io.Writer, src Source, o BuildOptions, complete func(*recfile.Recording)) (int64, error) {
	used := map[useKey]bool{}
	var last uint64
	seen := false
	b := newStepper(o, stepperUse(used, false))
	b.indexOnly = true
	err := src(func(e journal.Entry) bool {
		if !seen {
			o.RecordedAt, seen = e.At, true
		}
		last = e.Seq
		b.next(&e)
		return true
	})
	if err != nil {
		return 0, err
	}
	b = nil // the first read's indexes are garbage before the second read
	head := &recfile.Recording{Version: recfile.Version, Name: o.Name, Description: o.Description, RecordedAt: o.RecordedAt, Masks: o.Masks}
	if complete != nil {
		complete(head)
	}
	sw, err := recfile.NewStepWriter(w, head)
	if err != nil {
		return sw.Written(), err
	}
	b = newStepper(o, stepperUse(used, true))
	err = src(func(e journal.Entry) bool {
		if e.Seq > last {
			return false
		}
		st, cs, ok := b.next(&e)
		if !ok {
			return true
		}
		for _, c := range cs {
			if used[useKey{c.seq, c.suffix()}] {
				st.Captures = append(st.Captures, c.capture())
			}
		}
		sortCaptures(st.Captures)
		return sw.Step(&st) == nil
	})
	if err != nil {
		return sw.Written(), err
	}
	return sw.Close() // the writer's error, if it had one

}

// stepperUse is the use of a streamed export's stepper: the first read
// notes every value used, the second (check) uses only those.
func stepperUse(used map[useKey]bool, check bool) func(*candidate) bool {
	return func(c *candidate) bool {
		k := useKey{c.seq, c.suffix()}
		if check {
			return used[k]
		}
		used[k] = true
		return true
	}
}
