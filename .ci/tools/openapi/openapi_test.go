// Package openapi checks rewardsim's OpenAPI document with an independent,
// maintained validator (pb33f/libopenapi and libopenapi-validator), and
// checks every answer the test suite recorded against it.
package openapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"rewardsim.invalid/ci-tools/internal/repo"
)

// recordEnv is simtest.RecordEnv: where `make test` had the harness
// record every answer.
const recordEnv = "REWARDSIM_RECORD_ANSWERS"

// built is the rewardsim binary and its `rewardsim openapi` output, made
// once for the package's tests.
var built = sync.OnceValues(func() ([2]string, error) {
	root, err := repo.Root()
	if err != nil {
		return [2]string{}, err
	}
	dir, err := os.MkdirTemp("", "openapi-test")
	if err != nil {
		return [2]string{}, err
	}
	bin := filepath.Join(dir, "rewardsim")
	if err := repo.BuildHost(root, bin); err != nil {
		return [2]string{}, err
	}
	doc, err := exec.Command(bin, "openapi").Output()
	if err != nil {
		return [2]string{}, fmt.Errorf("rewardsim openapi: %w", err)
	}
	return [2]string{bin, string(doc)}, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if b, err := built(); err == nil {
		os.RemoveAll(filepath.Dir(b[0]))
	}
	os.Exit(code)
}

func buildDoc(t *testing.T) (bin string, doc []byte) {
	t.Helper()
	b, err := built()
	if err != nil {
		t.Fatal(err)
	}
	return b[0], []byte(b[1])
}

func newValidator(t *testing.T, doc []byte) validator.Validator {
	v, _ := newValidatorModel(t, doc)
	return v
}

func newValidatorModel(t *testing.T, doc []byte) (validator.Validator, *v3.Document) {
	t.Helper()
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		t.Fatalf("libopenapi: %v", err)
	}
	if d.GetSpecInfo().VersionNumeric != 3.1 {
		t.Fatalf("document is OpenAPI %s, want 3.1", d.GetVersion())
	}
	m, err := d.BuildV3Model()
	if err != nil {
		t.Fatalf("libopenapi model: %v", err)
	}
	v, errs := validator.NewValidator(d)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	return v, &m.Model
}

