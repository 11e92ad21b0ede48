package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/recordings"
)

func newDiagramCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "diagram FILE|FOLDER...",
		Short: "Draw the SVG sequence diagram of recordings, without a running simulator",
		Long: `Diagram draws each recording (SIM-4; the *.json files named, and those in the
folders named) as the dashboard's SVG sequence diagram: lanes for the
publisher, rewards, bank, hotdeals and the webhook receiver; every step in
order as a call to the host that served it, with the recorded status and the
fault that fired (or the reason the answer gave). No simulator needs to run.

One recording is written to standard output, or to --out. Several need --out
naming a folder: each diagram is written there as NAME.svg, after its file.`,
		Example: "  rewardsim diagram fixtures/recordings/full-flow.json > full-flow.svg\n" +
			"  rewardsim diagram fixtures/recordings/ --out diagrams/",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := recordingFiles(args)
			if err != nil {
				return err
			}
			if len(files) == 1 {
				svg, err := drawRecording(files[0])
				if err != nil {
					return err
				}
				return writeOut(cmd, out, svg)
			}
			if out == "" || out == "-" {
				return fmt.Errorf("%d recordings make %d diagrams: name a folder for them with --out", len(files), len(files))
			}
			for _, f := range files {
				svg, err := drawRecording(f)
				if err != nil {
					return err
				}
				path := filepath.Join(out, strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))+".svg")
				if err := writeFile(path, svg); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: diagram written to %s\n", f, path)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "-", "file to write the diagram to (- for standard output); a folder when several recordings are drawn")
	return cmd
}

// drawRecording reads one recording file and draws it; errors name the file.
func drawRecording(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := recordings.Diagram(data, &b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b.Bytes(), nil
}
