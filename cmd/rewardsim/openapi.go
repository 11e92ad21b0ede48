package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim"
)

func newOpenAPICmd() *cobra.Command {
	var out, serverURL string
	cmd := &cobra.Command{
		Use:   "openapi",
		Short: "Write the OpenAPI 3.1 description of the public hosts (the same as GET /__sim/openapi.json)",
		Example: `  rewardsim openapi > rewardsim.openapi.json
  rewardsim openapi --server-url http://rewardsim:8080 -o openapi.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			doc, err := sim.OpenAPI(readBuildInfo().Version, serverURL)
			if err != nil {
				return err
			}
			doc = append(doc, '\n')
			if out == "" || out == "-" {
				_, err = cmd.OutOrStdout().Write(doc)
				return err
			}
			return os.WriteFile(out, doc, 0o644)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "file to write (default: standard output)")
	cmd.Flags().StringVar(&serverURL, "server-url", sim.DefaultServerURL, "the servers[0].url of the document")
	return cmd
}
