package control

import (
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/rewardsim/rewardsim/certs"
)

// certForms maps a file of certs/ to the content type it is served with.
var certForms = map[string]string{
	".key":     "application/x-pem-file",
	".crt":     "application/x-pem-file",
	".key.der": "application/pkcs8",
	".crt.der": "application/pkix-cert",
	".p12":     "application/x-pkcs12",
	".md":      "text/markdown; charset=utf-8",
}

func certType(name string) string {
	for _, ext := range []string{".key.der", ".crt.der", ".key", ".crt", ".p12", ".md"} {
		if strings.HasSuffix(name, ext) {
			return certForms[ext]
		}
	}
	return ""
}

// certFile is one line of GET /__sim/certs/.
type certFile struct {
	Name        string `json:"name"`
	URL         string `json:"url"`
	ContentType string `json:"contentType"`
}

// ListCerts is GET /__sim/certs/: the embedded test-only key material
// (both pairs in every form, and certs/README.md), so a container user
// needs nothing but the control API to get the publisher kit.
func (a *API) ListCerts(c echo.Context) error {
	entries, err := fs.ReadDir(certs.FS, ".")
	if err != nil {
		return err
	}
	files := []certFile{}
	for _, e := range entries {
		if ct := certType(e.Name()); ct != "" {
			files = append(files, certFile{Name: e.Name(), URL: "/__sim/certs/" + e.Name(), ContentType: ct})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return c.JSON(http.StatusOK, map[string]any{
		"warning":     "TEST-ONLY keys, public on purpose: trust them in a local simulator only, never in a UAT or production",
		"p12Password": certs.P12Password,
		"files":       files,
	})
}

// CertFile is GET /__sim/certs/:name, one file of the listing.
func (a *API) CertFile(c echo.Context) error {
	name := path.Base(c.Param("name"))
	ct := certType(name)
	data, err := fs.ReadFile(certs.FS, name)
	if ct == "" || err != nil || name != c.Param("name") {
		return fail(http.StatusNotFound, "no test-only key file %q: GET /__sim/certs/ lists them", c.Param("name"))
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	return c.Blob(http.StatusOK, ct, data)
}
