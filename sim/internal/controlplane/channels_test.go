package controlplane_test

import (
	"bytes"
	"io/fs"
	"testing"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/internal/controlplane"
	"github.com/rewardsim/rewardsim/sim/internal/state"
)

// Issue 11 item 7: the store keeps a run-time channel's secKey as a
// salted hash, not in clear; the channel still checks the secKey, after a
// restart too, and refuses another.
func TestRegisterChannel_secKeyNotKeptInClear(t *testing.T) {
	dir := t.TempDir()
	db, err := state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := open(t, &failingStore{Store: db})
	pem, _ := fs.ReadFile(certs.FS, certs.PublisherCert)
	const secret = "CI-SECRET-SEC-KEY-0123"
	if _, err := p.RegisterChannel(controlplane.ChannelSpec{Name: "CI1", Certificate: string(pem), AppKey: "CI-APP", SecKey: secret}); err != nil {
		t.Fatal(err)
	}
	recs, err := db.ConfigList("channel")
	if err != nil || len(recs) != 1 {
		t.Fatalf("stored channels: %d, %v", len(recs), err)
	}
	if bytes.Contains(recs[0], []byte(secret)) {
		t.Fatalf("the store keeps the secKey in clear: %s", recs[0])
	}
	check := func(when string, p *controlplane.Plane) {
		ch, _, ok := p.Scenarios().ByChannelName("CI1")
		if !ok {
			t.Fatalf("%s: CI1 not registered", when)
		}
		if !ch.HasSecKey() || !ch.SecKeyMatches(secret) || ch.SecKeyMatches(secret+"x") || ch.SecKeyMatches("") {
			t.Fatalf("%s: the secKey check does not hold", when)
		}
	}
	check("registered", p)
	db.Close()
	db, err = state.Open(dir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check("after a restart", open(t, &failingStore{Store: db}))
}
