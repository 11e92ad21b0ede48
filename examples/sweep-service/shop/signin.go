package shop

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// keys are the channel's signing key and the service's certificate,
// fetched once from the simulator's control API: a channel made like
// DEMOBANK signs with DEMOBANK's test key, which the simulator serves
// (GET /__sim/certs/publisher-dev.key) with the certificate that
// verifies its answers (GET /__sim/certs/service.pem).
type keys struct {
	once    sync.Once
	err     error
	private *rsa.PrivateKey
	service *rsa.PublicKey
}

func (s *Shop) keys(ctx context.Context) (*rsa.PrivateKey, *rsa.PublicKey, error) {
	s.k.once.Do(func() {
		var keyPEM, certPEM []byte
		if keyPEM, s.k.err = s.control(ctx, "/__sim/certs/publisher-dev.key"); s.k.err != nil {
			return
		}
		if certPEM, s.k.err = s.control(ctx, "/__sim/certs/service.pem"); s.k.err != nil {
			return
		}
		s.k.private, s.k.service, s.k.err = parseKeys(keyPEM, certPEM)
	})
	return s.k.private, s.k.service, s.k.err
}

func parseKeys(keyPEM, certPEM []byte) (*rsa.PrivateKey, *rsa.PublicKey, error) {
	kb, _ := pem.Decode(keyPEM)
	cb, _ := pem.Decode(certPEM)
	if kb == nil || cb == nil {
		return nil, nil, errors.New("the key or the certificate is not PEM")
	}
	k, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, err
	}
	priv, ok1 := k.(*rsa.PrivateKey)
	pub, ok2 := cert.PublicKey.(*rsa.PublicKey)
	if !ok1 || !ok2 {
		return nil, nil, errors.New("the keys are not RSA")
	}
	return priv, pub, nil
}

func (s *Shop) control(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.controlURL+path, nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", path, res.StatusCode)
	}
	return io.ReadAll(res.Body)
}

// envelope is a signed call's body and a signed answer (ENV-1, ENV-3).
type envelope struct {
	CHANNELID, SIGN, BDATA string
}

// SignIn gets the user's token (GetAuthToken, a signed call), verifying
// the answer's signature; a platform failure or a lost answer is retried.
func (s *Shop) SignIn(ctx context.Context, virtualID string) (string, error) {
	priv, pub, err := s.keys(ctx)
	if err != nil {
		return "", fmt.Errorf("signing keys: %w", err)
	}
	payload, _ := json.Marshal(map[string]string{"virtualId": virtualID, "channelName": s.channel})
	bdata := base64.StdEncoding.EncodeToString(payload)
	digest := sha256.Sum256([]byte(bdata)) // over the base64 string itself (ENV-2)
	sig, err := rsa.SignPKCS1v15(nil, priv, crypto.SHA256, digest[:])
	if err != nil {
		return "", err
	}
	body, _ := json.Marshal(envelope{CHANNELID: s.channelID, SIGN: base64.StdEncoding.EncodeToString(sig), BDATA: bdata})
	var last error
	for i := 0; i < attempts; i++ {
		var tok string
		tok, last = s.signIn(ctx, body, pub)
		var f failure
		if last == nil || errors.As(last, &f) && !f.retryable() {
			return tok, last
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "", fmt.Errorf("gave up after %d attempts: %w", attempts, last)
}

// failure is the bare failure answer {"STATUS":"FAILURE","ERRORSTRING"}.
type failure struct{ text string }

func (f failure) Error() string { return "GetAuthToken failed: " + f.text }

func (f failure) retryable() bool { return strings.HasPrefix(f.text, "Internal Error") }

func (s *Shop) signIn(ctx context.Context, body []byte, pub *rsa.PublicKey) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/api/GetAuthToken", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := s.http.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return "", err
	}
	var ans struct {
		envelope
		STATUS, ERRORSTRING string
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return "", fmt.Errorf("GetAuthToken: HTTP %d, unreadable answer: %w", res.StatusCode, err)
	}
	if ans.STATUS == "FAILURE" {
		return "", failure{ans.ERRORSTRING}
	}
	sig, err1 := base64.StdEncoding.DecodeString(ans.SIGN)
	digest := sha256.Sum256([]byte(ans.BDATA))
	if err1 != nil || rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], sig) != nil {
		return "", fmt.Errorf("GetAuthToken: HTTP %d, the answer's SIGN does not verify", res.StatusCode)
	}
	payload, err := base64.StdEncoding.DecodeString(ans.BDATA)
	if err != nil {
		return "", err
	}
	var tok struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(payload, &tok); err != nil || tok.Token == "" {
		return "", fmt.Errorf("GetAuthToken: no token in %s", payload)
	}
	return tok.Token, nil
}
