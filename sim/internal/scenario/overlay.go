package scenario

// Scenario overlays: a file that says `extends: NAME` gives only what it
// changes. The base's YAML and the overlay's are merged node by node, so
// the merged document is validated and compiled like any file, and a
// problem in what the overlay wrote is reported at the overlay's own
// line (what it inherited points at its extends: line).

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxExtends bounds a chain of overlays (and ends a cycle).
const maxExtends = 8

// Merge rules of the top-level keys that are not merged as mappings.
var (
	byKey = map[string]string{"channels": "name", "campaigns": "id", "pools": "id"}
)

// extendsOf returns the extends: value of a document and its key node.
func extendsOf(root *yaml.Node) (string, *yaml.Node) {
	if root.Kind != yaml.MappingNode {
		return "", nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "extends" {
			return root.Content[i+1].Value, root.Content[i]
		}
	}
	return "", nil
}

// resolveExtends merges root onto the scenario it extends, recursively;
// root is returned unchanged when it extends nothing.
func resolveExtends(name string, root *yaml.Node, src Sources, depth int) (*yaml.Node, error) {
	base, key := extendsOf(root)
	if key == nil {
		return root, nil
	}
	fail := func(msg string) error {
		return Errors{{File: name, Line: key.Line, Path: "/extends", Msg: msg}}
	}
	if depth >= maxExtends {
		return nil, fail(fmt.Sprintf("more than %d scenarios extend one another (a cycle?)", maxExtends))
	}
	if src.Base == nil {
		return nil, fail("extends: no scenarios to extend here")
	}
	data, ok := src.Base(base)
	if !ok {
		return nil, fail(fmt.Sprintf("extends: no scenario named %q is loaded or embedded", base))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return nil, fail(fmt.Sprintf("extends: scenario %q does not read: %v", base, err))
	}
	dropNullLists(doc.Content[0])
	b, err := resolveExtends(base, doc.Content[0], src, depth+1)
	if err != nil {
		return nil, fail(fmt.Sprintf("extends: scenario %q: %v", base, err))
	}
	relines(b, key.Line)
	out := mergeMapping(b, root, true)
	if _, has := lookupKey(root, "name"); !has {
		// The overlay is its own scenario: it never takes its base's name.
		stem := strings.TrimSuffix(path.Base(name), path.Ext(name))
		setKey(out, "name", stem, key.Line)
	}
	return out, nil
}

// relines puts every node of an inherited tree on line (the overlay's
// extends: line), so a problem in it is reported there.
func relines(n *yaml.Node, line int) {
	n.Line = line
	for _, c := range n.Content {
		relines(c, line)
	}
}

// mergeMapping merges mapping over onto a copy of base: top says
// whether these are the documents' roots (where the by-id and append
// rules apply).
func mergeMapping(base, over *yaml.Node, top bool) *yaml.Node {
	if base.Kind != yaml.MappingNode || over.Kind != yaml.MappingNode {
		return over
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: base.Tag, Line: base.Line, Column: base.Column}
	out.Content = append(out.Content, base.Content...)
	for i := 0; i+1 < len(over.Content); i += 2 {
		k, v := over.Content[i], over.Content[i+1]
		if top && k.Value == "extends" {
			continue
		}
		j := indexOfKey(out, k.Value)
		if j < 0 {
			out.Content = append(out.Content, k, v)
			continue
		}
		old := out.Content[j+1]
		var merged *yaml.Node
		switch {
		case top && (k.Value == "faults" || k.Value == "latency"):
			merged = appendSeq(old, v)
		case top && byKey[k.Value] != "":
			merged = mergeSeqBy(old, v, byKey[k.Value])
		case top && k.Value == "offers":
			merged = mergeOffers(old, v)
		default:
			merged = mergeMapping(old, v, false)
		}
		out.Content[j], out.Content[j+1] = k, merged
	}
	return out
}

// appendSeq is base's items, then over's.
func appendSeq(base, over *yaml.Node) *yaml.Node {
	if base.Kind != yaml.SequenceNode || over.Kind != yaml.SequenceNode {
		return over
	}
	out := *over
	out.Content = append(append([]*yaml.Node{}, base.Content...), over.Content...)
	return &out
}

