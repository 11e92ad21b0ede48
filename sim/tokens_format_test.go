package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: TOK-4 (lifetime configurable per scenario; expireDate follows the
// simulated clock; the format switch in each position)
func TestTokenLifetimeAndExpireDateFormat_TOK4(t *testing.T) {
	cases := []struct {
		format, refWant, userWant string
	}{
		{"datetime-ms", "2026-01-15 10:10:00.000", "2026-01-15 10:02:00.000"},
		{"iso8601", "2026-01-15T10:10:00+05:30", "2026-01-15T10:02:00+05:30"},
		{"epoch-ms", "1768452000000", "1768451520000"},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			s := simtest.New(t, simtest.WithScenarioYAML(scenarioWith("tokens:\n  referenceTTL: 10m\n  userTTL: 2m\n  expireDateFormat: "+c.format+"\n")))
			ctx := context.Background()
			ref, user := issueTokens(t, s, "VU-1")
			if ref.ExpireDate != c.refWant || user.ExpireDate != c.userWant {
				t.Fatalf("expireDate = %q / %q, want %q / %q", ref.ExpireDate, user.ExpireDate, c.refWant, c.userWant)
			}
			// The date moves with the simulated clock.
			s.Clock.Advance(24 * time.Hour)
			ref2, _ := s.Client.ReferenceToken(ctx)
			if ref2.ExpireDate == ref.ExpireDate {
				t.Fatalf("expireDate did not follow the clock: %q", ref2.ExpireDate)
			}
		})
	}
}

// clause: TOK-3 (reference and user tokens are distinct credentials)
func TestTokensAreDistinct_TOK3(t *testing.T) {
	s := simtest.New(t)
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		ref, user := issueTokens(t, s, "VU-1")
		for _, v := range []string{ref.ReferenceKey, user.Token} {
			if seen[v] {
				t.Fatalf("token %q issued twice", v)
			}
			seen[v] = true
		}
	}
}

// issueTokens fetches a reference token and a user token for virtualID.
func issueTokens(t *testing.T, s *simtest.Server, virtualID string) (publisher.ReferenceToken, publisher.UserToken) {
	t.Helper()
	ctx := context.Background()
	ref, err := s.Client.ReferenceToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	user, err := s.Client.UserToken(ctx, virtualID)
	if err != nil {
		t.Fatal(err)
	}
	return ref, user
}
