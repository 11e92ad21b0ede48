// Package replay is the recording driver (SIM-4): it builds a recording
// from the journal (Build, Stream), records through a proxy (Recorder),
// and replays a recording against a target, in a channel copy of its own,
// comparing every answer with the recorded one. The file format it reads
// and writes is recfile's; it imports no calibrate (the CLI hands it
// calibrate's readers).
package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/controlapi"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
)

// DefaultReplaySecrets are the API-key credentials of the embedded default
// scenario's DEMOBANK channel (test-only), used when ReplayOptions.Secrets
// is empty.
var DefaultReplaySecrets = []string{"DEMOAPPKEY:DEMOSECKEY"}

// ReplayOptions tune Replay.
type ReplayOptions struct {
	// Target is one base URL for all hosts, or three separated by commas
	// (rewards,bank,hotdeals).
	Target string
	// Control is the target's control API. When set (and Shared is not),
	// the recording replays into channels of its own: a copy of Scenario
	// with every channel renamed is loaded and activated for the new
	// names and their state reset, so replays run in parallel against
	// one instance and twice in a row. ControlToken is its token, if any.
	Control, ControlToken string
	// Shared replays into the recorded channels as they are (a UAT, or a
	// target without a control API): what the target holds shows.
	Shared bool
	// Scenario is the YAML the recording was made against; nil means the
	// scenario the recording names. An overlay (extends: NAME) is read as
	// upload and validate read it: merged onto ScenarioBase's NAME, else
	// the target's loaded scenario NAME, else the embedded one.
	Scenario []byte
	// ScenarioBase finds a scenario an overlay extends by name (the CLI:
	// a file of that name beside --scenario); nil: none.
	ScenarioBase func(name string) ([]byte, bool)
	// RunID tells apart concurrent replays of one recording on one
	// instance (two pipelines); replays with the same RunID reuse their
	// channels, reset first.
	RunID string
	// Source is the file the recording was read from: with the
	// content's hash it names the replay's channel copy, so two files
	// never share one (default: the recording's name).
	Source string
	// Prepared, if set, hears of the copy and of the ways the target
	// differs from what was recorded, before the first step.
	Prepared func(ReplayPrepared)
	// PublisherKeyPEM re-signs envelopes whose payload changed through
	// captured values; nil means the embedded test-only publisher key.
	PublisherKeyPEM []byte
	// Secrets are credentials the recording holds only as fingerprints.
	Secrets []string
	// Masks extend the recording's masks: field name to value, digits,
	// url, ignore or none.
	Masks map[string]string
	HTTP  *http.Client
	// Step, if set, hears of each step once compared (for progress).
	Step func(ReplayStep)
	// Waiting, if set, hears every few seconds while one request is
	// outstanding (a fault's injected delay, say).
	Waiting func(step string, waited time.Duration)
	// CompareReadings lists the switches the recording's readings
	// (Recording.Switches) and the replay's scenario read otherwise
	// (calibrate.CompareReadings, wired by the CLI); nil compares none.
	CompareReadings func(readings map[string]string, scenarioName string, yml []byte) []string
}

// ReplayStep is one replayed step, for progress output.
type ReplayStep struct {
	ID, Label   string
	Status      int
	Elapsed     time.Duration
	Differences int
	// Diff is the step's differences, readable ("" when none).
	Diff string
}

// ReplayResult is the outcome of a replay.
type ReplayResult struct {
	Name        string
	Steps       int
	Differences int
	// Channels are the channels replayed into (the copies when isolated);
	// Scenario is the copy's name.
	Channels []string
	Scenario string
	// Report is the readable diff (or "no difference").
	Report string
}

// OK reports whether the replay matched the recording.
func (r *ReplayResult) OK() bool { return r.Differences == 0 }

// volatileFields are the answer fields the schemas mark volatile
// (VolatileFields over every answer schema of the contract).
var volatileFields = sync.OnceValues(func() (map[string]recfile.MaskKind, error) {
	var roots []string
	for _, op := range contract.Ops {
		for _, n := range []string{op.Response, op.ResponseBDATA} {
			if n != "" && !slices.Contains(roots, n) {
				roots = append(roots, n)
			}
		}
	}
	return recfile.VolatileFields(schemas.FS, roots)
})

