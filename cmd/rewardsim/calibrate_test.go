package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/calibrate"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// The switches the issue lists, each with the values the docs' table
// documents (a sample of values for the free ones): the test draws a
// scenario from them and calibrate must read each back.
var calibrateDraws = []struct {
	name   string
	values []string
}{
	{"switches.failureHttpStatus", []string{"200", "400"}},
	{"switches.unknownChannel", []string{"signature-mismatch", "describe"}},
	{"tokens.expireDateFormat", []string{"datetime-ms", "iso8601", "epoch-ms"}},
	{"tokens.referenceTTL", []string{"15m", "45m", "1h", "90m", "2h"}},
	{"tokens.userTTL", []string{"10m", "30m", "1h", "75m"}},
	{"switches.cards.amountRequired", []string{"false", "true"}},
	{"switches.cards.dateandtime", []string{"reject", "now", "accept"}},
	{"switches.cards.nestedAdditionalParams", []string{"reject", "accept"}},
	{"switches.cards.channelMismatch", []string{"refuse", "use-token"}},
	{"switches.cards.invalidRequestStatus", []string{"400", "200"}},
	{"switches.cards.secondReveal", []string{"failure", "status-false"}},
	{"switches.cards.fetchSignRequired", []string{"true", "false"}},
	{"switches.cards.fetchAnswerSigned", []string{"true", "false"}},
	{"switches.cards.listDefaultLimit", []string{"5", "10", "20"}},
	{"switches.cards.listMaxLimit", []string{"25", "50", "100", "137"}},
	{"switches.cards.listBadValues", []string{"reject", "clamp"}},
	{"switches.cards.bankResend", []string{"original", "new"}},
	{"switches.cards.bankNotEligible", []string{"signed", "bare"}},
	{"switches.coupons.httpStatus", []string{"body", "mirror"}},
	{"switches.coupons.duplicate", []string{"original", "reject"}},
	{"switches.coupons.crossOffer", []string{"reject", "new", "first"}},
	{"switches.coupons.orderId", []string{"false", "true"}},
	{"switches.coupons.coinsAsNumber", []string{"refuse", "accept"}},
	{"switches.coupons.coinsMismatch", []string{"accept", "refuse"}},
	{"switches.sdk.emptySessionId", []string{"refuse", "accept"}},
}

// calibrateSeeds is how many random scenarios the test calibrates:
// REWARDSIM_CALIBRATE_SEEDS for a longer run.
func calibrateSeeds(t *testing.T) int {
	if s := os.Getenv("REWARDSIM_CALIBRATE_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("REWARDSIM_CALIBRATE_SEEDS=%q", s)
		}
		return n
	}
	return 20
}

// drawScenario is seed's scenario: default's campaigns and pools, a
// channel of its own with a campaign and two offers, and switches drawn
// from their documented values.
func drawScenario(seed int) (name, channel string, yml []byte, drawn map[string]string) {
	rng := rand.New(rand.NewPCG(uint64(seed), 46))
	drawn = map[string]string{}
	for _, d := range calibrateDraws {
		drawn[d.name] = d.values[rng.IntN(len(d.values))]
	}
	def, _ := strconv.Atoi(drawn["switches.cards.listDefaultLimit"])
	if max, _ := strconv.Atoi(drawn["switches.cards.listMaxLimit"]); max < def {
		drawn["switches.cards.listMaxLimit"] = strconv.Itoa(def) // the default must be within the maximum
	}
	name, channel = fmt.Sprintf("cal-seed-%d", seed), fmt.Sprintf("CALSEED%d", seed)
	tree := map[string]any{}
	for k, v := range drawn {
		parts := strings.Split(k, ".")
		n := tree
		for _, p := range parts[:len(parts)-1] {
			if n[p] == nil {
				n[p] = map[string]any{}
			}
			n = n[p].(map[string]any)
		}
		n[parts[len(parts)-1]] = v
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "version: 1\nextends: default\nname: %s\n", name)
	writeYAMLTree(&b, tree, "")
	fmt.Fprintf(&b, `channels:
  - {name: %[1]s, channelId: %[1]s, certificateFile: builtin:publisher-dev.crt, appKey: APP%[1]s, secKey: SEC%[1]s}
campaigns:
  - {id: CAMP-%[1]s, channel: %[1]s, triggers: [UPI], cardsPerEvent: 1, pool: DEMO-POOL, caps: [{max: 50, period: 24h}]}
offers:
  %[1]s:
    - {id: OFF-A, title: A, coins: 100, stock: 1000, purchaseLimit: 5, codes: {pattern: "A-{seq}"}}
    - {id: OFF-B, title: B, coins: 70, stock: 1000, purchaseLimit: 5, codes: {pattern: "B-{seq}"}}
`, channel)
	return name, channel, b.Bytes(), drawn
}

