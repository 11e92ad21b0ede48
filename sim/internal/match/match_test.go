package match

import (
	"encoding/json"
	"testing"
)

// request is what Doc reads of a request.
type request struct {
	bdata, body json.RawMessage
	query       string
}

// clause: SIM-4
// Predicates read the request as meant (BDATA, JSON body, GET query),
// compare typed values, text and regexes, and write out the first one
// that fails.
func TestWhere_SIM4_predicates(t *testing.T) {
	bdata := json.RawMessage(`{"virtualId":"VU-1","amount":250.5,"ok":true,"a/b":{"c~d":["x","y"]}}`)
	for _, tc := range []struct {
		name   string
		req    request
		where  string // JSON form
		text   []string
		failed string
	}{
		{"bdata string", request{bdata: bdata}, `{"/virtualId":"VU-1"}`, nil, ""},
		{"bdata number", request{bdata: bdata}, `{"/amount":250.5,"/ok":true}`, nil, ""},
		{"escaped pointer into an array", request{bdata: bdata}, `{"/a~1b/c~0d/1":"y"}`, nil, ""},
		{"typed: a number is not its text", request{body: json.RawMessage(`{"coinsUsed":"100"}`)}, `{"/coinsUsed":100}`, nil, `/coinsUsed: want 100, got "100"`},
		{"text form", request{body: json.RawMessage(`{"coinsUsed":100}`)}, `{}`, []string{"/coinsUsed=100"}, ""},
		{"regex", request{body: json.RawMessage(`{"v":"VIP-7"}`)}, `{"/v":{"regex":"^VIP-"}}`, nil, ""},
		{"regex fails", request{body: json.RawMessage(`{"v":"VU-7"}`)}, `{"/v":{"regex":"^VIP-"}}`, nil, `/v: want /^VIP-/ (regex), got "VU-7"`},
		{"missing", request{body: json.RawMessage(`{}`)}, `{"/extTransactionId":"T-2"}`, nil, `/extTransactionId: want "T-2", got nothing`},
		{"GET query", request{query: "limit=5&status=all"}, `{"/limit":{"text":"5"},"/status":"all"}`, nil, ""},
		{"first failing in pointer order", request{body: json.RawMessage(`{"a":1,"b":2}`)}, `{"/b":3,"/a":0}`, nil, `/a: want 0, got 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]json.RawMessage
			_ = json.Unmarshal([]byte(tc.where), &m)
			w, err := Parse(m)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.text {
				p, err := ParseText(s)
				if err != nil {
					t.Fatal(err)
				}
				w = append(w, p)
			}
			if got, _ := w.Fails(Doc(tc.req.bdata, tc.req.body, tc.req.query)); got != tc.failed {
				t.Errorf("Fails = %q, want %q", got, tc.failed)
			}
		})
	}
	for _, bad := range []string{`{"x":"1"}`, `{"/x":{"regex":"("}}`, `{"/x":{"regex":"a","text":"b"}}`, `{"/x":[1]}`, `{"/x":null}`} {
		var m map[string]json.RawMessage
		_ = json.Unmarshal([]byte(bad), &m)
		if _, err := Parse(m); err == nil {
			t.Errorf("Parse(%s) accepted it", bad)
		}
	}
	for _, bad := range []string{"x=1", "/x", "/x~=("} {
		if _, err := ParseText(bad); err == nil {
			t.Errorf("ParseText(%q) accepted it", bad)
		}
	}
}
