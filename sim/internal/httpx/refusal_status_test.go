package httpx

import (
	"net/http"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/refusal"
)

// Every kind of refusal has its HTTP status, in this one place.
func TestStatusOf(t *testing.T) {
	want := map[refusal.Kind]int{
		refusal.Invalid: 400, refusal.NotFound: 404, refusal.Conflict: 409, refusal.Unauthorized: 401,
		refusal.NotEligible: 403, refusal.LimitReached: 429, refusal.TooLarge: 413,
	}
	for k, st := range want {
		if got := StatusOf(k); got != st {
			t.Errorf("StatusOf(%d) = %d, want %d", k, got, st)
		}
	}
	if InvalidStatus(ErrTooLarge, 200) != http.StatusRequestEntityTooLarge || InvalidStatus(refusal.New(refusal.Invalid, "x"), 200) != 200 {
		t.Error("InvalidStatus: 413 for a body too large, the endpoint's own status otherwise")
	}
}
