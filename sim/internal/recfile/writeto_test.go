package recfile

import (
	"bytes"
	"encoding/json"
	"testing"
)

// WriteTo streams exactly the bytes Marshal returns.
func TestWriteToMatchesMarshal(t *testing.T) {
	for _, r := range []*Recording{
		{Version: Version, Name: "empty", Steps: []Step{}},
		{Version: Version, Name: "two", Description: "<a & b>", Steps: []Step{
			{ID: "s1", Method: "POST", Path: "/api/x", Header: map[string]string{"A": "b"}, Body: json.RawMessage(`{"x":"<y>"}`)},
			{ID: "s2", Method: "GET", Path: "/p", Text: "t&<>", Captures: []Capture{{Name: "c", From: "body", Pointer: "/a"}}},
		}},
	} {
		want, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if n, err := r.WriteTo(&got); err != nil || n != int64(got.Len()) {
			t.Fatalf("%s: WriteTo: %d, %v", r.Name, n, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: WriteTo wrote\n%s\nMarshal gives\n%s", r.Name, got.Bytes(), want)
		}
	}
}
