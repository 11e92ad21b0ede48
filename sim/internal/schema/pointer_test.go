package schema

import (
	"slices"
	"testing"

	"github.com/rewardsim/rewardsim/schemas"
)

func TestReach(t *testing.T) {
	set, err := Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		schema, pointer string
		ok              bool
		at              string
		has             string // one of the fields named on a miss
	}{
		{"fetchCouponCode.request", "/extTransactionId", true, "", ""},
		{"fetchCouponCode.request", "/coinsUsed", true, "", ""},
		{"fetchCouponCode.request", "/extTransactionID", false, "/", "extTransactionId"},
		{"fetchCouponCode.request", "/offerId/deeper", false, "/offerId", ""},
		{"GetReward.request", "/additionalParams/anything/below", true, "", ""},
		{"GetReward.request", "/amount", true, "", ""},
		{"GetReward.request", "/ammount", false, "/", "amount"},
		{"GetAuthToken.request", "/virtualId", true, "", ""},
		{"GetAuthToken.request", "/bName", false, "/", "channelName"},
		{"fetchCouponCode.request", "", true, "", ""},
	} {
		ok, at, fields, err := set.Reach(tc.schema, tc.pointer)
		if err != nil {
			t.Fatal(err)
		}
		if ok != tc.ok || (!ok && at != tc.at) || (tc.has != "" && !slices.Contains(fields, tc.has)) {
			t.Errorf("Reach(%s, %s) = %v at %q fields %v; want %v at %q with %q", tc.schema, tc.pointer, ok, at, fields, tc.ok, tc.at, tc.has)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"channelName", "coinsUsed", "extTransactionId", "offerId", "virtualId"}
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"extTransactionID", "extTransactionId", true},
		{"extTransactonId", "extTransactionId", true},
		{"coinUsed", "coinsUsed", true},
		{"zzz", "", false},
	} {
		got, ok := Nearest(tc.want, names)
		if ok != tc.ok || (ok && got != tc.got) {
			t.Errorf("Nearest(%q) = %q %v, want %q %v", tc.want, got, ok, tc.got, tc.ok)
		}
	}
}