// Replay re-sends a recording (SIM-4) to the target and compares every
// answer with the recorded one, volatile fields masked. An error means
// the recording could not be read or a request could not be sent;
// differences are in the result.
func Replay(ctx context.Context, recordingJSON []byte, o ReplayOptions) (*ReplayResult, error) {
	rec, err := recfile.ParseFile(recordingJSON)
	if err != nil {
		return nil, err
	}
	targets, err := ParseTargets(o.Target)
	if err != nil {
		return nil, err
	}
	ro, err := resendOptions(o)
	if err != nil {
		return nil, err
	}
	var channels []string
	var before []recfile.Difference
	copyName := ""
	if !o.Shared {
		if o.Control == "" {
			return nil, errors.New("an isolated replay needs the target's control API (Control), or Shared to replay into the recorded channels")
		}
		c := &controlapi.Client{Base: o.Control, Token: o.ControlToken, HTTP: o.HTTP}
		yml, against, diffs, notes, err := againstScenario(ctx, rec, o, c)
		if err != nil {
			return nil, err
		}
		if o.CompareReadings != nil {
			diffs = append(diffs, o.CompareReadings(rec.Switches, against, yml)...)
		}
		iso, err := isolate(ctx, c, yml, replaySource(o, rec, recordingJSON), o.RunID)
		if err != nil {
			return nil, err
		}
		armed, faultDiffs, err := copyFaults(ctx, rec, iso, c)
		defer func() {
			for _, id := range armed { // the copies' rules go with the replay
				_, _ = c.DisarmFault(context.WithoutCancel(ctx), id)
			}
		}()
		if err != nil {
			return nil, err
		}
		diffs = append(diffs, faultDiffs...)
		if err := iso.Rewrite(rec, ro.Key); err != nil {
			return nil, err
		}
		ro.AnswerNames = iso.AnswerNames()
		for _, n := range iso.Channels {
			channels = append(channels, n)
		}
		slices.Sort(channels)
		copyName = iso.Scenario
		for _, d := range diffs {
			before = append(before, recfile.Difference{Step: "-", Label: "before the first step", Where: "target", Note: d})
		}
		if o.Prepared != nil {
			o.Prepared(ReplayPrepared{Scenario: iso.Scenario, Channels: maps.Clone(iso.Channels), Against: against, Differences: diffs, Notes: notes})
		}
	}
	res, err := Resend(ctx, rec, targets, ro)
	if err != nil {
		return nil, err
	}
	res.Differences = append(before, res.Differences...)
	var buf bytes.Buffer
	res.Format(&buf, rec.Name)
	return &ReplayResult{Name: rec.Name, Steps: res.Steps, Differences: len(res.Differences), Channels: channels, Scenario: copyName, Report: buf.String()}, nil
}

// resendOptions are o's settings for Resend: the publisher key, the
// secrets and masks, the volatile fields and the progress callbacks.
func resendOptions(o ReplayOptions) (ResendOptions, error) {
	keyPEM := o.PublisherKeyPEM
	if keyPEM == nil {
		keyPEM, _ = fs.ReadFile(certs.FS, certs.PublisherKey)
	}
	key, err := envelope.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return ResendOptions{}, fmt.Errorf("publisher key: %w", err)
	}
	secrets := o.Secrets
	if len(secrets) == 0 {
		secrets = DefaultReplaySecrets
	}
	masks := map[string]recfile.MaskKind{}
	for k, v := range o.Masks {
		mk, err := recfile.ParseMaskKind(v)
		if err != nil {
			return ResendOptions{}, fmt.Errorf("mask %s: %w", k, err)
		}
		masks[k] = mk
	}
	volatile, err := volatileFields()
	if err != nil {
		return ResendOptions{}, err
	}
	ro := ResendOptions{Key: key, Secrets: secrets, Volatile: volatile, Masks: masks, HTTP: o.HTTP,
		Control: strings.TrimRight(o.Control, "/"), ControlToken: o.ControlToken}
	if o.Step != nil {
		ro.Step = func(r StepReport) {
			var diff strings.Builder
			for _, d := range r.Differences {
				fmt.Fprintf(&diff, "- %s\n", d)
			}
			o.Step(ReplayStep{ID: r.Step.ID, Label: r.Step.Label(), Status: r.Status, Elapsed: r.Elapsed, Differences: len(r.Differences), Diff: diff.String()})
		}
	}
	if o.Waiting != nil {
		ro.Waiting = func(st *recfile.Step, d time.Duration) { o.Waiting(st.ID+" "+st.Label(), d) }
	}
	return ro, nil
}

// isolate loads and activates the recording's own copy of the scenario
// on the target and resets its channels' state.
func isolate(ctx context.Context, c *controlapi.Client, yml []byte, source, runID string) (*Isolation, error) {
	iso, err := Isolate(yml, source, runID)
	if err != nil {
		return nil, err
	}
	names := slices.Sorted(maps.Values(iso.Channels))
	q := url.Values{"name": {iso.Scenario + ".yaml"}}
	if _, err := controlapi.Body(c.UploadScenario(ctx, iso.YAML, q)); err != nil {
		return nil, fmt.Errorf("loading the replay's copy of the scenario: %w", err)
	}
	for _, ch := range names {
		if _, err := controlapi.Body(c.ActivateScenario(ctx, iso.Scenario, ch)); err != nil {
			return nil, fmt.Errorf("activating the replay's scenario for %s: %w", ch, err)
		}
		if _, err := controlapi.Body(c.ResetState(ctx, ch)); err != nil {
			return nil, fmt.Errorf("resetting channel %s: %w", ch, err)
		}
	}
	return iso, nil
}

// FileName turns a recording's name into a file name.
func FileName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, name)
	return name + ".json"
}