// sameReading compares two values of a switch: durations by length.
func sameReading(got, want string) bool {
	g, gerr := time.ParseDuration(got)
	w, werr := time.ParseDuration(want)
	return got == want || gerr == nil && werr == nil && g == w
}

func writeYAMLTree(b *bytes.Buffer, tree map[string]any, indent string) {
	keys := make([]string, 0, len(tree))
	for k := range tree {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if sub, ok := tree[k].(map[string]any); ok {
			fmt.Fprintf(b, "%s%s:\n", indent, k)
			writeYAMLTree(b, sub, indent+"  ")
			continue
		}
		fmt.Fprintf(b, "%s%s: %v\n", indent, k, tree[k])
	}
}

// calTarget is a simulator run as the UAT calibrate is pointed at.
type calTarget struct {
	url, control string
}

func (c calTarget) upload(t *testing.T, name, channel string, yml []byte) {
	t.Helper()
	q := url.Values{"name": {name + ".yaml"}, "activate": {"true"}, "channel": {channel}}
	res, err := http.Post(c.control+"/__sim/scenarios?"+q.Encode(), "application/yaml", bytes.NewReader(yml))
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, res)
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusCreated {
		t.Fatalf("upload %s: HTTP %d %s\n%s", name, res.StatusCode, body, yml)
	}
	c.activate(t, name)
}

// activate makes name the scenario of every channel without its own:
// switches.unknownChannel is read from it (an unknown CHANNELID names none).
func (c calTarget) activate(t *testing.T, name string) {
	t.Helper()
	res, err := http.Post(c.control+"/__sim/scenarios/"+name+"/activate", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, res); res.StatusCode != http.StatusOK {
		t.Fatalf("activate %s: HTTP %d %s", name, res.StatusCode, body)
	}
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(res.Body)
	return b.String()
}

// stored is the number of exchanges the target's journal holds.
func (c calTarget) stored(t *testing.T) int {
	t.Helper()
	res, err := http.Get(c.control + "/__sim/journal?limit=1")
	if err != nil {
		t.Fatal(err)
	}
	var page struct{ Stored int }
	if err := json.Unmarshal([]byte(readAll(t, res)), &page); err != nil {
		t.Fatal(err)
	}
	return page.Stored
}

// args is calibrate's command line against c as channel.
func (c calTarget) args(channel string, extra ...string) []string {
	certs := filepath.Join("..", "..", "certs")
	return append([]string{"calibrate", "--rewards", c.url, "--bank", c.url, "--hotdeals", c.url, "--channel", channel,
		"--key", filepath.Join(certs, "publisher-dev.key"), "--service-cert", filepath.Join(certs, "service-dev.crt"),
		"--app-key", "APP" + channel, "--sec-key", "SEC" + channel}, extra...)
}

// calReport is the part of calibrate's JSON the tests read.
type calReport struct {
	Calls    int
	Budget   int
	Stopped  string
	Switches []struct {
		Switch     string
		Determined bool
		Value      string
		Why        string
	}
}

func (r calReport) value(name string) (string, string) {
	for _, s := range r.Switches {
		if s.Switch == name {
			if !s.Determined {
				return "", s.Why
			}
			return s.Value, ""
		}
	}
	return "", "absent"
}

