// Package refusal is the one way the simulator's domain says no: a
// Refusal has a kind (invalid, not found, conflict, unauthorized, not
// eligible, limit reached, too large), the contract's code where it has
// one, and a message. Domain packages return it; the HTTP layer alone
// maps a kind to a status (httpx.StatusOf) and to each host's shape.
package refusal

import (
	"errors"
	"fmt"
)

// Kind says why something was refused.
type Kind int

const (
	Invalid      Kind = iota // the request is malformed or breaks a rule
	NotFound                 // it names something that does not exist
	Conflict                 // it clashes with what is already there
	Unauthorized             // its credentials do not admit it
	NotEligible              // it is well formed but its user does not qualify
	LimitReached             // a limit (purchase limit, bound) is used up
	TooLarge                 // its body is over the size limit
)

// Refusal is a refused request or change.
type Refusal struct {
	Kind Kind
	// Code is the contract's error code for the refusal, where it has one
	// (the coupon host's errorCode); empty otherwise.
	Code string
	Msg  string
}

func (r *Refusal) Error() string { return r.Msg }

// New is a refusal of kind with a formatted message.
func New(kind Kind, format string, a ...any) *Refusal {
	return &Refusal{Kind: kind, Msg: fmt.Sprintf(format, a...)}
}

// Of finds the refusal in err's chain.
func Of(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

// Is reports whether err is a refusal of kind.
func Is(err error, kind Kind) bool {
	r, ok := Of(err)
	return ok && r.Kind == kind
}
