package control

import (
	"crypto/sha256"
	"encoding/json"
	"maps"
	"net/url"

	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/replay"
)

// channelSlice selects the entries of one channel (name or CHANNELID)
// for an export: those that name it, and the calls that name no channel
// but belong to its sessions and cards: the microsite page and its
// reveal (by a sessionId one of its answers handed out) and the tracking
// and redirect GETs (by their channel query parameter or a URL its
// answers handed out). Without them a replay of a microsite flow would
// miss steps. Those are known only once every entry of the channel is
// read: learnChannel reads the journal once for them, keeping only the
// sessionIds and URLs.
type channelSlice struct {
	channel        string
	sessions, urls map[digest]bool
}

// digest stands for a sessionId or URL in channelSlice's sets, so they
// cost the same whatever the values' length.
type digest [16]byte

func digestOf(s string) digest {
	sum := sha256.Sum256([]byte(s))
	return digest(sum[:16])
}

func (s *channelSlice) mine(e *journal.Entry) bool {
	return e.Channel == s.channel || e.ChannelID == s.channel
}

// learnChannel reads the sessionIds and URLs of channel's entries.
func learnChannel(read replay.Source, channel string) (*channelSlice, error) {
	s := &channelSlice{channel: channel, sessions: map[digest]bool{}, urls: map[digest]bool{}}
	err := read(func(e journal.Entry) bool {
		if s.mine(&e) {
			for _, raw := range [][]byte{e.Response.Body, e.Response.BDATA, e.Request.Body, e.Request.BDATA} {
				collect(raw, s.sessions, s.urls)
			}
		}
		return true
	})
	return s, err
}

// source is read narrowed to the channel's entries. Each read starts
// from what learnChannel learnt: a kept call's body may name a session
// again (a page's reveal), which later calls then belong to.
func (s *channelSlice) source(read replay.Source) replay.Source {
	return func(fn func(journal.Entry) bool) error {
		sessions := maps.Clone(s.sessions)
		return read(func(e journal.Entry) bool {
			if s.mine(&e) || (e.Channel == "" && e.ChannelID == "" && belongs(&e, s.channel, sessions, s.urls)) {
				collect(e.Request.Body, sessions, nil)
				return fn(e)
			}
			return true
		})
	}
}

// belongs: a channel-less call of the channel's sessions or cards.
func belongs(e *journal.Entry, channel string, sessions, urls map[digest]bool) bool {
	q, _ := url.ParseQuery(e.Query)
	if q.Get("channel") == channel || sessions[digestOf(q.Get("sessionId"))] || urls[digestOf(e.Path+"?"+e.Query)] {
		return true
	}
	var b struct {
		SessionID string `json:"sessionId"`
	}
	return len(e.Request.Body) > 0 && json.Unmarshal(e.Request.Body, &b) == nil && b.SessionID != "" && sessions[digestOf(b.SessionID)]
}

// collect notes the sessionIds and the URLs (path and query) a JSON
// document holds, at any depth.
func collect(raw []byte, sessions, urls map[digest]bool) {
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
				sessions[digestOf(x)] = true
			}
			if u, err := url.Parse(x); urls != nil && err == nil && u.Scheme != "" && u.Host != "" {
				urls[digestOf(u.Path+"?"+u.RawQuery)] = true
				if s := u.Query().Get("sessionId"); s != "" {
					sessions[digestOf(s)] = true
				}
			}
		}
	}
	walk("", v)
}
