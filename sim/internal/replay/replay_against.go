package replay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rewardsim/rewardsim/scenarios"
	"github.com/rewardsim/rewardsim/sim/controlapi"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
)

// A replay compares against what was recorded: the scenario the
// recording names is the one copied (the target's copy, fetched through
// the control API), and a target that runs another scenario or other
// fault rules for the recorded channels is reported before any step runs.
// Fault rules scoped to a recorded channel are copied onto its replay
// copy, so a fault that would have hit the publisher hits the replay.

// ReplayPrepared is what a replay found before its first step.
type ReplayPrepared struct {
	// Scenario is the name of the replay's own copy of the scenario;
	// Channels maps each recorded channel to its copy.
	Scenario string
	Channels map[string]string
	// Against is the scenario the copy was made from.
	Against string
	// Differences are the ways the target differs from what the
	// recording was made against (each also counts in the result).
	Differences []string
	// Notes are differences that do not fail the replay by themselves:
	// the scenario's file changed since the recording (its steps show
	// whether that matters).
	Notes []string
}

// replaySource names a replay for its channel copy: the file it was read
// from (or the recording's name) and the hash of its content, so two
// files never share a copy, even with the same recorded name.
func replaySource(o ReplayOptions, rec *recfile.Recording, data []byte) string {
	src := o.Source
	if src == "" {
		src = rec.Name
	}
	sum := sha256.Sum256(data)
	return src + "\x00" + hex.EncodeToString(sum[:])
}

// againstScenario picks the YAML to copy: --scenario, else the target's
// copy of the recorded scenario, else (a recording that names none) the
// embedded default. It returns the differences it noticed.
func againstScenario(ctx context.Context, rec *recfile.Recording, o ReplayOptions, c *controlapi.Client) (yml []byte, name string, diffs, notes []string, err error) {
	if o.Scenario != nil {
		yml, err := resolveOverlay(ctx, o, c)
		return yml, "--scenario", nil, nil, err
	}
	ag := rec.Against
	if ag == nil {
		yml, err = fs.ReadFile(scenarios.FS, scenarios.Default)
		return yml, "the embedded default scenario", nil, nil, err
	}
	a, err := c.Scenario(ctx, ag.Scenario)
	if err != nil {
		return nil, "", nil, nil, err
	}
	status, body := a.Status, a.Body
	if status == http.StatusNotFound {
		return nil, "", nil, nil, fmt.Errorf("recording %s was made against scenario %q (sha256 %s), which the target does not hold: load it there (rewardsim scenario upload, or POST /__sim/scenarios) or pass --scenario FILE",
			rec.Name, ag.Scenario, short(ag.SHA256))
	}
	if status != http.StatusOK {
		return nil, "", nil, nil, fmt.Errorf("reading scenario %q from the target: HTTP %d: %s", ag.Scenario, status, strings.TrimSpace(string(body)))
	}
	if got := a.Header.Get("X-Rewardsim-Scenario-Sha256"); ag.SHA256 != "" && got != "" && got != ag.SHA256 {
		notes = append(notes, fmt.Sprintf("the target's scenario %q changed since the recording (sha256 %s, recorded %s)", ag.Scenario, short(got), short(ag.SHA256)))
	}
	for _, ch := range ag.Channels {
		active, err := c.ActiveScenario(ctx, ch)
		if err != nil {
			return nil, "", nil, nil, err
		}
		var act struct {
			Scenario struct{ Name string } `json:"scenario"`
		}
		if active.Status == http.StatusOK && json.Unmarshal(active.Body, &act) == nil && act.Scenario.Name != ag.Scenario {
			diffs = append(diffs, fmt.Sprintf("the target runs scenario %q for %s; the recording was made against %q", act.Scenario.Name, ch, ag.Scenario))
		}
	}
	if body, err = unmaskSecKeys(body, o.Secrets); err != nil {
		return nil, "", nil, nil, fmt.Errorf("scenario %q from the target: %w", ag.Scenario, err)
	}
	return body, fmt.Sprintf("scenario %q", ag.Scenario), diffs, notes, nil
}

