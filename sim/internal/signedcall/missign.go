package signedcall

import (
	"crypto/rsa"
	"io/fs"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/httpx"
)

// otherKey signs answers of the answer-sign-other-key fault: the embedded
// test-only publisher key, never the service's. Read, not generated: a
// key made on first use held that first answer back for seconds under
// load, long enough for a client to give up before the fault showed.
var otherKey = sync.OnceValues(func() (*rsa.PrivateKey, error) {
	pemKey, err := fs.ReadFile(certs.FS, certs.PublisherKey)
	if err != nil {
		return nil, err
	}
	return envelope.ParsePrivateKeyPEM(pemKey)
})

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
