// Package recordings is the public face of rewardsim's recordings (SIM-4):
// Replay, the record proxy (NewRecorder) and Diagram. The code lives in
// two internal packages: sim/internal/recfile, the file format (read,
// write, mask, diff), and sim/internal/replay, the driver (the record
// proxy, building a recording from the journal, replay); this package
// names what a test outside the module may import.
package recordings

import (
	"context"

	"github.com/rewardsim/rewardsim/sim/internal/recfile"
	"github.com/rewardsim/rewardsim/sim/internal/replay"
)

type (
	// ReplayOptions tune Replay.
	ReplayOptions = replay.ReplayOptions
	// ReplayStep is one replayed step, for progress output.
	ReplayStep = replay.ReplayStep
	// ReplayResult is the outcome of a replay.
	ReplayResult = replay.ReplayResult
	// ReplayPrepared is what a replay found before its first step.
	ReplayPrepared = replay.ReplayPrepared
	// Recorder is the record proxy: an http.Handler that forwards every
	// request to an upstream and keeps each exchange.
	Recorder = replay.Recorder
	// RecorderOptions configure NewRecorder.
	RecorderOptions = replay.RecorderOptions
	// ProxyNote says how the record proxy changed the answers it passed on.
	ProxyNote = recfile.ProxyNote
	// DiffResult is the outcome of Diff.
	DiffResult = recfile.DiffResult
)

// Diff compares the requests of two recordings of the app's own traffic,
// step by step (paired by operation, in order): what the app now sends
// differently. masks extend the request fields that differ by design
// (extTransactionId, dateandtime, ...). An error means a file is not a
// recording.
func Diff(oldJSON, newJSON []byte, masks map[string]string) (*DiffResult, error) {
	return recfile.DiffFiles(oldJSON, newJSON, masks)
}

// DefaultReplaySecrets are the API-key credentials of the embedded default
// scenario's DEMOBANK channel (test-only), used when ReplayOptions.Secrets
// is empty.
var DefaultReplaySecrets = replay.DefaultReplaySecrets

// Replay re-sends a recording to the target and compares every answer
// with the recorded one, volatile fields masked. An error means the
// recording could not be read or a request could not be sent;
// differences are in the result.
func Replay(ctx context.Context, recordingJSON []byte, o ReplayOptions) (*ReplayResult, error) {
	return replay.Replay(ctx, recordingJSON, o)
}

// NewRecorder makes a record proxy.
func NewRecorder(o RecorderOptions) (*Recorder, error) { return replay.NewRecorder(o) }

// FileName turns a recording's name into a file name.
func FileName(name string) string { return replay.FileName(name) }

// Unresolved lists the steps of a recording file that send a bearer token
// no earlier step handed out (fetched outside the exported slice): a
// replay cannot send them. An error means the file is not a recording.
func Unresolved(recordingJSON []byte) ([]string, error) {
	rec, err := recfile.ParseFile(recordingJSON)
	if err != nil {
		return nil, err
	}
	return rec.Unresolved(), nil
}
