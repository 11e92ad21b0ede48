package scenario_test

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/scenarios"
	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/scenario"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

const base = `version: 1
name: t
channels:
  - name: DEMOBANK
    certificateFile: builtin:publisher-dev.crt
`

// clause: SIM-1 (invalid files are refused with file, line, path and reason)
func TestParseErrors_SIM1(t *testing.T) {
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	pem, _ := certs.FS.ReadFile(certs.PublisherCert)
	src := scenario.Sources{Builtin: certs.FS, Files: fstest.MapFS{"pub.crt": {Data: pem}, "junk.crt": {Data: []byte("junk")}}}
	cases := []struct {
		name, yaml, want string
	}{
		{"YAML syntax", "version: 1\nname: [unclosed\n", "f.yaml:1: yaml: line 1: did not find expected"},
		{"empty file", "", "f.yaml: file is empty"},
		{"unknown top-level key", base + "colour: blue\n", "f.yaml:6: /colour: unknown key \"colour\" (known keys here: version, name"},
		{"unknown channel key", base + "    apiKey: x\n", "f.yaml:6: /channels/0/apiKey: unknown key \"apiKey\"; did you mean appKey?"},
		{"wrong version", strings.Replace(base, "version: 1", "version: 9", 1), "f.yaml:1: /version: value must be \"1\""},
		{"missing channels", "version: 1\nname: t\n", "f.yaml:1: /channels: is required"},
		{"bad switch value", base + "switches:\n  failureHttpStatus: 302\n", "f.yaml:7: /switches/failureHttpStatus: 302 is not one of 200, 400"},
		{"bad duration", base + "tokens:\n  userTTL: soon\n", "f.yaml:7: /tokens/userTTL"},
		{"bad timezone", base + "timezone: \"+25:00\"\n", "f.yaml:6: /timezone: timezone \"+25:00\" is not an offset"},
		{"timezone by name, not a pattern", base + "timezone: IST\n", "f.yaml:6: /timezone: is not a UTC offset: write +05:30 or -03:00"},
		{"coupon errorCode misspelt", base + "faults:\n  - {endpoint: fetchCouponCode, action: {kind: coupon-error, errorCode: COUPON_EXAUSTED}}\n", "did you mean COUPON_EXHAUSTED?"},
		{"missing certificate file", strings.Replace(base, "builtin:publisher-dev.crt", "nope.crt", 1), "f.yaml:5: /channels/0/certificateFile: open nope.crt"},
		{"certificate not PEM", strings.Replace(base, "builtin:publisher-dev.crt", "junk.crt", 1), "f.yaml:5: /channels/0/certificateFile: no PEM block found"},
		{"duplicate channel", base + "  - name: DEMOBANK\n    channelId: OTHER\n    certificateFile: pub.crt\n", `f.yaml:6: /channels/1/name: channel name "DEMOBANK" is used twice`},
		{"http-status fault without status", base + "faults:\n  - endpoint: '*'\n    action: {kind: http-status}\n", "f.yaml:8: /faults/0/action/status: an http-status action needs a status"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenario.Parse("f.yaml", []byte(c.yaml), set, src)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v\nwant one containing %q", err, c.want)
			}
		})
	}
	if _, err := scenario.Parse("f.yaml", []byte(strings.Replace(base, "builtin:publisher-dev.crt", "pub.crt", 1)), set, src); err != nil {
		t.Fatalf("a certificate beside the file: %v", err)
	}
}

// The embedded default scenario is valid and says what docs/scenarios.md says.
func TestDefaultScenario(t *testing.T) {
	set, _ := schema.Compile(schemas.FS)
	data, _ := scenarios.FS.ReadFile(scenarios.Default)
	s, err := scenario.Parse(scenarios.Default, data, set, scenario.Sources{Builtin: certs.FS})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := s.ChannelByID("DEMOBANK")
	if !ok || c.Name != "DEMOBANK" || c.AppKey != "DEMOAPPKEY" || c.SecKey != "DEMOSECKEY" || c.PublicKey == nil {
		t.Fatalf("DEMOBANK channel = %+v", c)
	}
	if s.Service.ChannelID != "REWARDSIM" || s.Tokens.ReferenceTTL.D().Hours() != 1 {
		t.Fatalf("service/tokens = %+v %+v", s.Service, s.Tokens)
	}
}

// Start-up parses the embedded scenarios with Sources.Embedded, skipping
// the schema pass: each of them passes that pass here, and parses to the
// same Scenario either way.
func TestParse_embeddedScenariosNeedNoSchemaPass(t *testing.T) {
	set, err := schema.Compile(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(scenarios.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatalf("embedded scenarios: %v %v", names, err)
	}
	for _, n := range names {
		data, _ := scenarios.FS.ReadFile(n)
		checked, err := scenario.Parse(n, data, set, scenario.Sources{Builtin: certs.FS})
		if err != nil {
			t.Fatalf("%s fails its schema pass: %v", n, err)
		}
		vouched, err := scenario.Parse(n, data, nil, scenario.Sources{Builtin: certs.FS, Embedded: true})
		if err != nil {
			t.Fatalf("%s, embedded: %v", n, err)
		}
		if !reflect.DeepEqual(checked, vouched) {
			t.Errorf("%s parses differently without its schema pass", n)
		}
	}
}
