package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
	"github.com/rewardsim/rewardsim/sim/publisher"
	"github.com/rewardsim/rewardsim/sim/simtest"
)

var controlSchemas = sync.OnceValue(func() *schema.Set {
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		panic(err)
	}
	return set
})

// ctl calls the control API. body is JSON-encoded unless it is a string
// (sent as YAML). Every answer must be below 500, and every 4xx must be in
// the control error shape.
func ctl(t testing.TB, s *simtest.Server, method, path string, body any, token ...string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	ctype := "application/json"
	switch b := body.(type) {
	case nil:
	case string:
		rd, ctype = strings.NewReader(b), "application/yaml"
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.ControlURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	if len(token) > 0 {
		req.Header.Set("X-Rewardsim-Control-Token", token[0])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 500 {
		t.Errorf("%s %s answered HTTP %d: %s", method, path, res.StatusCode, out)
	}
	if res.StatusCode >= 400 {
		if err := controlSchemas().ValidateJSON("control.error", out); err != nil {
			t.Errorf("%s %s: HTTP %d answer outside control.error.json: %v: %s", method, path, res.StatusCode, err, out)
		}
	}
	return res.StatusCode, out
}

// ctlOK calls the control API and fails unless the status is want.
func ctlOK(t testing.TB, s *simtest.Server, want int, method, path string, body any) map[string]any {
	t.Helper()
	st, out := ctl(t, s, method, path, body)
	if st != want {
		t.Fatalf("%s %s: HTTP %d, want %d: %s", method, path, st, want, out)
	}
	var m map[string]any
	if len(out) > 0 {
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, out)
		}
	}
	return m
}

func decodeInto(t testing.TB, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}

type keyPair struct{ keyPEM, certPEM []byte }

// Two publisher keys, made once: channels registered at run time get
// keys of their own.
var testKeys = sync.OnceValue(func() [2]keyPair {
	var out [2]keyPair
	for i := range out {
		k, c, err := publisher.NewKeyPair(2048, "CI", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 10*365*24*time.Hour)
		if err != nil {
			panic(err)
		}
		out[i] = keyPair{k, c}
	}
	return out
})

// registerChannel registers a channel with key i and returns its client.
func registerChannel(t testing.TB, s *simtest.Server, name string, key int, webhookURL string) *publisher.Client {
	t.Helper()
	kp := testKeys()[key]
	body := map[string]any{"name": name, "channelId": name + "-ID", "certificate": string(kp.certPEM), "appKey": name + "-APP", "secKey": name + "-SEC"}
	if webhookURL != "" {
		body["webhookUrl"] = webhookURL
	}
	ctlOK(t, s, http.StatusCreated, "POST", "/__sim/channels", body)
	priv, err := publisher.ParsePrivateKeyPEM(kp.keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	c := *s.Client
	c.ChannelID, c.Channel, c.Key, c.AppKey, c.SecKey = name+"-ID", name, priv, name+"-APP", name+"-SEC"
	return &c
}

var bg = context.Background()

// ctlOKRaw GETs a control path and returns the 200 answer's body.
func ctlOKRaw(t *testing.T, s *simtest.Server, path string) []byte {
	t.Helper()
	st, out := ctl(t, s, "GET", path, nil)
	if st != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d %s", path, st, out)
	}
	return out
}
