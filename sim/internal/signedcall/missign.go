package signedcall

import (
	"crypto/rand"
	"crypto/rsa"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// otherKey signs answers of the answer-sign-other-key fault: a key that is
// no one's, made on first use (the fault is rare; the start stays fast).
var otherKey = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

// misSign breaks the signature of a sealed answer as the fault kind says,
// and names the fault (reason header and journal): the answer is
// otherwise the normal one, so only an app that verifies SIGN notices.
func misSign(c echo.Context, key *rsa.PrivateKey, env envelope.Envelope, kind string) (envelope.Envelope, error) {
	switch kind {
	case fault.AnswerSignOtherBytes:
		raw, err := envelope.Decode(env.BDATA)
		if err != nil {
			return env, err
		}
		if env.SIGN, err = envelope.Sign(key, string(raw)); err != nil {
			return env, err
		}
	case fault.AnswerSignOtherKey:
		other, err := otherKey()
		if err != nil {
			return env, err
		}
		if env.SIGN, err = envelope.Sign(other, env.BDATA); err != nil {
			return env, err
		}
	case fault.AnswerSignAbsent:
		env.SIGN = ""
	}
	httpx.NoteFault(c, kind)
	httpx.SetReason(c, "injected fault: "+kind)
	return env, nil
}
