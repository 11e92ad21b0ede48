// Package recordings is the public face of rewardsim's recordings (SIM-4):
// Replay, the record proxy (NewRecorder) and Diagram. The code lives in
// sim/internal/recording, the one package for recordings (the file
// format, replay and the record proxy); this package names what a test
// outside the module may import.
package recordings

import (
	"context"

	"github.com/rewardsim/rewardsim/sim/internal/recording"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

type (
	// ReplayOptions tune Replay.
	ReplayOptions = recording.ReplayOptions
	// ReplayStep is one replayed step, for progress output.
	ReplayStep = recording.ReplayStep
	// ReplayResult is the outcome of a replay.
	ReplayResult = recording.ReplayResult
	// ReplayPrepared is what a replay found before its first step.
	ReplayPrepared = recording.ReplayPrepared
	// Recorder is the record proxy: an http.Handler that forwards every
	// request to an upstream and keeps each exchange.
	Recorder = recording.Recorder
	// RecorderOptions configure NewRecorder.
	RecorderOptions = recording.RecorderOptions
	// ProxyNote says how the record proxy changed the answers it passed on.
	ProxyNote = recording.ProxyNote
	// DiffResult is the outcome of Diff.
	DiffResult = recording.DiffResult
)

// Diff compares the requests of two recordings of the app's own traffic,
// step by step (paired by operation, in order): what the app now sends
// differently. masks extend the request fields that differ by design
// (extTransactionId, dateandtime, ...). An error means a file is not a
// recording.
func Diff(oldJSON, newJSON []byte, masks map[string]string) (*DiffResult, error) {
	return recording.DiffFiles(oldJSON, newJSON, masks)
}

// DefaultReplaySecrets are the API-key credentials of the embedded default
// scenario's DEMOBANK channel (test-only), used when ReplayOptions.Secrets
// is empty.
var DefaultReplaySecrets = recording.DefaultReplaySecrets

// Replay re-sends a recording to the target and compares every answer
// with the recorded one, volatile fields masked. An error means the
// recording could not be read or a request could not be sent;
// differences are in the result.
func Replay(ctx context.Context, recordingJSON []byte, o ReplayOptions) (*ReplayResult, error) {
	return recording.Replay(ctx, recordingJSON, o)
}

// NewRecorder makes a record proxy.
func NewRecorder(o RecorderOptions) (*Recorder, error) { return recording.NewRecorder(o) }

// FileName turns a recording's name into a file name.
func FileName(name string) string { return recording.FileName(name) }

// Unresolved lists the steps of a recording file that send a bearer token
// no earlier step handed out (fetched outside the exported slice): a
// replay cannot send them. An error means the file is not a recording.
func Unresolved(recordingJSON []byte) ([]string, error) {
	set, err := schema.Embedded()
	if err != nil {
		return nil, err
	}
	rec, err := recording.Parse(recordingJSON, set)
	if err != nil {
		return nil, err
	}
	return rec.Unresolved(), nil
}
