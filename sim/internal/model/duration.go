package model

import (
	"fmt"
	"time"
)

// Duration is a time.Duration written as text ("90s", "1h", or 0) in
// scenario files and control-API bodies.
type Duration time.Duration

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// UnmarshalText reads "0" or a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	if string(b) == "0" {
		*d = 0
		return nil
	}
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: %w", b, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// MaxDelay bounds every delay the simulator holds an answer for (a
// fault's, a latency profile's draw), so a held answer always ends before
// the server's default write timeout (sim.DefaultWriteTimeout) cuts it.
const MaxDelay = time.Minute
