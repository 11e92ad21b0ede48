package main

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	pkcs12 "software.sslmate.com/src/go-pkcs12"

	"github.com/rewardsim/rewardsim/certs"
	"github.com/rewardsim/rewardsim/sim/publisher"
)

// P12Password protects every PKCS#12 file `rewardsim keys` writes: the
// one password of certs/ too.
const P12Password = certs.P12Password

// keyForms are the files written for one key pair, so each stack finds the
// form it reads natively (certs/README.md says which wants which).
var keyForms = []struct {
	suffix string
	perm   os.FileMode
	make   func(key *rsa.PrivateKey, cert *x509.Certificate) ([]byte, error)
}{
	{".key", 0o600, func(k *rsa.PrivateKey, _ *x509.Certificate) ([]byte, error) { // PEM PKCS#8
		der, err := x509.MarshalPKCS8PrivateKey(k)
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), err
	}},
	{".key.der", 0o600, func(k *rsa.PrivateKey, _ *x509.Certificate) ([]byte, error) { // DER PKCS#8
		return x509.MarshalPKCS8PrivateKey(k)
	}},
	{".crt", 0o644, func(_ *rsa.PrivateKey, c *x509.Certificate) ([]byte, error) {
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}), nil
	}},
	{".crt.der", 0o644, func(_ *rsa.PrivateKey, c *x509.Certificate) ([]byte, error) { return c.Raw, nil }},
	// Modern2023 (PBES2 AES-256, HMAC-SHA-256 MAC): read by Java 12+,
	// OpenSSL 1.1.1+ and Node; Modern2026 needs Java 26.
	{".p12", 0o600, func(k *rsa.PrivateKey, c *x509.Certificate) ([]byte, error) {
		return pkcs12.Modern2023.Encode(k, c, nil, P12Password)
	}},
}

func newKeysCmd() *cobra.Command {
	var out, name, cn string
	var bits, years int
	var reuse bool
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Make an RSA key pair and a self-signed certificate in every form (PEM, DER, PKCS#12)",
		Long: `Writes NAME.key (PEM PKCS#8), NAME.key.der (DER PKCS#8), NAME.crt (PEM),
NAME.crt.der (DER) and NAME.p12 (PKCS#12 holding both, password "` + P12Password + `").
With --reuse the pair already in NAME.key and NAME.crt is written out in every form
instead of a new one being made.`,
		Example: `  rewardsim keys --out certs --name publisher-dev --cn DEMOBANK
  rewardsim keys --out certs --name publisher-dev --reuse`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stem := filepath.Join(out, name)
			key, cert, err := keyPair(stem, reuse, bits, cn, time.Duration(years)*365*24*time.Hour)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			for _, f := range keyForms {
				data, err := f.make(key, cert)
				if err != nil {
					return fmt.Errorf("%s%s: %w", stem, f.suffix, err)
				}
				if err := os.WriteFile(stem+f.suffix, data, f.perm); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s.{key,key.der,crt,crt.der,p12} (RSA %d, CN=%s, PKCS#12 password %q)\n",
				stem, key.N.BitLen(), cert.Subject.CommonName, P12Password)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", ".", "folder to write into")
	cmd.Flags().StringVar(&name, "name", "publisher", "file name stem")
	cmd.Flags().StringVar(&cn, "cn", "DEMOBANK", "certificate common name")
	cmd.Flags().IntVar(&bits, "bits", 2048, "RSA key size (2048 to 4096)")
	cmd.Flags().IntVar(&years, "years", 10, "certificate validity in years")
	cmd.Flags().BoolVar(&reuse, "reuse", false, "convert the existing NAME.key and NAME.crt instead of making a new pair")
	return cmd
}

// keyPair reads stem.key and stem.crt (reuse) or makes a new pair.
func keyPair(stem string, reuse bool, bits int, cn string, validFor time.Duration) (*rsa.PrivateKey, *x509.Certificate, error) {
	var keyPEM, certPEM []byte
	var err error
	if reuse {
		if keyPEM, err = os.ReadFile(stem + ".key"); err != nil {
			return nil, nil, err
		}
		if certPEM, err = os.ReadFile(stem + ".crt"); err != nil {
			return nil, nil, err
		}
	} else if keyPEM, certPEM, err = publisher.NewKeyPair(bits, cn, time.Now(), validFor); err != nil {
		return nil, nil, err
	}
	key, err := publisher.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("%s.key: %w", stem, err)
	}
	block, _ := pem.Decode(certPEM)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, nil, fmt.Errorf("%s.crt: no PEM CERTIFICATE block", stem)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s.crt: %w", stem, err)
	}
	if pub, ok := cert.PublicKey.(*rsa.PublicKey); !ok || !pub.Equal(&key.PublicKey) {
		return nil, nil, errors.New(stem + ".crt does not match " + stem + ".key")
	}
	return key, cert, nil
}