// readCalReport reads and validates a --json file against schemas/calibrate.json.
func readCalReport(t *testing.T, path string) calReport {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	schemaRaw, _ := fs.ReadFile(schemas.FS, "calibrate.json")
	c := jsonschema.NewCompiler()
	if err := c.AddResource("calibrate.json", bytes.NewReader(schemaRaw)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("calibrate.json")
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err != nil {
		t.Fatalf("%s does not match schemas/calibrate.json: %v", path, err)
	}
	var rep calReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

func exitCode(err error) int {
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}

// TestCalibrate drives a real `rewardsim serve` as the UAT: seeded random
// scenarios, each on a channel of its own, read back switch by switch.
func TestCalibrate(t *testing.T) {
	bin := buildBinary(t)
	cmd, urls := startServe(t, bin, t.TempDir())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	uat := calTarget{url: urls["all"], control: urls["control"]}
	dir := t.TempDir()

	t.Run("recovers every listed switch", func(t *testing.T) {
		for seed := 1; seed <= calibrateSeeds(t); seed++ {
			name, channel, yml, drawn := drawScenario(seed)
			uat.upload(t, name, channel, yml)
			before := uat.stored(t)
			js := filepath.Join(dir, name+".json")
			out, err := run(t, uat.args(channel, "--allow-writes", "--offer", "OFF-A", "--offer", "OFF-B", "--campaign", "CAMP-"+channel,
				"--json", js, "--out", filepath.Join(dir, name+".overlay.yaml"))...)
			if err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, out)
			}
			rep := readCalReport(t, js)
			if got := uat.stored(t) - before; got != rep.Calls || got > rep.Budget {
				t.Errorf("seed %d: the journal counts %d calls; calibrate says %d of a budget of %d", seed, got, rep.Calls, rep.Budget)
			}
			for _, d := range calibrateDraws {
				want := drawn[d.name]
				if d.name == "switches.cards.dateandtime" && want != "reject" {
					// "now" answers as "accept" does: no answer shows the date a card keeps.
					if got, why := rep.value(d.name); got != "" || !strings.Contains(why, "it is accept or now, not reject") {
						t.Errorf("seed %d: %s = %q (%s), drawn %q: want not determined, accept or now", seed, d.name, got, why, want)
					}
					continue
				}
				if got, why := rep.value(d.name); !sameReading(got, want) {
					t.Errorf("seed %d: %s = %q (%s), drawn %q", seed, d.name, got, why, drawn[d.name])
				}
			}
			os.WriteFile(filepath.Join(dir, name+".yaml"), yml, 0o644)
		}
	})
	t.Run("the overlay reproduces the target", func(t *testing.T) { calibrateOverlayNoDrift(t, bin, uat, dir) })
	t.Run("budget holds", func(t *testing.T) { calibrateBudget(t, uat, dir) })
	t.Run("writes off", func(t *testing.T) { calibrateWritesOff(t, uat, dir) })
	t.Run("nonsense target", func(t *testing.T) { calibrateNonsense(t, bin) })
	t.Run("a recording carries the switches its answers show", func(t *testing.T) { calibrateRecording(t, bin, uat, dir) })
}

