package main

import (
	"bytes"
	"encoding/json"
	"os"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/controlapi"
)

// controlClient is the client every command that talks to a running
// simulator's control API uses (controlapi.Client, which the recordings
// toolkit uses too), with the same flags and environment everywhere.
type controlClient struct{ controlapi.Client }

// Environment variables of the control client's flags.
const (
	envControlURL   = "REWARDSIM_CONTROL_URL"
	envControlToken = "REWARDSIM_CONTROL_TOKEN"
)

// addControlFlags registers --control and --control-token on cmd.
func addControlFlags(cmd *cobra.Command, c *controlClient) {
	cmd.Flags().StringVar(&c.Base, "control", envOr(envControlURL, "http://127.0.0.1:8090"), "base URL of the simulator's control API [env "+envControlURL+"]")
	cmd.Flags().StringVar(&c.Token, "control-token", os.Getenv(envControlToken), "the control token, if the simulator was started with one [env "+envControlToken+"]")
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// printJSON prints a control answer's body, indented.
func printJSON(cmd *cobra.Command) func(out []byte, err error) error {
	return func(out []byte, err error) error {
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
