package main

// The baselines: the handlers a target is held to, served by this program
// re-executed with -baseline.

import (
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"github.com/labstack/echo/v4"
	bolt "go.etcd.io/bbolt"

	"github.com/rewardsim/rewardsim/sim"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// fixed300 is the minimal handler's answer: 300 bytes of JSON.
var fixed300 = func() []byte {
	b := []byte(`{"status":true,"message":"success","pad":"`)
	for len(b) < 298 {
		b = append(b, 'x')
	}
	return append(b, '"', '}')
}()

func serveBaseline(backend string) error {
	if err := sim.UseCrypto(backend); err != nil {
		return err
	}
	key, pub, err := baselineKeys()
	if err != nil {
		return err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/echo", func(c echo.Context) error {
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, fixed300)
	})
	e.POST("/sign", signHandler(key, pub))
	if *baseData != "" {
		cl := &ceiling{dir: *baseData}
		if err := cl.open(); err != nil {
			return err
		}
		defer cl.close()
		e.POST("/durable/fresh", func(c echo.Context) error {
			if err := cl.open(); err != nil {
				return err
			}
			return c.NoContent(http.StatusNoContent)
		})
		e.POST("/durable", cl.durable)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("baseline listening on http://%s crypto %s\n", l.Addr(), sim.Crypto())
	return http.Serve(l, e)
}

// baselineKeys are the service's development key, which signs, and the
// publisher's development certificate's key, which verifies.
func baselineKeys() (*rsa.PrivateKey, *rsa.PublicKey, error) {
	keyPEM, err := os.ReadFile(filepath.Join(*certs, "service-dev.key"))
	if err != nil {
		return nil, nil, err
	}
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, nil, err
	}
	certPEM, err := os.ReadFile(filepath.Join(*certs, "publisher-dev.crt"))
	if err != nil {
		return nil, nil, err
	}
	pub, err := publisher.ParsePublicKeyPEM(certPEM)
	return key, pub, err
}

// signHandler does what a signed endpoint does without state: read the
// envelope, verify it, sign an answer of the same size as a token answer.
func signHandler(key *rsa.PrivateKey, pub *rsa.PublicKey) echo.HandlerFunc {
	return func(c echo.Context) error {
		var env publisher.Envelope
		if err := json.NewDecoder(c.Request().Body).Decode(&env); err != nil {
			return c.String(http.StatusBadRequest, err.Error())
		}
		if err := publisher.Verify(pub, env.BDATA, env.SIGN); err != nil {
			return c.String(http.StatusBadRequest, err.Error())
		}
		ans, err := publisher.Seal(key, "REWARDSIM", map[string]string{"referenceKey": "9Jq3fC0m2v6kXo1R8sYb4LwT7eHdNaUg5pZiQyVxKcE", "expireDate": "2026-11-22 19:00:00"})
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, ans)
	}
}

// ceiling is the durable-write baseline's file. Each run of the ceiling
// starts on an empty file (POST /durable/fresh between runs), as the
// first did: its runs then differ by what the machine and its disk were
// doing, not by how many writes the file already held.
type ceiling struct {
	dir   string
	mu    sync.Mutex
	g     *groupCommit
	fresh int
}

// open starts a fresh file, closing and removing the one before.
func (cl *ceiling) open() error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.g != nil {
		path := cl.g.db.Path() // bbolt forgets it on Close
		if err := cl.g.db.Close(); err != nil {
			return err
		}
		os.Remove(path)
	}
	cl.fresh++
	db, err := bolt.Open(filepath.Join(cl.dir, fmt.Sprintf("ceiling-%d.db", cl.fresh)), 0o600, nil)
	if err != nil {
		return err
	}
	cl.g = &groupCommit{db: db}
	return nil
}

func (cl *ceiling) close() {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	cl.g.db.Close()
}

// durable stores a GetReward body through the group commit (POST /durable).
func (cl *ceiling) durable(c echo.Context) error {
	cl.mu.Lock()
	g := cl.g
	cl.mu.Unlock()
	var body struct {
		VirtualID        string `json:"virtualId"`
		ExtTransactionID string `json:"extTransactionId"`
	}
	raw, err := io.ReadAll(c.Request().Body)
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	if err != nil {
		return c.String(http.StatusBadRequest, "bad body")
	}
	if err := g.put([]byte(body.VirtualID+"\x00"+body.ExtTransactionID), raw); err != nil {
		return err
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, fixed300)
}

// groupCommit is the durable-write ceiling's leader-based group commit:
// every put that arrives while a commit runs joins the next one, which
// starts as soon as the previous ends; each commit is one fsync.
type groupCommit struct {
	db      *bolt.DB
	mu      sync.Mutex
	pending []groupPut
	leading bool
}

type groupPut struct {
	key, val []byte
	done     chan error
}

func (g *groupCommit) put(key, val []byte) error {
	p := groupPut{key, val, make(chan error, 1)}
	g.mu.Lock()
	g.pending = append(g.pending, p)
	if !g.leading {
		g.leading = true
		go g.lead()
	}
	g.mu.Unlock()
	return <-p.done
}

func (g *groupCommit) lead() {
	for {
		g.mu.Lock()
		batch := g.pending
		g.pending = nil
		if len(batch) == 0 {
			g.leading = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		err := g.db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("writes"))
			if err != nil {
				return err
			}
			for _, p := range batch {
				if err := b.Put(p.key, p.val); err != nil {
					return err
				}
			}
			return nil
		})
		for _, p := range batch {
			p.done <- err
		}
	}
}