// resolveOverlay merges a --scenario overlay onto the scenario it
// extends, found as ReplayOptions.Scenario says, so the copy has the
// channels, offers and switches the target would run.
func resolveOverlay(ctx context.Context, o ReplayOptions, c *controlapi.Client) ([]byte, error) {
	base := func(name string) ([]byte, bool) {
		if o.ScenarioBase != nil {
			if b, ok := o.ScenarioBase(name); ok {
				return b, true
			}
		}
		if strings.ContainsAny(name, "/\\") {
			return nil, false
		}
		if a, err := c.Scenario(ctx, name); err == nil && a.Status == http.StatusOK {
			if b, err := unmaskSecKeys(a.Body, o.Secrets); err == nil {
				return b, true
			}
		}
		b, err := fs.ReadFile(scenarios.FS, name+".yaml")
		return b, err == nil
	}
	yml, err := scenario.Resolve("--scenario", o.Scenario, scenario.Sources{Base: base})
	if err != nil {
		return nil, fmt.Errorf("--scenario: %w", err)
	}
	return yml, nil
}

// maskedValue is how GET /__sim/scenarios/{name} shows a secret.
const maskedValue = "~masked"

// unmaskSecKeys puts back the secKey the control API masked in a
// fetched scenario, from the replay's secrets (APPKEY:SECKEY, by the
// channel's appKey): the copy must accept the API-key calls the
// recording makes. A channel whose appKey has no secret keeps the mask,
// and its API-key calls show as differences.
func unmaskSecKeys(yml []byte, secrets []string) ([]byte, error) {
	if !bytes.Contains(yml, []byte(maskedValue)) {
		return yml, nil
	}
	if len(secrets) == 0 {
		secrets = DefaultReplaySecrets
	}
	sec := map[string]string{}
	for _, s := range secrets {
		if k, v, ok := strings.Cut(s, ":"); ok {
			sec[k] = v
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(yml, &doc); err != nil || len(doc.Content) == 0 {
		return nil, fmt.Errorf("does not read as YAML: %v", err)
	}
	channels := mapValue(doc.Content[0], "channels")
	if channels == nil {
		return yml, nil
	}
	for _, ch := range channels.Content {
		app, key := mapValue(ch, "appKey"), mapValue(ch, "secKey")
		if app != nil && key != nil && key.Value == maskedValue {
			if v, ok := sec[app.Value]; ok {
				key.Value, key.Tag, key.Style = v, "!!str", yaml.DoubleQuotedStyle
			}
		}
	}
	return yaml.Marshal(&doc)
}

// mapValue is the value of key in a YAML mapping, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// copyFaults arms, for every run-time fault rule of the target scoped to
// a recorded channel, the same rule on that channel's copy, and compares
// the rules in force for the recorded channels with the recorded ones.
// It returns the ids armed (to disarm after the replay).
func copyFaults(ctx context.Context, rec *recfile.Recording, iso *Isolation, c *controlapi.Client) (armed, diffs []string, err error) {
	var list controlapi.FaultList
	if err := controlapi.Decoded(&list)(c.Faults(ctx, false)); err != nil {
		return nil, nil, fmt.Errorf("reading the target's fault rules: %w", err)
	}
	recorded := map[string]bool{}
	if rec.Against != nil {
		for _, ch := range rec.Against.Channels {
			recorded[ch] = true
		}
	} else {
		for ch := range iso.Channels {
			recorded[ch] = true
		}
	}
	var inForce []string
	for _, st := range list.Rules {
		r := st.Rule
		if r.Channel != "" && !recorded[r.Channel] {
			continue
		}
		inForce = append(inForce, faultKey(r))
		copyTo, ok := iso.Channels[r.Channel]
		if r.Channel == "" || !ok {
			continue // an unscoped rule applies to the copies as it is
		}
		r.ID, r.Channel = "", copyTo
		var got fault.Rule
		if err := controlapi.Decoded(&got)(c.ArmFault(ctx, r)); err != nil {
			return armed, nil, fmt.Errorf("copying a fault rule onto %s: %w", copyTo, err)
		}
		armed = append(armed, got.ID)
	}
	if rec.Against == nil {
		return armed, nil, nil
	}
	var want []string
	for _, raw := range rec.Against.Faults {
		var r fault.Rule
		if json.Unmarshal(raw, &r) == nil {
			want = append(want, faultKey(r))
		}
	}
	for _, k := range inForce {
		if i := slices.Index(want, k); i >= 0 {
			want = slices.Delete(want, i, i+1)
			continue
		}
		diffs = append(diffs, "the target has fault rule "+k+", which was not in force when the recording was made")
	}
	for _, k := range want {
		diffs = append(diffs, "the recording was made with fault rule "+k+", which the target does not have")
	}
	return armed, diffs, nil
}

// faultKey is a rule as compared: its JSON without id and seed.
func faultKey(r fault.Rule) string {
	r.ID, r.Seed = "", 0
	data, _ := json.Marshal(r)
	return string(data)
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}