// mergeSeqBy replaces base's items by over's of the same key (the item
// whole), in base's order, and adds over's new ones at the end.
func mergeSeqBy(base, over *yaml.Node, key string) *yaml.Node {
	if base.Kind != yaml.SequenceNode || over.Kind != yaml.SequenceNode {
		return over
	}
	out := *over
	out.Content = append([]*yaml.Node{}, base.Content...)
	for _, item := range over.Content {
		id, ok := lookupKey(item, key)
		replaced := false
		for i, b := range out.Content {
			if bid, bok := lookupKey(b, key); ok && bok && bid == id {
				out.Content[i], replaced = item, true
				break
			}
		}
		if !replaced {
			out.Content = append(out.Content, item)
		}
	}
	return &out
}

// mergeOffers merges the offers: map channel by channel, each list by id.
func mergeOffers(base, over *yaml.Node) *yaml.Node {
	if base.Kind != yaml.MappingNode || over.Kind != yaml.MappingNode {
		return over
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: base.Tag, Line: base.Line}
	out.Content = append(out.Content, base.Content...)
	for i := 0; i+1 < len(over.Content); i += 2 {
		k, v := over.Content[i], over.Content[i+1]
		if j := indexOfKey(out, k.Value); j >= 0 {
			out.Content[j], out.Content[j+1] = k, mergeSeqBy(out.Content[j+1], v, "id")
		} else {
			out.Content = append(out.Content, k, v)
		}
	}
	return out
}

func indexOfKey(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

func lookupKey(m *yaml.Node, key string) (string, bool) {
	if m.Kind != yaml.MappingNode {
		return "", false
	}
	if i := indexOfKey(m, key); i >= 0 {
		return m.Content[i+1].Value, true
	}
	return "", false
}

func setKey(m *yaml.Node, key, value string, line int) {
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, Line: line}
	if i := indexOfKey(m, key); i >= 0 {
		m.Content[i+1] = v
		return
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: line}, v)
}

// seqLen is the length of the sequence under key of a mapping (0 if none).
func seqLen(m *yaml.Node, key string) int {
	if m.Kind != yaml.MappingNode {
		return 0
	}
	if i := indexOfKey(m, key); i >= 0 && m.Content[i+1].Kind == yaml.SequenceNode {
		return len(m.Content[i+1].Content)
	}
	return 0
}

// overlayPaths writes a problem in one of the overlay's own faults with
// the overlay's index (/faults/0 for its first), not the merged one;
// inherited is how many faults came from the base.
func overlayPaths(es Errors, inherited int) Errors {
	if inherited <= 0 {
		return es
	}
	for _, e := range es {
		rest, ok := strings.CutPrefix(e.Path, "/faults/")
		if !ok {
			continue
		}
		idx, tail, _ := strings.Cut(rest, "/")
		n, err := strconv.Atoi(idx)
		if err != nil || n < inherited {
			continue
		}
		e.Path = "/faults/" + strconv.Itoa(n-inherited)
		if tail != "" {
			e.Path += "/" + tail
		}
	}
	return es
}

// Resolve returns a scenario file's YAML with its extends: merged in, as
// Parse reads it (unchanged when it extends nothing): for a reader that
// needs the whole scenario's text, such as a replay copying its channels.
func Resolve(name string, data []byte, src Sources) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, Errors{{File: name, Line: yamlLine(err), Msg: err.Error()}}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return data, nil
	}
	if _, key := extendsOf(doc.Content[0]); key == nil {
		return data, nil
	}
	root, err := resolveExtends(name, doc.Content[0], src, 0)
	if err != nil {
		return nil, err
	}
	return yaml.Marshal(root)
}

// listKeys are the top-level keys that hold lists (or maps of lists): one
// left null, every item commented out, is read as none.
var listKeys = map[string]bool{"faults": true, "latency": true, "campaigns": true, "pools": true, "offers": true, "channels": true}

// dropNullLists removes a list key whose value is null (`faults:` with
// every line under it commented out), so it reads as an empty list rather
// than a type error, and an overlay's empty key leaves its base's list.
func dropNullLists(root *yaml.Node) {
	if root == nil || root.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(root.Content); {
		k, v := root.Content[i], root.Content[i+1]
		if listKeys[k.Value] && v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			root.Content = append(root.Content[:i], root.Content[i+2:]...)
			continue
		}
		i += 2
	}
}
