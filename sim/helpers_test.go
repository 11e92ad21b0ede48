package sim_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
)

func errorsAs(err error, target any) bool { return err != nil && errors.As(err, target) }

func copyAll(b *strings.Builder, res *http.Response) (int64, error) { return io.Copy(b, res.Body) }
