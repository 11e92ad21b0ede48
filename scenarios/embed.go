// Package scenarios embeds the scenario files shipped with the binary;
// default.yaml is what `rewardsim serve` runs when given no --scenario.
package scenarios

import "embed"

// FS holds the *.yaml scenario files.
//
//go:embed *.yaml
var FS embed.FS

// Default is the name of the scenario served when none is given.
const Default = "default.yaml"
