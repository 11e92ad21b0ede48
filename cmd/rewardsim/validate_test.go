package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewardsim/rewardsim/sim/simtest"
)

// clause: SIM-1, SIM-3
// `rewardsim validate` refuses what the control API refuses, in the same
// words (an unknown fault endpoint, a malformed webhook URL), and schema
// problems read as reasons, never as "not failed".
func TestValidate_SIM1_sameWordsAsTheControlAPI(t *testing.T) {
	s := simtest.New(t)
	post := func(path, body string) string {
		res, err := http.Post(s.ControlURL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		var e struct{ Error string }
		if res.StatusCode < 400 || json.Unmarshal(out, &e) != nil {
			t.Fatalf("POST %s %s: HTTP %d %s", path, body, res.StatusCode, out)
		}
		return e.Error
	}
	pem, err := os.ReadFile(filepath.Join("..", "..", "certs", "publisher-dev.crt"))
	if err != nil {
		t.Fatal(err)
	}
	certJSON := strings.ReplaceAll(strings.ReplaceAll(string(pem), "\n", `\n`), `"`, `\"`)
	cases := []struct {
		name, control, path, yaml, words string
	}{
		{"unknown fault endpoint", `{"endpoint":"NoSuchOp","action":{"kind":"internal-error"}}`, "/__sim/faults",
			"faults:\n  - endpoint: NoSuchOp\n    action: {kind: internal-error}\n", `endpoint "NoSuchOp" is not an operation name`},
		{"delay without a delay", `{"endpoint":"GetReward","action":{"kind":"delay"}}`, "/__sim/faults",
			"faults:\n  - endpoint: GetReward\n    action: {kind: delay}\n", "a delay action needs a positive delay"},
		{"a kind the endpoint cannot show", `{"endpoint":"GetAuthToken","action":{"kind":"coupon-error","errorCode":"COUPON_EXHAUSTED"}}`, "/__sim/faults",
			"faults:\n  - endpoint: GetAuthToken\n    action: {kind: coupon-error, errorCode: COUPON_EXHAUSTED}\n",
			`endpoint GetAuthToken cannot show a coupon-error fault; it can show internal-error, signature-mismatch, http-status, delay, drop-connection, malformed-body`},
		{"malformed webhook URL", `{"name":"CI-1","certificate":"` + certJSON + `","webhookUrl":"ftp//nowhere"}`, "/__sim/channels",
			"", "webhookUrl: is not an absolute http(s) URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := post(c.path, c.control); !strings.Contains(got, c.words) {
				t.Errorf("control API: %s, want %q", got, c.words)
			}
			yaml := "version: 1\nname: v\nchannels:\n  - name: DEMOBANK\n    certificateFile: builtin:publisher-dev.crt\n"
			if c.yaml == "" {
				yaml += "    webhookUrl: ftp//nowhere\n"
			}
			file := filepath.Join(t.TempDir(), "v.yaml")
			if err := os.WriteFile(file, []byte(yaml+c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			root := newRoot()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs([]string{"validate", file})
			if err := root.Execute(); err == nil || !strings.Contains(out.String(), strings.TrimPrefix(c.words, "webhookUrl: ")) {
				t.Errorf("validate: %v\n%s\nwant %q", err, out.String(), c.words)
			}
		})
	}
	// Schema problems read as the file author's reasons.
	file := filepath.Join(t.TempDir(), "both.yaml")
	yaml := "version: 1\nname: both\nchannels:\n  - name: DEMOBANK\n    certificateFile: builtin:publisher-dev.crt\n" +
		"campaigns:\n  - {id: C1, channel: DEMOBANK, pool: P1, tiers: [{minAmount: 0, pool: P1}]}\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "validate", file)
	if err == nil || !strings.Contains(out, "a campaign has either pool or tiers, not both") || strings.Contains(out, "not failed") {
		t.Errorf("validate: %v\n%s", err, out)
	}
}

// clause: SIM-1
// Issue 24: `rewardsim validate` (the built binary) reports every problem
// of a file in one pass and in line order, schema and compiler alike;
// enumerations are checked (a coupon errorCode, a fault kind, a switch
// value) and a near miss gets "did you mean"; an unknown key names the
// known ones; no message is a raw pattern.
func TestValidate_SIM1_onePassLineOrderDidYouMean(t *testing.T) {
	bin := buildBinary(t)
	file := filepath.Join(t.TempDir(), "typos.yaml")
	yaml := `version: 1
name: typos
switches:
  cards:
    secondRevael: failure
    dateandtime: rejct
channels:
  - name: DEMOBANK
    certificateFile: builtin:publisher-dev.crt
campaigns:
  - {id: C1, channel: NOBANK, pool: P1}
faults:
  - endpoint: fetchCouponCode
    action: {kind: coupon-error, errorCode: COUPON_EXAUSTED}
  - endpoint: GetReward
    action: {kind: not-elgible}
`
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := cli(t, bin, nil, "validate", file)
	want := []string{
		`:5: /switches/cards/secondRevael: unknown key "secondRevael"; did you mean secondReveal?`,
		`:6: /switches/cards/dateandtime: "rejct" is not one of reject, now, accept; did you mean reject?`,
		`:11: /campaigns/0`, // the compiler's check of the same pass
		`:14: /faults/0/action/errorCode: "COUPON_EXAUSTED" is not one of`,
		`did you mean COUPON_EXHAUSTED?`,
		`:16: /faults/1/action/kind: "not-elgible" is not one of`,
		`did you mean not-eligible?`,
	}
	at := 0
	for _, w := range want {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("exit %d: want %q after offset %d (line order)\n%s", code, w, at, out)
		}
		at += i + len(w)
	}
	if code != 1 || strings.Contains(out, "must match pattern") || strings.Contains(out, "additionalProperties") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