// bdataSchema is the contentSchema the document gives BDATA in op's
// answer, or nil. Validators treat contentSchema as an annotation, so the
// decoded BDATA is checked against it separately.
func bdataSchema(m *v3.Document, method, path string) *base.Schema {
	item := m.Paths.PathItems.GetOrZero(path)
	if item == nil {
		return nil
	}
	op := item.GetOperations().GetOrZero(strings.ToLower(method))
	if op == nil || op.Responses == nil {
		return nil
	}
	res := op.Responses.Codes.GetOrZero("200")
	if res == nil {
		return nil
	}
	mt := res.Content.GetOrZero("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	bdata := mt.Schema.Schema().Properties.GetOrZero("BDATA")
	if bdata == nil || bdata.Schema().ContentSchema == nil {
		return nil
	}
	return bdata.Schema().ContentSchema.Schema()
}

// The document is valid OpenAPI 3.1 by the validator's own meta-schema,
// and `serve` serves the same document `rewardsim openapi` writes.
func TestDocumentIsValidOpenAPI31(t *testing.T) {
	bin, doc := buildDoc(t)
	v := newValidator(t, doc)
	if ok, errs := v.ValidateDocument(); !ok {
		for _, e := range errs {
			t.Errorf("%s: %s", e.Message, e.Reason)
			for _, se := range e.SchemaValidationErrors {
				t.Errorf("  %s at %s", se.Reason, se.KeywordLocation)
			}
		}
		t.FailNow()
	}
	served := fetchServed(t, bin)
	if !bytes.Equal(bytes.TrimSpace(served), bytes.TrimSpace(doc)) {
		t.Fatal("GET /__sim/openapi.json differs from `rewardsim openapi`")
	}
}

// fetchServed runs `rewardsim serve` on free loopback ports and GETs the
// served document.
func fetchServed(t *testing.T, bin string) []byte {
	return fetchServedPath(t, bin, "/__sim/openapi.json")
}

// fetchServedPath GETs path from the control API of a fresh serve.
func fetchServedPath(t *testing.T, bin, path string) []byte {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0", "--log-level", "error")
	urls, stop, err := repo.StartServe(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	control := urls["control"]
	res, err := http.Get(control + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET %s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
	}
	return body
}

type recorded struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	Query       string `json:"query"`
	Status      int    `json:"status"`
	ContentType string `json:"contentType"`
	Body        []byte `json:"body"`
}

func check(v validator.Validator, m *v3.Document, r recorded) []string {
	target := r.Path
	if r.Query != "" {
		target += "?" + r.Query
	}
	req := httptest.NewRequest(r.Method, "http://127.0.0.1:8080"+target, nil)
	res := &http.Response{
		StatusCode: r.Status, Header: http.Header{"Content-Type": {r.ContentType}},
		Body: io.NopCloser(bytes.NewReader(r.Body)), Request: req,
	}
	ok, errs := v.ValidateHttpResponse(req, res)
	var env struct{ BDATA string }
	if ok && json.Unmarshal(r.Body, &env) == nil && env.BDATA != "" {
		if cs := bdataSchema(m, r.Method, r.Path); cs != nil {
			raw, err := base64.StdEncoding.DecodeString(env.BDATA)
			if err != nil {
				return []string{"BDATA is not base64"}
			}
			ok, errs = schema_validation.NewSchemaValidator().ValidateSchemaBytes(cs, raw)
		}
	}
	if ok {
		return nil
	}
	var out []string
	for _, e := range errs {
		msg := e.Message + ": " + e.Reason
		for _, se := range e.SchemaValidationErrors {
			msg += "; " + se.Reason + " at " + se.FieldPath
		}
		out = append(out, msg)
	}
	return out
}

// Every answer the harness validated in this `make test` run validates
// against the document too.
func TestRecordedAnswersMatchTheDocument(t *testing.T) {
	dir := os.Getenv(recordEnv)
	if dir == "" {
		t.Skip(recordEnv + " is not set: `make test` sets it for the suite and then runs this test")
	}
	_, doc := buildDoc(t)
	v, m := newValidatorModel(t, doc)
	files, _ := filepath.Glob(filepath.Join(dir, "answers-*.jsonl"))
	total, ops := 0, map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var r recorded
			if err := dec.Decode(&r); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err) // a torn last line would be a recorder bug
			}
			total++
			ops[r.Method+" "+r.Path]++
			if msgs := check(v, m, r); msgs != nil {
				t.Errorf("%s %s HTTP %d does not match the OpenAPI document:\n  %s\n  body: %.400s", r.Method, r.Path, r.Status, strings.Join(msgs, "\n  "), r.Body)
			}
		}
	}
	// The suite drives every public operation; fewer means the recording broke.
	if total == 0 || len(ops) < 10 {
		t.Fatalf("only %d answers over %d operations recorded in %s", total, len(ops), dir)
	}
	t.Logf("%d recorded answers over %d operations validate", total, len(ops))
}

// The validator is not a rubber stamp: answers outside their schema fail.
func TestValidatorRefusesWrongAnswers(t *testing.T) {
	_, doc := buildDoc(t)
	v, m := newValidatorModel(t, doc)
	for _, r := range []recorded{
		{Method: "POST", Path: "/api/GetReward", Status: 200, ContentType: "application/json", Body: []byte(`{"unexpected":true}`)},
		{Method: "GET", Path: "/api/GetAllScratchCardsByUserId", Status: 401, ContentType: "application/json", Body: []byte(`{"status":true}`)},
		{Method: "POST", Path: "/api/fetchCouponCode", Status: 409, ContentType: "application/json", Body: []byte(`{"status":"nope"}`)},
		{Method: "POST", Path: "/api/getSecuredReferenceToken", Status: 200, ContentType: "application/json", Body: []byte(`{"CHANNELID":"X","SIGN":"s","BDATA":"` + "eyJ4IjoxfQ==" + `"}`)},
	} {
		if check(v, m, r) == nil {
			t.Errorf("%s %s %d %s validated", r.Method, r.Path, r.Status, r.Body)
		}
	}
}
