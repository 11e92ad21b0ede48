// Package schemas embeds the JSON Schemas of every request, answer and
// scenario file, so the binary validates without reading the disk.
package schemas

import "embed"

// FS holds the *.json schema files.
//
//go:embed *.json
var FS embed.FS
