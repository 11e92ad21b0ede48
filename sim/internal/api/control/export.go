package control

import (
	"encoding/json"
	"net/url"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
)

// channelSlice keeps the entries of one channel (name or CHANNELID) for
// an export: those that name it, and the calls that name no channel but
// belong to its sessions and cards: the microsite page and its reveal
// (by a sessionId one of its answers handed out) and the tracking and
// redirect GETs (by their channel query parameter or a URL its answers
// handed out). Without them a replay of a microsite flow would miss steps.
func channelSlice(es []journal.Entry, channel string) []journal.Entry {
	sessions, urls := map[string]bool{}, map[string]bool{}
	mine := func(e *journal.Entry) bool { return e.Channel == channel || e.ChannelID == channel }
	for i := range es {
		if e := &es[i]; mine(e) {
			for _, raw := range [][]byte{e.Response.Body, e.Response.BDATA, e.Request.Body, e.Request.BDATA} {
				collect(raw, sessions, urls)
			}
		}
	}
	out := make([]journal.Entry, 0, len(es))
	for i := range es {
		e := &es[i]
		if mine(e) || (e.Channel == "" && e.ChannelID == "" && belongs(e, channel, sessions, urls)) {
			out = append(out, *e)
			collect(e.Request.Body, sessions, nil) // a page's reveal names the session again
		}
	}
	return out
}

// belongs: a channel-less call of the channel's sessions or cards.
func belongs(e *journal.Entry, channel string, sessions, urls map[string]bool) bool {
	q, _ := url.ParseQuery(e.Query)
	if q.Get("channel") == channel || sessions[q.Get("sessionId")] || urls[e.Path+"?"+e.Query] {
		return true
	}
	var b struct {
		SessionID string `json:"sessionId"`
	}
	return len(e.Request.Body) > 0 && json.Unmarshal(e.Request.Body, &b) == nil && b.SessionID != "" && sessions[b.SessionID]
}

// collect notes the sessionIds and the URLs (path and query) a JSON
// document holds, at any depth.
func collect(raw []byte, sessions, urls map[string]bool) {
	if len(raw) == 0 {
		return
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(k, c)
			}
		case []any:
			for _, c := range x {
				walk(key, c)
			}
		case string:
			if key == "sessionId" && x != "" {
				sessions[x] = true
			}
			if u, err := url.Parse(x); urls != nil && err == nil && u.Scheme != "" && u.Host != "" {
				urls[u.Path+"?"+u.RawQuery] = true
				if s := u.Query().Get("sessionId"); s != "" {
					sessions[s] = true
				}
			}
		}
	}
	walk("", v)
}