// calibrateRecording: a recording made through `rewardsim record` in
// front of a service that reads two switches otherwise than default
// carries them, and its replay against default reports DIFFERENT TARGET
// naming each.
func calibrateRecording(t *testing.T, bin string, uat calTarget, dir string) {
	vendor := filepath.Join(dir, "vendor.yaml")
	os.WriteFile(vendor, []byte("version: 1\nextends: default\ntokens: {expireDateFormat: iso8601}\nswitches: {failureHttpStatus: 400}\n"), 0o644)
	up, upURLs := startServe(t, bin, t.TempDir(), "--scenario", vendor)
	defer func() { up.Process.Kill(); up.Wait() }()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	file := filepath.Join(dir, "vendor-recording.json")
	rec := exec.Command(bin, "record", "--upstream", upURLs["all"], "--listen", addr, "--out", file)
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	defer rec.Process.Kill()
	key := mustRead(t, filepath.Join("..", "..", "certs", "publisher-dev.key"))
	pk, err := publisher.ParsePrivateKeyPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := publisher.Seal(pk, "DEMOBANK", map[string]string{"bName": "DEMOBANK"})
	bad := good
	bad.SIGN = good.SIGN[:10] + "AAAA" + good.SIGN[14:]
	for i, env := range []publisher.Envelope{good, bad} {
		body, _ := json.Marshal(env)
		var res *http.Response
		for try := 0; try < 200; try++ { // the proxy starts listening
			if res, err = http.Post("http://"+addr+"/api/getSecuredReferenceToken", "application/json", bytes.NewReader(body)); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, res); i == 1 && res.StatusCode != http.StatusBadRequest {
			t.Fatalf("a bad SIGN through the proxy: HTTP %d %s", res.StatusCode, got)
		}
	}
	rec.Process.Signal(syscall.SIGTERM)
	if err := rec.Wait(); err != nil {
		t.Fatalf("record: %v", err)
	}
	var recorded struct{ Switches map[string]string }
	if err := json.Unmarshal(mustRead(t, file), &recorded); err != nil {
		t.Fatal(err)
	}
	if recorded.Switches["switches.failureHttpStatus"] != "400" || recorded.Switches["tokens.expireDateFormat"] != "iso8601" {
		t.Fatalf("the recording's switches: %v", recorded.Switches)
	}
	out, err := run(t, "replay", file, "--target", uat.url, "--control", uat.control)
	for _, want := range []string{"DIFFERENT TARGET: the recorded service reads switches.failureHttpStatus as 400",
		"DIFFERENT TARGET: the recorded service reads tokens.expireDateFormat as iso8601"} {
		if exitCode(err) != 1 || !strings.Contains(out, want) {
			t.Errorf("replay against default: exit %d, want 1 and %q\n%s", exitCode(err), want, out)
		}
	}
}

