package control

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"go.yaml.in/yaml/v3"
)

// ShowScenario is GET /__sim/scenarios/{name}: a loaded scenario's YAML
// as in force (an overlay merged onto its base), secrets masked.
func (a *API) ShowScenario(c echo.Context) error {
	sc, ok := a.scenarios.ByName(c.Param("name"))
	if !ok {
		return fail(http.StatusNotFound, "no scenario named %q is loaded", c.Param("name"))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(sc.YAML, &doc); err != nil {
		return internal(err)
	}
	maskSecrets(&doc)
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return internal(err)
	}
	c.Response().Header().Set(ScenarioSHA256Header, sc.SHA256) // a replay tells a changed copy from the recorded one
	return c.Blob(http.StatusOK, "application/yaml", out)
}

// maskSecrets replaces the value of every secret-named scalar key
// (secKey, anything with secret, password or token in its name).
func maskSecrets(n *yaml.Node) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := strings.ToLower(n.Content[i].Value), n.Content[i+1]
			if v.Kind == yaml.ScalarNode && (k == "seckey" || strings.Contains(k, "secret") || strings.Contains(k, "password") || strings.Contains(k, "token")) {
				v.Value, v.Tag, v.Style = "~masked", "!!str", 0
			}
		}
	}
	for _, c := range n.Content {
		maskSecrets(c)
	}
}
