package publisher_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

// Seal makes the signed envelope of a request: BDATA is the base64 JSON,
// SIGN is SHA256withRSA over that base64 string (ENV-2).
func ExampleSeal() {
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey) // the test-only DEMOBANK key
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		log.Fatal(err)
	}
	env, err := publisher.Seal(key, "DEMOBANK", map[string]string{"bName": "DEMOBANK"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("CHANNELID:", env.CHANNELID)
	fmt.Println("BDATA:", env.BDATA)
	fmt.Println("verifies:", publisher.Verify(&key.PublicKey, env.BDATA, env.SIGN) == nil)
	// Output:
	// CHANNELID: DEMOBANK
	// BDATA: eyJiTmFtZSI6IkRFTU9CQU5LIn0=
	// verifies: true
}

// A publisher's client: its own key signs requests, the service
// certificate (downloaded from the control API) verifies answers. Here the
// service is an in-process simulator; in CI, the three base URLs point at
// `rewardsim serve`.
func ExampleClient() {
	sim, err := simtest.NewServer()
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()

	res, err := http.Get(sim.ControlURL + "/__sim/certs/service.pem")
	if err != nil {
		log.Fatal(err)
	}
	certPEM, _ := io.ReadAll(res.Body)
	res.Body.Close()
	serviceKey, err := publisher.ParsePublicKeyPEM(certPEM)
	if err != nil {
		log.Fatal(err)
	}
	keyPEM, _ := fs.ReadFile(certs.FS, certs.PublisherKey)
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		log.Fatal(err)
	}
	c := &publisher.Client{
		RewardsURL: sim.RewardsURL, BankURL: sim.BankURL, HotdealsURL: sim.HotdealsURL,
		ChannelID: "DEMOBANK", Channel: "DEMOBANK", Key: key, ServiceKey: serviceKey,
		AppKey: "DEMOAPPKEY", SecKey: "DEMOSECKEY",
	}
	ctx := context.Background()
	session, err := c.Session(ctx, "VU-1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("sessionId length:", len(session.SessionID))

	c.Key = nil // a client without a key cannot sign: ask with a broken envelope instead
	_, err = c.PostEnvelope(ctx, c.BankURL+"/api/GenerateSessionInfoV2", "", publisher.Envelope{CHANNELID: "DEMOBANK", SIGN: "AAAA", BDATA: "e30="})
	fmt.Println(publisher.IsFailure(err, "Signature Mismatch!"), err)

	_, err = c.FetchCouponCode(ctx, publisher.CouponRequest{OfferID: "OFFER-RETIRED", VirtualID: "VU-1", ExtTransactionID: "TX-1", CoinsUsed: "100"})
	fmt.Println(publisher.IsCouponError(err, "INVALID_OFFER"))
	// Output:
	// sessionId length: 43
	// true service answered FAILURE: Signature Mismatch! (HTTP 200)
	// true
}
