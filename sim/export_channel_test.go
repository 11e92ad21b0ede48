package sim_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/recordings"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-4, TRK-1, SESS-2
// Issue 24 item 7: an export by channel holds the channel's microsite
// page (which names no channel, only the sessionId its
// GenerateSessionInfoV2 answer handed out) and its cards' impression
// GETs (the trackLinks its answers handed out, exported as captured
// URLs), and another channel's
// export holds none of them; the export replays clean.
func TestRecording_channelExportHoldsMicrositeAndTracking(t *testing.T) {
	rec := simtest.New(t)
	ctx := context.Background()
	ref, _ := tokens(t, rec.Client)
	fireImpressions(t, rec.Client, cardsFor(t, rec.Client, ref, "VU-EXP", 1))
	sess, err := rec.Client.Session(ctx, "VU-EXP")
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"sessionId": {sess.SessionID}, "virtualId": {"VU-EXP"}}
	res, err := rec.HTTP.Get(rec.BankURL + "/microsite?" + q.Encode())
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("microsite: %v %v", res, err)
	}
	res.Body.Close()

	export := func(channel string) (paths []string, data []byte) {
		res, err := http.Get(rec.ControlURL + "/__sim/recording?name=by-channel&channel=" + channel)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		data, _ = io.ReadAll(res.Body)
		var doc struct{ Steps []struct{ Path string } }
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("export: %v %s", err, data)
		}
		for _, s := range doc.Steps {
			paths = append(paths, s.Path)
		}
		return paths, data
	}
	paths, data := export("DEMOBANK")
	all := strings.Join(paths, " ")
	if !strings.Contains(all, "/microsite") || !strings.Contains(all, "trackLink") || !strings.Contains(all, "/api/GenerateSessionInfoV2") {
		t.Fatalf("DEMOBANK's export: %v", paths)
	}
	if other, _ := export("OTHER"); len(other) != 0 {
		t.Fatalf("another channel's export: %v", other)
	}
	if res := replay(t, simtest.New(t), data, recordings.ReplayOptions{}); !res.OK() {
		t.Fatalf("replay of the channel's export:\n%s", res.Report)
	}
}
