//go:build rewardsim_txhook

package main

import (
	"os"
	"strconv"
	"sync/atomic"
)

// A build for one test only (TestServe_panicInATransactionIsOneRequests500,
// built with -tags rewardsim_txhook): the transaction run numbered
// $REWARDSIM_TXHOOK_PANIC_AT panics inside the store, so a test can show
// against a real process that such a panic is one request's 500. No
// release build has it: a panic cannot be provoked from outside on
// purpose, so a real process needs this door to be tested at all.
func init() {
	at, err := strconv.ParseInt(os.Getenv("REWARDSIM_TXHOOK_PANIC_AT"), 10, 64)
	if err != nil {
		return
	}
	var n atomic.Int64
	txHook = func() {
		if n.Add(1) == at {
			panic("test hook: a panic inside a store transaction")
		}
	}
}
