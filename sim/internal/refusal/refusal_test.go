package refusal

import (
	"fmt"
	"testing"
)

// A refusal is found through wrapping, by kind, with its message intact.
func TestOfAndIs(t *testing.T) {
	r := New(Conflict, "extTransactionId %q was first used by another user", "T1")
	wrapped := fmt.Errorf("claim: %w", r)
	got, ok := Of(wrapped)
	if !ok || got != r || got.Error() != `extTransactionId "T1" was first used by another user` {
		t.Fatalf("Of(%v) = %v, %v", wrapped, got, ok)
	}
	if !Is(wrapped, Conflict) || Is(wrapped, Invalid) || Is(fmt.Errorf("plain"), Conflict) || Is(nil, Invalid) {
		t.Fatal("Is matched the wrong kind, or a plain error")
	}
}
