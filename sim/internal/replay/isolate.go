package replay

import (
	"bytes"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
)

// A replay into a channel of its own: the scenario the recording was made
// against is copied with each publisher channel renamed, loaded and
// activated for the new names, the recording's requests are rewritten to
// the new names and the answers read back under the old ones. Cards,
// stock, coupon codes and tokens then start afresh for every replay, so
// one instance serves parallel replays of different recordings, and the
// same recording twice in a row once its channel state is reset.

// Isolation is a recording's own copy of a scenario.
type Isolation struct {
	// Scenario is the copy's name and YAML.
	Scenario string
	YAML     []byte
	// Channels maps each scenario channel's name to its copy's name;
	// IDs does the same for CHANNELIDs.
	Channels map[string]string
	IDs      map[string]string
}

// Isolate copies scenarioYAML for a replay of the recording named name
// (a replay passes its file and content hash, so two files never share);
// runID tells apart replays of one recording that must not share a
// channel (two pipelines on one instance). The new names are
// deterministic, so replays do not pile up scenarios on the target.
func Isolate(scenarioYAML []byte, name, runID string) (*Isolation, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(scenarioYAML, &root); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	var f struct {
		Name     string `yaml:"name"`
		Channels []struct {
			Name      string `yaml:"name"`
			ChannelID string `yaml:"channelId"`
		} `yaml:"channels"`
	}
	if err := root.Decode(&f); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if len(f.Channels) == 0 {
		return nil, fmt.Errorf("scenario %s lists no channels to copy", f.Name)
	}
	sum := sha256.Sum256([]byte(runID + "\x00" + name))
	tag := "RP" + hex.EncodeToString(sum[:4])
	iso := &Isolation{Scenario: "replay-" + tag + "-" + f.Name, Channels: map[string]string{}, IDs: map[string]string{}}
	rename := map[string]string{}
	for _, c := range f.Channels {
		iso.Channels[c.Name] = fresh(tag, c.Name)
		rename[c.Name] = iso.Channels[c.Name]
		if c.ChannelID != "" {
			iso.IDs[c.ChannelID] = fresh(tag, c.ChannelID)
			rename[c.ChannelID] = iso.IDs[c.ChannelID]
		}
	}
	renameScalars(&root, rename)
	if doc := docMap(&root); doc != nil {
		for i := 0; i+1 < len(doc.Content); i += 2 {
			switch k, v := doc.Content[i].Value, doc.Content[i+1]; k {
			case "name":
				v.Value = iso.Scenario
			case "channels":
				drawAsOriginal(v, iso.Channels)
			}
		}
	}
	out, err := yaml.Marshal(&root)
	if err != nil {
		return nil, err
	}
	iso.YAML = out
	return iso, nil
}

// drawAsOriginal makes each copied channel draw the cards its original
// drew (the draw is keyed by channel name).
func drawAsOriginal(seq *yaml.Node, names map[string]string) {
	old := map[string]string{}
	for o, n := range names {
		old[n] = o
	}
	for _, ch := range seq.Content {
		if ch.Kind != yaml.MappingNode {
			continue
		}
		var name string
		has := false
		for i := 0; i+1 < len(ch.Content); i += 2 {
			switch ch.Content[i].Value {
			case "name":
				name = ch.Content[i+1].Value
			case "drawAs":
				has = true
			}
		}
		if o, ok := old[name]; ok && !has {
			ch.Content = append(ch.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Value: "drawAs"},
				&yaml.Node{Kind: yaml.ScalarNode, Value: o})
		}
	}
}

// fresh is a channel name of the same charset, at most 64 long.
func fresh(tag, name string) string {
	n := tag + "-" + name
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

func docMap(root *yaml.Node) *yaml.Node {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	return n
}

// renameScalars renames every scalar, key or value, equal to a channel
// name or CHANNELID: channels[], a campaign's channel, the offers map's
// keys, a fault rule's channel.
func renameScalars(n *yaml.Node, m map[string]string) {
	if n.Kind == yaml.ScalarNode {
		if v, ok := m[n.Value]; ok {
			n.Value = v
		}
		return
	}
	for _, c := range n.Content {
		renameScalars(c, m)
	}
}

// all maps every old name and CHANNELID to its new one.
func (iso *Isolation) all() map[string]string {
	m := maps.Clone(iso.Channels)
	maps.Copy(m, iso.IDs)
	return m
}

// Rewrite sends the recording's requests to the copied channels: every
// JSON string, header value, path segment and query value equal to an old
// name becomes the new one. An envelope whose payload changed is encoded
// afresh and, if its recorded SIGN verified under pub, signed with key (a
// recorded bad signature stays bad).
func (iso *Isolation) Rewrite(s *recfile.Recording, key *rsa.PrivateKey) error {
	m := iso.all()
	for i := range s.Steps {
		st := &s.Steps[i]
		st.Path = renamePath(st.Path, m)
		st.Query = renameQuery(st.Query, m)
		for k, v := range st.Header {
			if n, ok := m[v]; ok {
				st.Header[k] = n
			}
		}
		if len(st.Body) > 0 {
			st.Body = renameJSON(st.Body, m)
		}
		if e := st.Envelope; e != nil {
			if n, ok := m[e.CHANNELID]; ok {
				e.CHANNELID = n
			}
			payload := renameJSON(e.Payload, m)
			if bytes.Equal(payload, e.Payload) {
				continue
			}
			e.Payload = payload
			if recfile.Placeholder.Match(payload) {
				continue // encoded and signed when sent
			}
			signed := e.SIGN != "" && key != nil && envelope.Verify(&key.PublicKey, e.BDATA, e.SIGN) == nil
			e.BDATA = base64.StdEncoding.EncodeToString(payload)
			if signed {
				sig, err := envelope.Sign(key, e.BDATA)
				if err != nil {
					return err
				}
				e.SIGN = sig
			}
		}
	}
	return nil
}

// AnswerNames maps each new name back to the recorded one, longest
// first, for reading replayed answers (ResendOptions.AnswerNames).
func (iso *Isolation) AnswerNames() [][2]string {
	var out [][2]string
	for old, n := range iso.all() {
		out = append(out, [2]string{n, old})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	return out
}

func renameJSON(raw json.RawMessage, m map[string]string) json.RawMessage {
	return recfile.RewriteStrings(raw, func(_, val string) (string, bool) {
		if n, ok := m[val]; ok {
			return n, true
		}
		return val, false
	})
}

func renamePath(p string, m map[string]string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if n, ok := m[s]; ok {
			segs[i] = n
		}
	}
	return strings.Join(segs, "/")
}

func renameQuery(q string, m map[string]string) string {
	if q == "" {
		return q
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			if n, ok := m[dv]; ok {
				parts[i] = k + "=" + url.QueryEscape(n)
			}
		}
	}
	return strings.Join(parts, "&")
}
