package scenario

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Bounds on one scenario file, checked while parsing and before anything
// is expanded or marshalled, so no file (uploaded, loaded by path, hot
// reloaded or validated) can make the process allocate without bound. A
// real scenario is a few KiB; the bounds leave two orders of magnitude.
const (
	// MaxFileBytes bounds the file itself. The YAML scanner's cost grows
	// faster than linearly with some shapes (long runs of simple keys),
	// so this bound also bounds parse time.
	MaxFileBytes = 256 << 10
	// MaxNodes bounds the document's nodes with every alias expanded.
	MaxNodes = 50_000
	// MaxExpandedBytes bounds the scalar bytes with every alias expanded:
	// what decoding the document would allocate.
	MaxExpandedBytes = 4 << 20
)

// checkSize refuses data over MaxFileBytes.
func checkSize(name string, n int) error {
	if n > MaxFileBytes {
		return Errors{{File: name, Msg: fmt.Sprintf("file is %d bytes, over the limit of %d bytes (MaxFileBytes)", n, MaxFileBytes)}}
	}
	return nil
}

// checkExpansion walks the parsed tree once, counting what it would be
// with aliases expanded. Each node's expanded cost is computed once and
// memoised, so the walk is linear in the tree, however many aliases point
// at an anchor ("billion laughs").
func checkExpansion(name string, root *yaml.Node) error {
	type cost struct{ nodes, bytes int }
	memo := map[*yaml.Node]cost{}
	onPath := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node) (cost, error)
	walk = func(n *yaml.Node) (cost, error) {
		if c, ok := memo[n]; ok {
			return c, nil
		}
		if onPath[n] {
			return cost{}, Errors{{File: name, Line: n.Line, Msg: "an alias refers to a node that contains it"}}
		}
		onPath[n] = true
		defer delete(onPath, n)
		c := cost{nodes: 1, bytes: len(n.Value)}
		kids := n.Content
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			kids = []*yaml.Node{n.Alias}
		}
		for _, k := range kids {
			kc, err := walk(k)
			if err != nil {
				return cost{}, err
			}
			c.nodes += kc.nodes
			c.bytes += kc.bytes
			if c.nodes > MaxNodes {
				return cost{}, Errors{{File: name, Line: n.Line, Msg: fmt.Sprintf("document has over %d nodes with aliases expanded (MaxNodes)", MaxNodes)}}
			}
			if c.bytes > MaxExpandedBytes {
				return cost{}, Errors{{File: name, Line: n.Line, Msg: fmt.Sprintf("document has over %d bytes of values with aliases expanded (MaxExpandedBytes)", MaxExpandedBytes)}}
			}
		}
		memo[n] = c
		return c, nil
	}
	_, err := walk(root)
	return err
}
