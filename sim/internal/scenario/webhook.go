package scenario

import (
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// WebhookSwitches is switches.webhook: how the simulator retries a push
// whose receiver did not answer {"status":"OK"} in time, when the push
// request names no policy of its own. The contract does not show the
// service's retry policy (section 6.1), so the default is a documented
// choice: exponential, 30s then 60s then 120s, 4 attempts in all.
type WebhookSwitches struct {
	Retry       string         `yaml:"retry"`
	Interval    model.Duration `yaml:"interval"`
	MaxAttempts int            `yaml:"maxAttempts"`
	// Deadline 0 means the simulator's --webhook-deadline.
	Deadline model.Duration `yaml:"deadline"`
}
