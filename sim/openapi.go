package sim

import (
	"cmp"

	"github.com/rewardsim/rewardsim/schemas"
	"github.com/rewardsim/rewardsim/sim/internal/contract"
	"github.com/rewardsim/rewardsim/sim/internal/openapi"
)

// DefaultServerURL is where `rewardsim serve` answers the public hosts by default.
const DefaultServerURL = "http://127.0.0.1:8080"

// OpenAPI returns the OpenAPI 3.1 description of the public hosts,
// generated from the contract table and the embedded schemas. serverURL
// empty means DefaultServerURL.
func OpenAPI(version, serverURL string) ([]byte, error) {
	return openapi.Document(contract.Ops, schemas.FS, openapi.Info{
		Version:   cmp.Or(version, "(devel)"),
		ServerURL: cmp.Or(serverURL, DefaultServerURL),
	})
}

// DefaultControlURL is where `rewardsim serve` answers the control API by default.
const DefaultControlURL = "http://127.0.0.1:8090"

// ControlOpenAPI describes the control API's routes (GET
// /__sim/openapi-control.json).
func ControlOpenAPI(version string, routes []openapi.ControlRoute) ([]byte, error) {
	return openapi.ControlDocument(routes, schemas.FS, openapi.Info{Version: cmp.Or(version, "(devel)")}, DefaultControlURL)
}
