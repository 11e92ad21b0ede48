// Command imageload measures signed throughput of rewardsim images side by
// side in the engine of .ci/engine/up (make image-load, docs/performance.md):
// each image runs in its own container with the same CPU limit, and
// getSecuredReferenceToken (verify the request's signature, sign the
// answer) is driven over keep-alive connections, the images taking turns
// so that a noisy machine weighs on both alike.
//
//	eval "$(.ci/engine/up)"; go run ./cmd/imageload -image rewardsim:latest -image rewardsim:latest-static
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type images []string

func (i *images) String() string     { return strings.Join(*i, ",") }
func (i *images) Set(v string) error { *i = append(*i, v); return nil }

func main() {
	var refs images
	flag.Var(&refs, "image", "image reference to measure (repeat)")
	duration := flag.Duration("duration", 5*time.Second, "length of each run")
	rounds := flag.Int("rounds", 3, "runs per image, taking turns")
	conns := flag.Int("conns", 16, "keep-alive connections")
	cpus := flag.String("cpus", "1", "CPU limit of each container (podman run --cpus)")
	flag.Parse()
	if err := run(refs, *duration, *rounds, *conns, *cpus); err != nil {
		fmt.Fprintln(os.Stderr, "imageload:", err)
		os.Exit(1)
	}
}

func podman(stdin string, args ...string) (string, error) {
	cmd := exec.Command("podman", args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("podman %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

type target struct {
	ref, name, url, crypto string
	envelope               []byte
	rates                  []float64
}

func run(refs []string, d time.Duration, rounds, conns int, cpus string) error {
	if len(refs) == 0 {
		return fmt.Errorf("no -image given")
	}
	var ts []*target
	defer func() {
		for _, t := range ts {
			_, _ = podman("", "rm", "--force", "--time", "2", t.name)
		}
	}()
	for i, ref := range refs {
		t := &target{ref: ref, name: fmt.Sprintf("rewardsim-imageload-%d-%d", os.Getpid(), i)}
		ts = append(ts, t)
		if _, err := podman("", "run", "-d", "--name", t.name, "--cpus", cpus, "-p", "127.0.0.1::8080", "-p", "127.0.0.1::8090", ref); err != nil {
			return err
		}
		port, err := podman("", "port", t.name, "8080/tcp")
		if err != nil {
			return err
		}
		ctl, err := podman("", "port", t.name, "8090/tcp")
		if err != nil {
			return err
		}
		t.url = "http://" + strings.Fields(port)[0]
		if t.crypto, err = health("http://" + strings.Fields(ctl)[0]); err != nil {
			return err
		}
		env, err := podman(`{"bName":"DEMOBANK"}`, "exec", "-i", t.name, "/usr/local/bin/rewardsim", "sign")
		if err != nil {
			return err
		}
		t.envelope = []byte(env)
	}
	for r := 0; r < rounds; r++ {
		for _, t := range ts {
			rate, err := load(t, d, conns)
			if err != nil {
				return err
			}
			t.rates = append(t.rates, rate)
		}
	}
	fmt.Printf("| image | crypto | signed answers/s (getSecuredReferenceToken, %d runs of %s, %d conns, --cpus %s) | median |\n|---|---|---|---|\n", rounds, d, conns, cpus)
	for _, t := range ts {
		var parts []string
		for _, r := range t.rates {
			parts = append(parts, fmt.Sprintf("%.0f", r))
		}
		fmt.Printf("| `%s` | %s | %s | %.0f |\n", t.ref, t.crypto, strings.Join(parts, ", "), median(t.rates))
	}
	return nil
}

func health(control string) (string, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(control + "/__sim/health")
		if err == nil {
			var h struct{ Crypto string }
			err = json.NewDecoder(res.Body).Decode(&h)
			res.Body.Close()
			if err == nil && res.StatusCode == 200 {
				return h.Crypto, nil
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%s/__sim/health: %v", control, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func load(t *target, d time.Duration, conns int) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
	var ok, bad atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, t.url+"/api/getSecuredReferenceToken", bytes.NewReader(t.envelope))
				req.Header.Set("Content-Type", "application/json")
				res, err := client.Do(req)
				if err != nil {
					continue
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode == 200 && bytes.Contains(body, []byte(`"SIGN"`)) {
					ok.Add(1)
				} else {
					bad.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if bad.Load() > 0 {
		return 0, fmt.Errorf("%s: %d answers without a signature", t.ref, bad.Load())
	}
	return float64(ok.Load()) / time.Since(start).Seconds(), nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
