package recordings

import (
	"io"

	"github.com/rewardsim/rewardsim/sim/internal/picture"
	"github.com/rewardsim/rewardsim/sim/internal/recfile"
)

// Diagram writes the SVG sequence diagram of a recording file
// (SIM-4's format): every step in order, as a call from the publisher to
// the host that served it, with the recorded status and the fault or
// reason the answer named. It needs no running simulator: the picture is
// the one the dashboard draws from the journal. An error means the file
// is not a valid recording (the message says where).
func Diagram(recordingJSON []byte, w io.Writer) error {
	rec, err := recfile.ParseFile(recordingJSON)
	if err != nil {
		return err
	}
	return picture.Sequence(w, picture.RecordingTitle(rec), picture.RecordingCalls(rec.Steps))
}
