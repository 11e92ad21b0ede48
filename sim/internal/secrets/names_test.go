package secrets

import (
	"fmt"
	"testing"
)

// A memo full of names still reads the names it could not keep: a
// client inventing a header name each call must not slip a secret past it.
func TestHeaderMemo_namesPastTheBound(t *testing.T) {
	memo := NewHeaderMemo()
	for i := range maxMemoNames + 50 {
		if n := memo.Name(fmt.Sprintf("x-filler-%d", i)); n.Canonical != fmt.Sprintf("X-Filler-%d", i) || n.Secret {
			t.Fatalf("name %d read as %+v", i, n)
		}
	}
	if len(memo.names) != maxMemoNames {
		t.Fatalf("memo holds %d names, want its bound %d", len(memo.names), maxMemoNames)
	}
	if n := memo.Name("x-new-api-token"); !n.Secret || n.Canonical != "X-New-Api-Token" {
		t.Fatalf("past the bound: %+v, want a secret X-New-Api-Token", n)
	}
}

// The value memo answers as MaskValue does, before and past its bound.
func TestHeaderMemo_masksAsMaskValue(t *testing.T) {
	memo := NewHeaderMemo()
	for i := range maxMaskMemo + 10 {
		for range 2 {
			v := fmt.Sprintf("Bearer tok-%d", i)
			if got, want := memo.Mask(v), MaskValue(v); got != want {
				t.Fatalf("Mask(%q) = %q, want %q", v, got, want)
			}
		}
	}
}