// calibrateOverlayNoDrift: seed 1's overlay, activated on a second
// simulator, reads like the first; --against reports no drift both
// ways, and a drift against default exits 1 naming the switch.
func calibrateOverlayNoDrift(t *testing.T, bin string, uat calTarget, dir string) {
	name, channel, _, drawn := drawScenario(1)
	overlay := filepath.Join(dir, name+".overlay.yaml")
	second, urls := startServe(t, bin, t.TempDir(), "--scenario", overlay)
	defer func() { second.Process.Kill(); second.Wait() }()
	twin := calTarget{url: urls["all"], control: urls["control"]}
	uat.activate(t, name)

	// --wait 2s: a session outliving the wait is all a lifetime of 0 (never) can show.
	out, err := run(t, uat.args(channel, "--allow-writes", "--offer", "OFF-A", "--offer", "OFF-B", "--campaign", "CAMP-"+channel, "--wait", "2s", "--against", overlay)...)
	if err != nil || !strings.Contains(out, "no drift against") {
		t.Fatalf("the first against its own overlay: %v\n%s", err, out)
	}
	args := twin.args("DEMOBANK", "--allow-writes", "--offer", "OFF-A", "--offer", "OFFER-VIP", "--campaign", "CAMP-DEMO",
		"--app-key", "DEMOAPPKEY", "--sec-key", "DEMOSECKEY", "--wait", "2s", "--against", filepath.Join(dir, name+".yaml"))
	args[slices.Index(args, "OFF-A")] = "OFFER-DEMO"
	if out, err := run(t, args...); err != nil || !strings.Contains(out, "no drift against") {
		t.Fatalf("the second simulator, running the overlay, against the first's scenario: %v\n%s", err, out)
	}
	// Against default, every drawn switch that differs from default is a drift.
	out, err = run(t, uat.args(channel, "--allow-writes", "--offer", "OFF-A", "--offer", "OFF-B", "--campaign", "CAMP-"+channel,
		"--against", filepath.Join("..", "..", "scenarios", "default.yaml"))...)
	if exitCode(err) != 1 || !strings.Contains(out, "DRIFT ") {
		t.Fatalf("against default: exit %d, want 1 and drifts\n%s", exitCode(err), out)
	}
	if drawn["switches.failureHttpStatus"] == "400" && !strings.Contains(out, "DRIFT switches.failureHttpStatus: the scenario says 200, the target answers 400") {
		t.Errorf("the drift of failureHttpStatus is not named:\n%s", out)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// calibrateBudget: the target's journal counts no more calls than --budget.
func calibrateBudget(t *testing.T, uat calTarget, dir string) {
	name, channel, yml, _ := drawScenario(2)
	uat.upload(t, name, channel, yml)
	for _, budget := range []int{1, 7, 19} {
		before := uat.stored(t)
		js := filepath.Join(dir, "budget.json")
		out, err := run(t, uat.args(channel, "--allow-writes", "--offer", "OFF-A", "--campaign", "CAMP-"+channel, "--budget", strconv.Itoa(budget), "--json", js)...)
		if err != nil {
			t.Fatalf("budget %d: %v\n%s", budget, err, out)
		}
		rep := readCalReport(t, js)
		if got := uat.stored(t) - before; got > budget || got != rep.Calls {
			t.Errorf("budget %d: the journal counts %d calls, calibrate %d", budget, got, rep.Calls)
		}
		if _, why := rep.value("switches.coupons.coinsMismatch"); !strings.HasPrefix(why, "budget spent") {
			t.Errorf("budget %d: the last probe's switch: %q, want budget spent", budget, why)
		}
	}
	// Answers are verified with --service-cert: the wrong one is a warning.
	args := uat.args(channel, "--budget", "2")
	args[slices.Index(args, "--service-cert")+1] = filepath.Join("..", "..", "certs", "publisher-dev.crt")
	out, err := run(t, args...)
	if err != nil || !strings.Contains(out, "warning: the SIGN of getSecuredReferenceToken's answer does not verify with --service-cert") ||
		!strings.Contains(out, "[its SIGN does not verify with --service-cert]") {
		t.Errorf("a wrong --service-cert: %v\n%s", err, out)
	}
}

// calibrateWritesOff: without --allow-writes no card, coupon or stock
// changes on the target, and the write probes say they need writes.
func calibrateWritesOff(t *testing.T, uat calTarget, dir string) {
	name, channel, yml, _ := drawScenario(3)
	channel += "RO"
	yml = bytes.ReplaceAll(yml, []byte("CALSEED3"), []byte(channel))
	name += "-ro"
	yml = bytes.Replace(yml, []byte("name: cal-seed-3"), []byte("name: "+name), 1)
	uat.upload(t, name, channel, yml)
	before := uat.stored(t)
	js := filepath.Join(dir, "ro.json")
	out, err := run(t, uat.args(channel, "--offer", "OFF-A", "--offer", "OFF-B", "--campaign", "CAMP-"+channel, "--json", js)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rep := readCalReport(t, js)
	for _, s := range []string{"switches.cards.secondReveal", "switches.coupons.duplicate", "switches.cards.bankResend"} {
		if _, why := rep.value(s); !strings.HasPrefix(why, "needs writes") {
			t.Errorf("%s: %q, want needs writes", s, why)
		}
	}
	if v, _ := rep.value("switches.failureHttpStatus"); v == "" {
		t.Errorf("the read-only probes decided nothing:\n%s", out)
	}
	// Every user the run named has no card and no coupon.
	res, err := http.Get(fmt.Sprintf("%s/__sim/journal?after=%d&limit=1000", uat.control, before))
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Entries []struct {
			VirtualID string `json:"virtualId"`
		}
	}
	if err := json.Unmarshal([]byte(readAll(t, res)), &page); err != nil {
		t.Fatal(err)
	}
	users := 0
	for _, e := range page.Entries {
		if e.VirtualID == "" {
			continue
		}
		users++
		res, err := http.Get(uat.control + "/__sim/state/users/" + channel + "/" + url.PathEscape(e.VirtualID))
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Cards, Coupons []json.RawMessage
		}
		body := readAll(t, res)
		if json.Unmarshal([]byte(body), &st) != nil || len(st.Cards)+len(st.Coupons) > 0 {
			t.Errorf("user %s after a run without writes: %s", e.VirtualID, body)
		}
	}
	if users == 0 {
		t.Fatal("the journal names no user of the run")
	}
	stock := catalogueStock(t, uat.url, channel)
	if stock["OFF-A"] != 1000 || stock["OFF-B"] != 1000 {
		t.Errorf("stock after a run without writes: %v", stock)
	}
}

func catalogueStock(t *testing.T, base, channel string) map[string]int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/getCatalogue", strings.NewReader(`{"channelName":"`+channel+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CHANNELID", channel)
	req.Header.Set("Authorization", "ServiceAppKey APP"+channel+":SEC"+channel)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var ans struct {
		Data struct {
			Offers []struct {
				ID    string
				Stock int
			}
		}
	}
	body := readAll(t, res)
	if err := json.Unmarshal([]byte(body), &ans); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, o := range ans.Data.Offers {
		out[o.ID] = o.Stock
	}
	return out
}

// calibrateNonsense: against a plain HTTP server answering 404 or HTML,
// every switch is not determined, with a clear message and exit 2, within
// the budget; --dry-run calls nothing.
func calibrateNonsense(t *testing.T, bin string) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", "--rewards", "http://127.0.0.1:1"}, "missing --bank, --hotdeals, --channel, --key, --service-cert, --app-key, --sec-key"},
		{[]string{"calibrate", "--budget", "0"}, "--budget must be at least 1"},
		{[]string{"calibrate", "--wait", "-1s"}, "--wait must not be negative"},
		{calTarget{url: "http://127.0.0.1:1"}.args("X", "--key", "../../certs/publisher-dev.crt"), "--key ../../certs/publisher-dev.crt:"},
		{calTarget{url: "http://127.0.0.1:1"}.args("X", "--timezone", "IST"), `--timezone "IST": want a UTC offset`},
		{calTarget{url: "http://127.0.0.1:1"}.args("X", "--against", "nowhere.yaml"), "--against: open nowhere.yaml"},
	} {
		out, err := run(t, tc.args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, %v, want 2 and %q\n%s", tc.args[1:3], exitCode(err), err, tc.want, out)
		}
	}
	for _, kind := range []string{"404", "html"} {
		var hits atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			if kind == "404" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>Welcome to nginx!</body></html>")
		}))
		tgt := calTarget{url: srv.URL}
		js := filepath.Join(t.TempDir(), "n.json")
		dry := exec.Command(bin, tgt.args("CALX", "--dry-run")...)
		if out, err := dry.CombinedOutput(); err != nil || !strings.Contains(string(out), "no call made") || hits.Load() != 0 {
			t.Fatalf("%s: --dry-run: %v, %d calls\n%s", kind, err, hits.Load(), out)
		}
		c := exec.Command(bin, tgt.args("CALX", "--allow-writes", "--offer", "O", "--budget", "10", "--json", js)...)
		out, err := c.CombinedOutput()
		srv.Close()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "does not speak this service's API") {
			t.Fatalf("%s: exit %v, want 2 and a clear message\n%s", kind, err, out)
		}
		rep := readCalReport(t, js)
		if hits.Load() > 10 || int(hits.Load()) != rep.Calls {
			t.Errorf("%s: %d calls reached the server, calibrate says %d, budget 10", kind, hits.Load(), rep.Calls)
		}
		for _, s := range rep.Switches {
			if s.Determined {
				t.Errorf("%s: %s determined as %q", kind, s.Switch, s.Value)
			}
		}
	}
}

// calibrateService starts `rewardsim serve` running yml as the real
// service calibrate is pointed at (DEMOBANK's channel and stock).
func calibrateService(t *testing.T, bin, yml string) (calTarget, string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "service.yaml")
	if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd, urls := startServe(t, bin, t.TempDir(), "--scenario", file)
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return calTarget{url: urls["all"], control: urls["control"]}, file
}

// demoArgs is calibrate's command line as DEMOBANK against c.
func (c calTarget) demoArgs(extra ...string) []string {
	return c.args("DEMOBANK", append([]string{"--app-key", "DEMOAPPKEY", "--sec-key", "DEMOSECKEY", "--offer", "OFFER-DEMO"}, extra...)...)
}

// calCheck is the --against part of calibrate's JSON.
type calCheck struct {
	Against *struct {
		Checked   int
		Unchecked []struct{ Switch, Cause, Why string }
		Verdict   string
	}
}

func readCalCheck(t *testing.T, path string) calCheck {
	t.Helper()
	readCalReport(t, path) // validated against schemas/calibrate.json
	var c calCheck
	if err := json.Unmarshal(mustRead(t, path), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// A read-only --against run never says "no drift" over the switches it
// could not check: the service answers a duplicate claim 409 where the
// scenario says original, a reading only a write shows. The verdict
// counts what went unchecked and why, the JSON lists each, and
// --fail-on-unchecked turns it into exit 1; with writes the drift shows
// (CPN-5), and a scenario the service matches passes even the flag.
func TestCalibrate_noDriftOnlyOverWhatWasChecked(t *testing.T) {
	bin := buildBinary(t)
	uat, service := calibrateService(t, bin, "version: 1\nextends: default\nswitches:\n  coupons: {duplicate: reject}\n")
	dir := t.TempDir()
	expected := filepath.Join(dir, "expected.yaml")
	if err := os.WriteFile(expected, []byte("version: 1\nextends: default\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writes := []string{"--allow-writes", "--campaign", "CAMP-DEMO", "--wait", "2s"}
	for _, tc := range []struct {
		name      string
		against   string
		extra     []string
		exit      int
		want      []string
		unchecked string // a switch the JSON lists unchecked, with its cause
		cause     string
		noNoDrift bool
	}{
		{name: "read-only", against: expected, exit: 0, noNoDrift: true, unchecked: "switches.coupons.duplicate", cause: "needs-writes",
			want: []string{"drift unknown against " + expected + ": none among ", " not checked: ", " need --allow-writes",
				"NOT CHECKED switches.coupons.duplicate: needs writes"}},
		{name: "read-only, --fail-on-unchecked", against: expected, extra: []string{"--fail-on-unchecked"}, exit: 1, noNoDrift: true,
			unchecked: "switches.coupons.duplicate", cause: "needs-writes", want: []string{"drift unknown against "}},
		{name: "with writes", against: expected, extra: writes, exit: 1, noNoDrift: true,
			want: []string{"DRIFT switches.coupons.duplicate: the scenario says original, the target answers reject", " drifted against "}},
		{name: "with writes, the service's own scenario, --fail-on-unchecked", against: service, extra: append(writes, "--fail-on-unchecked"), exit: 0,
			want: []string{"no drift against " + service + ": "}, unchecked: "switches.webhook.deadline", cause: "not-observable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			out, err := run(t, uat.demoArgs(append([]string{"--against", tc.against, "--json", js}, tc.extra...)...)...)
			if exitCode(err) != tc.exit {
				t.Fatalf("exit %d (%v), want %d\n%s", exitCode(err), err, tc.exit, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output does not say %q\n%s", w, out)
				}
			}
			if tc.noNoDrift && strings.Contains(out, "no drift") {
				t.Errorf("the output says no drift\n%s", out)
			}
			c := readCalCheck(t, js)
			if c.Against == nil || c.Against.Checked == 0 || !strings.Contains(out, c.Against.Verdict+"\n") {
				t.Fatalf("the JSON's comparison: %+v\n%s", c.Against, out)
			}
			if tc.unchecked == "" {
				return
			}
			for _, u := range c.Against.Unchecked {
				if u.Switch == tc.unchecked {
					if u.Cause != tc.cause || u.Why == "" {
						t.Errorf("%s unchecked as %+v, want cause %s", u.Switch, u, tc.cause)
					}
					return
				}
			}
			t.Errorf("the JSON does not list %s unchecked: %+v", tc.unchecked, c.Against.Unchecked)
		})
	}
}

// A blind draw of four switches (sessions.ttl, switches.webhook.interval,
// switches.cards.amountRequired, switches.webhook.deadline), each set off
// its default: calibrate finds the two a publisher can observe, the
// session's lifetime by watching it within --wait, and says plainly why
// it cannot the pushes; every switch is in the output; without --wait the
// session's lifetime says it needs waiting (GR-5, SESS-2, WH-2).
func TestCalibrate_blindDrawOfFour(t *testing.T) {
	bin := buildBinary(t)
	uat, _ := calibrateService(t, bin, `version: 1
extends: default
sessions: {ttl: 7s}
switches:
  cards: {amountRequired: true}
  webhook: {interval: 45s, deadline: 12s}
`)
	dir := t.TempDir()
	const pushes = "not-observable: not observable from a publisher's side: the vendor sends a coupon-status push"
	for _, tc := range []struct {
		name  string
		extra []string
		want  map[string]string // a value, or "cause: words of why"
	}{
		{"without --wait", nil, map[string]string{
			"sessions.ttl":                  "needs-wait: needs waiting: a session's lifetime shows only once it has run out; run with --wait",
			"switches.cards.amountRequired": "true",
		}},
		{"with --wait", []string{"--wait", "20s"}, map[string]string{
			"sessions.ttl": "7s", "switches.cards.amountRequired": "true",
			"switches.webhook.interval": pushes, "switches.webhook.deadline": pushes,
		}},
		{"with too short a --wait", []string{"--wait", "5s"}, map[string]string{
			"sessions.ttl": "needs-wait: needs waiting longer: the session was still open after --wait 5s",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			out := calibrateAndCount(t, uat, js, append([]string{"--allow-writes", "--campaign", "CAMP-DEMO"}, tc.extra...)...)
			rep := readCalReport(t, js)
			for name, want := range tc.want {
				if got := calValueOrCause(t, js, rep, name); !strings.HasPrefix(got, want) {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			for _, s := range calibrate.Switches {
				if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(s.Name) + ` `).MatchString(out) {
					t.Errorf("%s is not in the output\n%s", s.Name, out)
				}
			}
		})
	}
	// A budget that leaves a few looks over the wait: the first session
	// closes between two looks far apart, where several round lifetimes
	// fit, and a second one watched closely over that span reads it.
	t.Run("a budget for a few looks", func(t *testing.T) {
		js := filepath.Join(dir, "few.json")
		calibrateAndCount(t, uat, js)
		budget := readCalReport(t, js).Calls + 14 // 3 calls to start the watch, 11 looks
		calibrateAndCount(t, uat, js, "--wait", "40s", "--budget", strconv.Itoa(budget))
		if got := calValueOrCause(t, js, readCalReport(t, js), "sessions.ttl"); got != "7s" {
			t.Errorf("sessions.ttl = %q within a budget of %d", got, budget)
		}
	})
}

// calibrateAndCount runs calibrate as DEMOBANK against uat, writing js,
// and checks the target's journal counts the calls calibrate says it made.
func calibrateAndCount(t *testing.T, uat calTarget, js string, extra ...string) string {
	t.Helper()
	before := uat.stored(t)
	out, err := run(t, uat.demoArgs(append([]string{"--json", js}, extra...)...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got, rep := uat.stored(t)-before, readCalReport(t, js); got != rep.Calls || got > rep.Budget {
		t.Errorf("the journal counts %d calls; calibrate says %d of a budget of %d", got, rep.Calls, rep.Budget)
	}
	return out
}

// calValueOrCause is a switch's value, or its cause and why.
func calValueOrCause(t *testing.T, js string, rep calReport, name string) string {
	t.Helper()
	got, why := rep.value(name)
	if why == "" {
		return got
	}
	var causes struct {
		Switches []struct{ Switch, Cause string }
	}
	if err := json.Unmarshal(mustRead(t, js), &causes); err != nil {
		t.Fatal(err)
	}
	for _, s := range causes.Switches {
		if s.Switch == name {
			return s.Cause + ": " + why
		}
	}
	return "absent"
}
