package fault

import (
	"errors"
	"testing"
)

// Arm is one call: the rule save hears is the rule armed, in the place
// save was told; a save that fails arms nothing; re-arming an id keeps
// its place.
func TestSet_Arm(t *testing.T) {
	rule := func(id string) Rule {
		return Rule{ID: id, Endpoint: "GetReward", Action: Action{Kind: InternalError}}
	}
	cases := []struct {
		name    string
		arm     string
		saveErr error
		wantIDs []string
		wantSeq int64
	}{
		{"a new rule goes last", "c", nil, []string{"a", "b", "c"}, 3},
		{"a refused save arms nothing", "c", errors.New("disk full"), []string{"a", "b"}, 0},
		{"an id armed again keeps its place", "a", nil, []string{"a", "b"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s Set
			s.Add(rule("a"))
			s.Add(rule("b"))
			var heard Status
			st, err := s.Arm(rule(tc.arm), func(st Status) error { heard = st; return tc.saveErr })
			if !errors.Is(err, tc.saveErr) {
				t.Fatalf("err %v, want %v", err, tc.saveErr)
			}
			if err == nil && (st != heard || st.Seq != tc.wantSeq) {
				t.Errorf("armed %+v, save heard %+v, want seq %d", st, heard, tc.wantSeq)
			}
			var ids []string
			for _, x := range s.List() {
				ids = append(ids, x.ID)
			}
			if len(ids) != len(tc.wantIDs) {
				t.Fatalf("armed %v, want %v", ids, tc.wantIDs)
			}
			for i := range ids {
				if ids[i] != tc.wantIDs[i] {
					t.Errorf("armed %v, want %v", ids, tc.wantIDs)
				}
			}
		})
	}
}
