package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// controlClient is the one client every command that talks to a running
// simulator's control API uses: the same flags, environment, token and
// error wording everywhere.
type controlClient struct {
	base, token string
}

// Environment variables of the control client's flags.
const (
	envControlURL   = "REWARDSIM_CONTROL_URL"
	envControlToken = "REWARDSIM_CONTROL_TOKEN"
)

// addControlFlags registers --control and --control-token on cmd.
func addControlFlags(cmd *cobra.Command, c *controlClient) {
	cmd.Flags().StringVar(&c.base, "control", envOr(envControlURL, "http://127.0.0.1:8090"), "base URL of the simulator's control API [env "+envControlURL+"]")
	cmd.Flags().StringVar(&c.token, "control-token", os.Getenv(envControlToken), "the control token, if the simulator was started with one [env "+envControlToken+"]")
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// do calls the control API and returns the answer body; an answer of 300
// or above is an error carrying the simulator's message.
func (c *controlClient) do(ctx context.Context, method, path string, q url.Values, contentType string, body []byte) ([]byte, error) {
	u := strings.TrimRight(c.base, "/") + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.token != "" {
		req.Header.Set("X-Rewardsim-Control-Token", c.token)
	}
	res, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("control API: %w", err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("control API: %w", err)
	}
	if res.StatusCode >= 300 {
		var e struct{ Error string }
		if json.Unmarshal(out, &e) == nil && e.Error != "" {
			return nil, fmt.Errorf("control API answered %s %s with HTTP %d: %s", method, path, res.StatusCode, e.Error)
		}
		return nil, fmt.Errorf("control API answered %s %s with HTTP %d: %s", method, path, res.StatusCode, strings.TrimSpace(string(out)))
	}
	return out, nil
}

func (c *controlClient) get(ctx context.Context, path string, q url.Values) ([]byte, error) {
	return c.do(ctx, http.MethodGet, path, q, "", nil)
}

// postJSON POSTs body as JSON and prints the answer, indented.
func (c *controlClient) postJSON(cmd *cobra.Command, path string, body any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	out, err := c.do(cmd.Context(), http.MethodPost, path, nil, "application/json", raw)
	if err != nil {
		return err
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, out, "", "  ") == nil {
		out = append(pretty.Bytes(), '\n')
	}
	_, err = cmd.OutOrStdout().Write(out)
	return err
}

// writeOut writes data to path, or to standard output when path is "" or
// "-". A folder in the path is created.
func writeOut(cmd *cobra.Command, path string, data []byte) error {
	if path == "" || path == "-" {
		_, err := cmd.OutOrStdout().Write(data)
		return err
	}
	return writeFile(path, data)
}
