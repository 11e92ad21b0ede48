package sim

import (
	"errors"

	"github.com/rewardsim/rewardsim/sim/internal/boltfile"
	"github.com/rewardsim/rewardsim/sim/internal/journal"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// ErrDataFormat means the data folder holds a file written in another
// format, by another version of rewardsim: New refuses it rather than
// read it half right. A simulator's data is disposable: ResetData (the
// serve flag --reset-data) wipes it.
var ErrDataFormat = boltfile.ErrFormat

// ErrDataLocked means another process holds the data folder.
var ErrDataLocked = boltfile.ErrLocked

// ResetData deletes what rewardsim keeps in dir (the state and the
// journal files), unless a running process holds them; other files of
// the folder are left alone.
func ResetData(dir string) error {
	return errors.Join(state.Remove(dir), journal.RemoveStore(dir))
}
