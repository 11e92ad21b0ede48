package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pagingSeconds is how long the journal is filled: 10 s in make test,
// REWARDSIM_PAGING_SECONDS (60 for the figures of docs/performance.md).
func pagingSeconds() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("REWARDSIM_PAGING_SECONDS")); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 10 * time.Second
}

// exportMaxRSS is issue 23's bound on the process's peak resident memory.
// How far the exports raise it over the flood's peak (a page and the
// indexes; the export that held its selection raised it by some 100 MiB)
// is a figure of BenchmarkRecordingExports_peakGrowth, not a test's
// bound: on a loaded machine it read 49 and 55 MiB, too near the
// regression's for any margin (issue 55 item 7).
const exportMaxRSS = 300 << 20

// Issue 23 item 3's done-when, against a real process: after a flood of
// 1 MiB unauthenticated POSTs (each journaled with its 64 KiB kept, the
// journal at its 64 MiB bound), 8 parallel recording exports all finish
// (those beyond the heavy readers' bound get 429 with Retry-After and
// retry), write the same recording, and the process's peak resident
// memory (VmHWM, the whole run) stays under 300 MB, the exports adding
// little to the flood's peak; journal.db stays under twice its bound.
func TestRecordingExports_pagedMemoryUnderLargeBodies(t *testing.T) {
	pagedExports(t)
}

// BenchmarkRecordingExports_peakGrowth reports the test's figures: the
// flood's peak RSS, the exports' peak and how far they raised it.
func BenchmarkRecordingExports_peakGrowth(b *testing.B) {
	for range b.N {
		filled, peak := pagedExports(b)
		b.ReportMetric(float64(filled>>20), "flood-peak-MiB")
		b.ReportMetric(float64(peak>>20), "export-peak-MiB")
		b.ReportMetric(float64((peak-filled)>>20), "growth-MiB")
	}
}

// pagedExports floods, exports and checks as the test says; it returns
// the peak RSS after the flood and after the exports, in bytes.
func pagedExports(t testing.TB) (filledHWM, hwm int64) {
	data := t.TempDir()
	const bound = 64 << 20
	cmd, urls := startServe(t, buildBinary(t), data, "--journal-max-bytes", "64MiB")
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	control, public := urls["control"], urls["all"]
	pid := cmd.Process.Pid

	client := &http.Client{Timeout: 2 * time.Minute}
	big := bytes.Repeat([]byte("x"), 1<<20-1024)
	var posts atomic.Int64
	var fill sync.WaitGroup
	stop := time.Now().Add(pagingSeconds())
	for range 4 {
		fill.Go(func() {
			for time.Now().Before(stop) {
				res, err := client.Post(public+"/api/GetReward", "application/json", bytes.NewReader(big))
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				posts.Add(1)
			}
		})
	}
	fill.Wait()
	filledHWM = statusKB(pid, "VmHWM:") << 10

	type export struct {
		size    int64
		sum     [32]byte
		refused int
		took    time.Duration
		err     string
	}
	exports := make([]export, 8)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range exports {
		wg.Go(func() {
			x := &exports[i]
			for time.Since(start) < 3*time.Minute {
				res, err := client.Get(control + "/__sim/recording")
				if err != nil {
					x.err = err.Error()
					return
				}
				if res.StatusCode == http.StatusTooManyRequests {
					res.Body.Close()
					x.refused++
					wait, err := strconv.Atoi(res.Header.Get("Retry-After"))
					if err != nil || wait < 1 {
						x.err = "429 without a Retry-After in seconds: " + res.Header.Get("Retry-After")
						return
					}
					time.Sleep(time.Duration(wait) * time.Second)
					continue
				}
				h := sha256.New()
				x.size, err = io.Copy(h, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK || err != nil {
					x.err = "HTTP " + strconv.Itoa(res.StatusCode) + " " + fmt.Sprint(err)
					return
				}
				copy(x.sum[:], h.Sum(nil))
				x.took = time.Since(start)
				return
			}
			x.err = "still refused after 3 minutes"
		})
	}
	wg.Wait()
	hwm = statusKB(pid, "VmHWM:") << 10
	info, err := os.Stat(filepath.Join(data, "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for i, x := range exports {
		refused += x.refused
		switch {
		case x.err != "":
			t.Errorf("export %d: %s", i, x.err)
		case x.sum != exports[0].sum:
			t.Errorf("export %d wrote another recording than export 0 (%d bytes, %d)", i, x.size, exports[0].size)
		}
	}
	t.Logf("%s of 1 MiB POSTs (%d); peak RSS %d MiB after; 8 parallel exports of %d KiB each in %s (%d refusals with 429); peak RSS %d MiB; journal.db %d MiB (bound %d MiB)",
		pagingSeconds(), posts.Load(), filledHWM>>20, exports[0].size>>10, time.Since(start).Round(time.Millisecond), refused, hwm>>20, info.Size()>>20, bound>>20)
	if exports[0].size < bound/4 {
		t.Errorf("an export of %d KiB: the journal was not filled, the test proves little", exports[0].size>>10)
	}
	if hwm > exportMaxRSS {
		t.Errorf("peak RSS %d MiB, over %d MiB", hwm>>20, exportMaxRSS>>20)
	}
	if info.Size() > 2*bound {
		t.Errorf("journal.db is %d MiB, over twice its %d MiB bound", info.Size()>>20, bound>>20)
	}
	return filledHWM, hwm
}
