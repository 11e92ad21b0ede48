package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/publisher"
)

func newKeysCmd() *cobra.Command {
	var out, name, cn string
	var bits int
	var years int
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Make an RSA key pair and a self-signed certificate (NAME.key, NAME.crt, PEM)",
		Example: `  rewardsim keys --out certs --name publisher-dev --cn DEMOBANK
  rewardsim keys --out certs --name service-dev --cn REWARDSIM`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			keyPEM, certPEM, err := publisher.NewKeyPair(bits, cn, time.Now(), time.Duration(years)*365*24*time.Hour)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			keyPath, certPath := filepath.Join(out, name+".key"), filepath.Join(out, name+".crt")
			if err := os.WriteFile(keyPath, keyPEM, 0o600); err != nil {
				return err
			}
			if err := os.WriteFile(certPath, certPEM, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s (RSA %d, CN=%s)\n", keyPath, certPath, bits, cn)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", ".", "folder to write into")
	cmd.Flags().StringVar(&name, "name", "publisher", "file name stem")
	cmd.Flags().StringVar(&cn, "cn", "DEMOBANK", "certificate common name")
	cmd.Flags().IntVar(&bits, "bits", 2048, "RSA key size (2048 to 4096)")
	cmd.Flags().IntVar(&years, "years", 10, "certificate validity in years")
	return cmd
}
