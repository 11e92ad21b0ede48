package sim_test

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

func errorsAs(err error, target any) bool { return err != nil && errors.As(err, target) }

func copyAll(b *strings.Builder, res *http.Response) (int64, error) { return io.Copy(b, res.Body) }

// scenarioWith is the default scenario with extra top-level YAML appended.
func scenarioWith(extra string) string {
	return `version: 1
name: test
seed: 7
channels:
  - name: DEMOBANK
    channelId: DEMOBANK
    certificateFile: builtin:publisher-dev.crt
    appKey: DEMOAPPKEY
    secKey: DEMOSECKEY
` + extra
}

func itoa(i int) string { return strconv.Itoa(i) }
