package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// entriesSource reads es, as a journal Scan would.
func entriesSource(es []journal.Entry) Source {
	return func(fn func(journal.Entry) bool) error {
		for _, e := range es {
			if !fn(e) {
				break
			}
		}
		return nil
	}
}

// renumber gives es journal sequence numbers from 1.
func renumber(es []journal.Entry) []journal.Entry {
	for i := range es {
		es[i].Seq = uint64(i + 1)
	}
	return es
}

// clause: SIM-4
// Issue 23: Stream writes, from two reads, the bytes Build's recording
// writes from the entries in memory: captures of tokens, ids, URLs and
// envelope payloads, a value handed out twice (the later answer is the
// one captured), webhook pushes and their retries, an empty selection.
func TestStream_writesWhatBuildWrites(t *testing.T) {
	flow := recordEntries(t, newFake(t))
	ev := `{"channelName":"DEMOBANK","offerId":"O1","eventType":"COUPON_INVALIDATED","reason":"OUT_OF_STOCK","referenceId":"R1"}`
	push := journal.Entry{Kind: journal.KindWebhook, Method: http.MethodPost, Path: "http://pub.test/hook", Channel: "DEMOBANK",
		Status: 200, Request: journal.Message{Body: json.RawMessage(ev)}}
	b := journal.NewBuilder(secrets.New())
	handout := func(token string) journal.Entry {
		return *b.Build(&journal.Exchange{Method: "POST", Path: "/api/GetAuthToken", RequestBody: []byte(`{}`),
			ResponseBody: []byte(`{"token":"` + token + `","sessionId":"` + token + `"}`), Status: 200, Listener: "all"})
	}
	uses := *b.Build(&journal.Exchange{Method: "GET", Path: "/microsite", Query: "sessionId=T1",
		RequestHeader: http.Header{"Authorization": {"Bearer T1"}}, Status: 200, Listener: "bank"})
	for _, c := range []struct {
		name string
		es   []journal.Entry
	}{
		{"the fake flow", flow},
		{"the flow with pushes between", append(append([]journal.Entry{push}, flow[:3]...), append([]journal.Entry{push, push}, flow[3:]...)...)},
		{"a value handed out twice", []journal.Entry{handout("T1"), uses, handout("T1"), uses, handout("T2")}},
		{"nothing", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			es := renumber(append([]journal.Entry(nil), c.es...))
			o := BuildOptions{Name: c.name, Description: "<a & b>"}
			if len(es) > 0 {
				o.RecordedAt = es[0].At
			}
			var want bytes.Buffer
			if _, err := Build(es, o).WriteTo(&want); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			n, err := Stream(&got, entriesSource(es), BuildOptions{Name: o.Name, Description: o.Description}, nil)
			if err != nil || n != int64(got.Len()) {
				t.Fatalf("Stream: %d bytes, %v", n, err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("Stream wrote\n%s\nBuild writes\n%s", got.Bytes(), want.Bytes())
			}
		})
	}
}

// clause: SIM-4
// The journal changes between Stream's reads: its oldest entries pruned
// and new ones appended, or one from the middle dropped (a channel's
// reset) so an earlier answer than the one the first read saw used hands
// the value out. The recording still holds a capture for every
// placeholder, and nothing after the first read's last entry.
func TestStream_journalChangingBetweenReadsStillReplayable(t *testing.T) {
	f := newFake(t)
	flows := renumber(append(recordEntries(t, f), recordEntries(t, f)...))
	b := journal.NewBuilder(secrets.New())
	handout := *b.Build(&journal.Exchange{Method: "POST", Path: "/api/GetAuthToken", RequestBody: []byte(`{}`),
		ResponseBody: []byte(`{"token":"T1"}`), Status: 200, Listener: "all"})
	uses := *b.Build(&journal.Exchange{Method: "GET", Path: "/api/x", RequestHeader: http.Header{"Authorization": {"Bearer T1"}}, Status: 200, Listener: "all"})
	twice := renumber([]journal.Entry{handout, handout, uses})
	for _, c := range []struct {
		name          string
		first, second []journal.Entry
		steps         int
	}{
		{"pruned and appended", flows[:9], flows[2:], 7},
		{"the later of two hand-outs dropped", twice, []journal.Entry{twice[0], twice[2]}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			reads := 0
			src := func(fn func(journal.Entry) bool) error {
				reads++
				if reads == 2 {
					return entriesSource(c.second)(fn)
				}
				return entriesSource(c.first)(fn)
			}
			var got bytes.Buffer
			if _, err := Stream(&got, src, BuildOptions{Name: "moving"}, nil); err != nil {
				t.Fatal(err)
			}
			r, err := recfile.Parse(got.Bytes(), nil)
			if err != nil {
				t.Fatalf("%v\n%s", err, got.Bytes())
			}
			if len(r.Steps) != c.steps {
				t.Fatalf("%d steps, want %d", len(r.Steps), c.steps)
			}
			captured := map[string]bool{}
			ref := regexp.MustCompile(`\$\{([^}]+)\}`)
			for _, st := range r.Steps {
				raw, _ := json.Marshal(st)
				for _, m := range ref.FindAllSubmatch(raw, -1) {
					if !captured[string(m[1])] {
						t.Errorf("step %s uses ${%s}, which no earlier step captures\n%s", st.ID, m[1], got.Bytes())
					}
				}
				for _, c := range st.Captures {
					captured[c.Name] = true
				}
			}
		})
	}
}

// clause: SIM-4
// A first read that fails writes nothing, so the caller can still answer
// with an error.
func TestStream_failedFirstReadWritesNothing(t *testing.T) {
	boom := errors.New("journal closed")
	var got bytes.Buffer
	_, err := Stream(&got, func(func(journal.Entry) bool) error { return boom }, BuildOptions{Name: "x"}, nil)
	if !errors.Is(err, boom) || got.Len() != 0 {
		t.Fatalf("err %v, wrote %q", err, got.Bytes())
	}
}
