package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// readInput reads a file, or standard input for "" or "-".
func readInput(cmd *cobra.Command, file string) ([]byte, error) {
	if file == "" || file == "-" {
		return io.ReadAll(cmd.InOrStdin())
	}
	return os.ReadFile(file)
}

// readPEM reads a PEM file, or an embedded one of certs/ for "", and
// parses it.
func readPEM[K any](path, builtin string, parse func([]byte) (K, error)) (K, error) {
	var raw []byte
	var err error
	if path == "" {
		raw, err = fs.ReadFile(certs.FS, builtin)
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		var zero K
		return zero, err
	}
	return parse(raw)
}

func newSignCmd() *cobra.Command {
	var keyPath, channel, file string
	cmd := &cobra.Command{
		Use:     "sign [--file payload.json]",
		Short:   "Sign a JSON payload into an envelope {CHANNELID, SIGN, BDATA}",
		Example: `  echo '{"bName":"DEMOBANK"}' | rewardsim sign | curl -s -H 'Content-Type: application/json' -d @- http://127.0.0.1:8080/api/getSecuredReferenceToken`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			payload, err := readInput(cmd, file)
			if err != nil {
				return err
			}
			var v any
			if err := json.Unmarshal(payload, &v); err != nil {
				return fmt.Errorf("payload is not JSON: %w", err)
			}
			key, err := readPEM(keyPath, certs.PublisherKey, publisher.ParsePrivateKeyPEM)
			if err != nil {
				return err
			}
			// Sign the payload as given (compacted), not re-ordered.
			env, err := publisher.Seal(key, channel, json.RawMessage(payload))
			if err != nil {
				return err
			}
			return json.NewEncoder(cmd.OutOrStdout()).Encode(env)
		},
	}
	cmd.Flags().StringVar(&keyPath, "key", "", "publisher private key, PEM (default: the embedded test-only DEMOBANK key)")
	cmd.Flags().StringVar(&channel, "channel", "DEMOBANK", "CHANNELID of the envelope")
	cmd.Flags().StringVar(&file, "file", "", "payload file (default: standard input)")
	return cmd
}

func newOpenCmd() *cobra.Command {
	var certPath, file string
	cmd := &cobra.Command{
		Use:     "open [--file answer.json]",
		Short:   "Verify a signed answer with the service certificate and print its BDATA",
		Example: `  curl -s ... | rewardsim open`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			body, err := readInput(cmd, file)
			if err != nil {
				return err
			}
			var probe map[string]any
			if err := json.Unmarshal(body, &probe); err != nil {
				return fmt.Errorf("answer is not JSON: %s", body)
			}
			if _, bare := probe["STATUS"]; bare {
				return fmt.Errorf("unsigned failure: %s", body)
			}
			var env publisher.Envelope
			if err := json.Unmarshal(body, &env); err != nil || env.BDATA == "" {
				return fmt.Errorf("not a signed envelope: %s", body)
			}
			pub, err := readPEM(certPath, certs.ServiceCert, publisher.ParsePublicKeyPEM)
			if err != nil {
				return err
			}
			if err := publisher.Verify(pub, env.BDATA, env.SIGN); err != nil {
				return errors.New("signature does not verify with the service certificate: " + err.Error())
			}
			raw, err := decodeB64(env.BDATA)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", raw)
			return err
		},
	}
	cmd.Flags().StringVar(&certPath, "cert", "", "service certificate, PEM (default: the embedded test-only one; or fetch /__sim/certs/service.pem)")
	cmd.Flags().StringVar(&file, "file", "", "answer file (default: standard input)")
	return cmd
}
