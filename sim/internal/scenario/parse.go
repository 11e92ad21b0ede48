package scenario

// Reading a scenario file: YAML, checked against schemas/scenario.json,
// upgraded to the current version and compiled into a Scenario. Problems
// carry file, line, path and reason.

import (
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rewardsim/rewardsim/sim/internal/envelope"
	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/latency"
	"github.com/rewardsim/rewardsim/sim/internal/model"
	"github.com/rewardsim/rewardsim/sim/internal/schema"
)

// Error is a problem in a scenario file, located as precisely as known.
type Error struct {
	File string
	Line int
	Path string // JSON pointer into the document, "" for the whole file
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if e.Path != "" {
		b.WriteString(": " + e.Path)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// Errors is every problem found in one file.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Parse reads, validates and compiles one scenario file. name is how the
// file is named in errors.
func Parse(name string, data []byte, schemas *schema.Set, src Sources) (*Scenario, error) {
	if err := checkSize(name, len(data)); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, Errors{{File: name, Line: yamlLine(err), Msg: err.Error()}}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, Errors{{File: name, Msg: "file is empty"}}
	}
	root := doc.Content[0]
	if err := checkExpansion(name, root); err != nil {
		return nil, err
	}
	dropNullLists(root)
	overlay := root
	root, err := resolveExtends(name, root, src, 0)
	if err != nil {
		return nil, err
	}
	inherited := seqLen(root, "faults") - seqLen(overlay, "faults")
	upgrade(root)

	if !src.Embedded {
		if err := validate(name, root, inherited, schemas, src); err != nil {
			return nil, err
		}
	}

	var f File
	// Unknown keys were already refused by the schema (additionalProperties: false).
	if err := root.Decode(&f); err != nil {
		return nil, Errors{{File: name, Line: yamlLine(err), Msg: err.Error()}}
	}
	s, err := compile(name, root, f, src)
	if err != nil {
		var es Errors
		if errors.As(err, &es) {
			sort.SliceStable(es, func(i, j int) bool { return es[i].Line < es[j].Line })
			return nil, overlayPaths(es, inherited)
		}
		return nil, err
	}
	sum := sha256.Sum256(data)
	s.SHA256 = hex.EncodeToString(sum[:])
	if _, ext := extendsOf(doc.Content[0]); ext == nil {
		s.YAML = data
	} else if s.YAML, err = yaml.Marshal(root); err != nil {
		return nil, Errors{{File: name, Msg: err.Error()}}
	}
	return s, nil
}

// schemaProblems is every problem the schema found in root, each at its
// line, with the compiler's own when the file decodes despite them.
func schemaProblems(name string, root *yaml.Node, se *schema.Error, src Sources) Errors {
	var out Errors
	for _, p := range se.Problems {
		at := p.Path
		// Point at the offending key itself, not at its parent object.
		if rest, ok := strings.CutPrefix(p.Message, "additionalProperties '"); ok {
			if key, _, ok := strings.Cut(rest, "'"); ok {
				at = p.Path + "/" + key
			}
		}
		out = append(out, &Error{File: name, Line: lineOf(root, at), Path: at, Msg: readable(root, at, p.Message)})
	}
	// One pass: the compiler's checks too, when the file decodes
	// despite the schema's problems, every problem in line order.
	var f File
	if root.Decode(&f) == nil {
		if _, err := compile(name, root, f, src); err != nil {
			var more Errors
			if errors.As(err, &more) {
				for _, e := range more {
					if !slices.ContainsFunc(out, func(o *Error) bool { return o.Path == e.Path }) {
						out = append(out, e)
					}
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

func compile(name string, root *yaml.Node, f File, src Sources) (*Scenario, error) {
	applyDefaults(&f)
	s := &Scenario{File: f, Source: name}
	var errs Errors
	fail := func(p, msg string) {
		errs = append(errs, &Error{File: name, Line: lineOf(root, p), Path: p, Msg: msg})
	}

	loc, err := parseOffset(f.Timezone)
	if err != nil {
		fail("/timezone", err.Error())
	}
	s.Location = loc

	names, ids := map[string]bool{}, map[string]bool{}
	for i, c := range f.ChannelSpecs {
		p := fmt.Sprintf("/channels/%d", i)
		if c.ChannelID == "" {
			c.ChannelID = c.Name
		}
		if names[c.Name] {
			fail(p+"/name", fmt.Sprintf("channel name %q is used twice", c.Name))
		}
		if ids[c.ChannelID] {
			fail(p+"/channelId", fmt.Sprintf("channelId %q is used twice", c.ChannelID))
		}
		names[c.Name], ids[c.ChannelID] = true, true
		pub, err := channelKey(c, src)
		if err != nil {
			field := "/certificate"
			if c.CertificateFile != "" {
				field = "/certificateFile"
			}
			fail(p+field, err.Error())
			continue
		}
		s.Channels = append(s.Channels, model.Channel{
			Name: c.Name, ChannelID: c.ChannelID, PublicKey: pub,
			AppKey: c.AppKey, SecKey: c.SecKey, WebhookURL: c.WebhookURL,
		})
	}
	for i, r := range f.FaultRules {
		var ce *fault.CheckError
		if err := fault.Check(r); errors.As(err, &ce) { // the control API's check, in its words
			fail(fmt.Sprintf("/faults/%d%s", i, ce.Field), ce.Msg)
		}
	}
	for i, p := range f.LatencyProfiles {
		var ce *latency.CheckError
		if err := latency.Check(p, fault.NotAnOperation); errors.As(err, &ce) { // the control API's check, in its words
			fail(fmt.Sprintf("/latency/%d%s", i, ce.Field), ce.Msg)
		}
	}
	checkBounds(f, fail)
	s.Offers = compileOffers(f, fail)
	compileCards(s, fail)
	compileSDK(s, fail)
	compileLimits(s, fail)
	if len(errs) > 0 {
		return nil, errs
	}
	s.Faults = fault.NewEngine(f.FaultRules, f.Seed)
	s.Latency = latency.NewSet(f.LatencyProfiles)
	return s, nil
}

func applyDefaults(f *File) {
	if f.Timezone == "" {
		f.Timezone = "+05:30"
	}
	if f.Service.ChannelID == "" {
		f.Service.ChannelID = "REWARDSIM"
	}
	if f.SDK.AndroidBridge == "" {
		f.SDK.AndroidBridge = DefaultAndroidBridge
	}
	// replay is duplicate's former name: a file's own word before the default.
	if c := &f.Switches.Coupons; c.Duplicate == "" {
		c.Duplicate = c.Replay
	}
	// The switches' defaults are the table's, written once.
	for _, d := range SwitchTable {
		d.fill(f)
	}
	applyCampaignDefaults(f)
}

func channelKey(c Channel, src Sources) (*rsa.PublicKey, error) {
	data := []byte(c.Certificate)
	if c.CertificateFile != "" {
		var err error
		data, err = readRef(c.CertificateFile, src)
		if err != nil {
			return nil, err
		}
	}
	return envelope.ParsePublicKeyPEM(data)
}

func readRef(ref string, src Sources) ([]byte, error) {
	if rest, ok := strings.CutPrefix(ref, "builtin:"); ok {
		if src.Builtin == nil {
			return nil, fmt.Errorf("%s: no builtin files", ref)
		}
		return fs.ReadFile(src.Builtin, rest)
	}
	if src.Files == nil {
		return nil, fmt.Errorf("%s: this scenario has no folder to read files from (use builtin: or inline certificate)", ref)
	}
	return fs.ReadFile(src.Files, path.Clean(ref))
}

func parseOffset(tz string) (*time.Location, error) {
	if len(tz) != 6 || (tz[0] != '+' && tz[0] != '-') || tz[3] != ':' {
		return nil, fmt.Errorf("timezone %q is not an offset like +05:30", tz)
	}
	h, err1 := strconv.Atoi(tz[1:3])
	m, err2 := strconv.Atoi(tz[4:6])
	if err1 != nil || err2 != nil || h > 14 || m > 59 {
		return nil, fmt.Errorf("timezone %q is not an offset like +05:30", tz)
	}
	secs := h*3600 + m*60
	if tz[0] == '-' {
		secs = -secs
	}
	return time.FixedZone("UTC"+tz, secs), nil
}

// upgrade rewrites an older document to the current version in place.
// There is only version 1 so far; the hook is here so a version 2 can
// land without breaking files written for 1.
func upgrade(root *yaml.Node) {}

// jsonable turns YAML-decoded maps with interface keys into JSON-ready ones.
func jsonable(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = jsonable(x)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[fmt.Sprint(k)] = jsonable(x)
		}
		return m
	case []any:
		for i, x := range t {
			t[i] = jsonable(x)
		}
		return t
	default:
		return v
	}
}

// lineOf finds the line of the node at a JSON pointer, or of its nearest
// existing ancestor.
func lineOf(root *yaml.Node, pointer string) int {
	_, line := walkPointer(root, pointer)
	return line
}

// nodeAt is the node at a JSON pointer, or nil.
func nodeAt(root *yaml.Node, pointer string) *yaml.Node {
	n, _ := walkPointer(root, pointer)
	return n
}

// walkPointer follows a JSON pointer through a YAML tree: the node found
// (nil when the pointer leaves the tree) and the line of the deepest key
// or item reached.
func walkPointer(root *yaml.Node, pointer string) (*yaml.Node, int) {
	n := root
	line := n.Line
	for _, part := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		if part == "" {
			continue
		}
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == part {
					next = n.Content[i+1]
					line = n.Content[i].Line
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(part); err == nil && i < len(n.Content) {
				next = n.Content[i]
				line = next.Line
			}
		}
		if next == nil {
			return nil, line
		}
		n = next
	}
	return n, line
}

func yamlLine(err error) int {
	// yaml.v3 errors read "yaml: line N: ..."
	msg := err.Error()
	if i := strings.Index(msg, "line "); i >= 0 {
		rest := msg[i+5:]
		j := strings.IndexAny(rest, ": ")
		if j > 0 {
			if n, err := strconv.Atoi(rest[:j]); err == nil {
				return n
			}
		}
	}
	return 0
}

// validate checks the merged document root against the scenario schema,
// each problem at its line in the file the user wrote.
func validate(name string, root *yaml.Node, inherited int, schemas *schema.Set, src Sources) error {
	var generic any
	if err := root.Decode(&generic); err != nil {
		return Errors{{File: name, Msg: err.Error()}}
	}
	raw, err := json.Marshal(jsonable(generic))
	if err != nil {
		return Errors{{File: name, Msg: "cannot represent as JSON: " + err.Error()}}
	}
	if err := schemas.ValidateJSON(Schema, raw); err != nil {
		var se *schema.Error
		if !errors.As(err, &se) {
			return Errors{{File: name, Msg: err.Error()}}
		}
		return overlayPaths(schemaProblems(name, root, se, src), inherited)
	}
	return nil
}
