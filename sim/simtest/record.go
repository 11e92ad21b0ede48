package simtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
)

// RecordEnv names a folder: when set, every answer that passes the harness's validation
// is also appended there (one JSON line each, one file per process), so
// `make test` can check the whole suite's answers against the OpenAPI
// document afterwards (.ci/tools/openapi).
const RecordEnv = "REWARDSIM_RECORD_ANSWERS"

// maxRecorded bounds one process's recording (DESIGN rule 13).
const maxRecorded = 100_000

// Recorded is one answer as recorded.
type Recorded struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	Query       string `json:"query,omitempty"`
	Status      int    `json:"status"`
	ContentType string `json:"contentType"`
	Body        []byte `json:"body"`
}

var recorder struct {
	once sync.Once
	mu   sync.Mutex
	enc  *json.Encoder
	n    int
}

// record appends one answer when RecordEnv is set; it never fails a test.
func record(req *http.Request, res *http.Response, body []byte) {
	recorder.once.Do(func() {
		dir := os.Getenv(RecordEnv)
		if dir == "" {
			return
		}
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("answers-%d.jsonl", os.Getpid())), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return
		}
		recorder.enc = json.NewEncoder(f) // closed by the process's exit
	})
	recorder.mu.Lock()
	defer recorder.mu.Unlock()
	if recorder.enc == nil || recorder.n >= maxRecorded {
		return
	}
	recorder.n++
	_ = recorder.enc.Encode(Recorded{
		Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery,
		Status: res.StatusCode, ContentType: res.Header.Get("Content-Type"), Body: body,
	})
}
