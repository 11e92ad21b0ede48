package state

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// The binary token and session records read back exactly what their JSON
// did (the form they replace), on many generated records: zones UTC,
// local, fixed and unnamed, the zero time, empty and non-ASCII strings,
// with the local zone both UTC and not.
func TestRecordCodec_matchesJSON(t *testing.T) {
	for _, local := range []*time.Location{time.UTC, time.FixedZone("LOC", 7200)} {
		t.Run(local.String(), func(t *testing.T) {
			saved := time.Local
			time.Local = local
			defer func() { time.Local = saved }()
			rnd := rand.New(rand.NewPCG(1, uint64(len(local.String()))))
			zones := []*time.Location{time.UTC, time.Local, time.FixedZone("IST", 19800), time.FixedZone("", -3600), time.FixedZone("GMT", 0), time.FixedZone("", 7200)}
			str := func() string {
				parts := []string{"", "DEMOBANK", "U-1", "ü√ß", "a\"b\\c", "\x01tab\t"}
				return parts[rnd.IntN(len(parts))] + parts[rnd.IntN(len(parts))]
			}
			when := func() time.Time {
				if rnd.IntN(8) == 0 {
					return time.Time{}
				}
				sec := rnd.Int64N(253402300799+62135596800) - 62135596800 // years 1 to 9999
				return time.Unix(sec, rnd.Int64N(1e9)).In(zones[rnd.IntN(len(zones))])
			}
			for range 5000 {
				tok := model.Token{Kind: model.TokenKind(str()), Channel: str(), VirtualID: str(), IssuedAt: when(), ExpiresAt: when()}
				var viaJSON model.Token
				roundTripJSON(t, tok, &viaJSON)
				got, err := decodeToken(encodeToken(tok))
				if err != nil || !reflect.DeepEqual(got, viaJSON) {
					t.Fatalf("token %#v\nbinary %#v (%v)\nJSON   %#v", tok, got, err, viaJSON)
				}
				sess := model.Session{Channel: str(), VirtualID: str(), IssuedAt: when(), ExpiresAt: when()}
				var sessJSON model.Session
				roundTripJSON(t, sess, &sessJSON)
				gotSess, err := decodeSession(encodeSession(sess))
				if err != nil || !reflect.DeepEqual(gotSess, sessJSON) {
					t.Fatalf("session %#v\nbinary %#v (%v)\nJSON   %#v", sess, gotSess, err, sessJSON)
				}
			}
		})
	}
}

// roundTripJSON is the former store's write and read of v.
func roundTripJSON(t *testing.T, v, into any) {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if raw[0] != '{' {
		t.Fatalf("JSON record %s does not start with '{'", raw)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

// A cut or padded record is refused, never misread.
func TestRecordCodec_refusesDamage(t *testing.T) {
	now := time.Date(2026, 1, 15, 10, 0, 0, 1, time.UTC)
	tok := encodeToken(model.Token{Kind: model.UserToken, Channel: "DEMOBANK", VirtualID: "U", IssuedAt: now, ExpiresAt: now.Add(time.Hour)})
	sess := encodeSession(model.Session{Channel: "DEMOBANK", VirtualID: "U", IssuedAt: now})
	for _, c := range []struct {
		name   string
		raw    []byte
		decode func([]byte) (record, error)
	}{{"token", tok, decodeRecord}, {"session", sess, decodeRecord}} {
		for n := range len(c.raw) {
			if _, err := c.decode(c.raw[:n]); err == nil {
				t.Errorf("%s cut to %d of %d bytes read without error", c.name, n, len(c.raw))
			}
		}
		if _, err := c.decode(append(c.raw[:len(c.raw):len(c.raw)], 0)); err == nil {
			t.Errorf("%s with a byte too many read without error", c.name)
		}
	}
	if _, err := decodeToken(sess); err == nil {
		t.Error("a session record read as a token")
	}
}
