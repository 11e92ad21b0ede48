package schema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

type (
	intoToken struct {
		BName       string `json:"bName"`
		VirtualID   string `json:"virtualId"`
		ChannelName string `json:"channelName"`
	}
	intoEnvelope struct {
		CHANNELID string `json:"CHANNELID"`
		SIGN      string `json:"SIGN,omitempty"`
		BDATA     string `json:"BDATA"`
	}
	intoKind   string
	intoReveal struct {
		RewardID string   `json:"rewardId"`
		Kind     intoKind `json:"kind"`
		Skipped  string   `json:"-"`
		Untagged string
		id       uint64
	}
	intoNumber struct {
		Amount json.Number `json:"amount"`
		Count  int         `json:"count"`
	}
	intoEmbedded struct {
		intoToken
		Extra string `json:"extra"`
	}
	intoOption struct {
		N string `json:"n,string"`
	}
)

// Into fills a request exactly as json.Unmarshal does (fields, error or
// not, and the error's words), on generated objects whose keys are the
// fields' names, their case variants, unknown and non-ASCII names, and
// whose values are of every JSON type.
func TestIntoAgrees(t *testing.T) {
	types := []func() any{
		func() any { return new(intoToken) }, func() any { return new(intoEnvelope) },
		func() any { return new(intoReveal) }, func() any { return new(intoNumber) },
		func() any { return new(intoEmbedded) }, func() any { return new(intoOption) },
	}
	keys := []string{"bName", "BNAME", "bname", "virtualId", "channelName", "CHANNELID", "channelid", "SIGN", "BDATA",
		"rewardId", "kind", "Kind", "KIND", "-", "Skipped", "Untagged", "untagged", "id", "amount", "count", "extra", "n",
		"other", "bNaMe", "\u212aind", "b\u017fName", "é"}
	values := []string{`"x"`, `"DEMOBANK"`, `""`, `"é"`, `null`, `1`, `1.5`, `true`, `{}`, `[]`, `{"a":"b"}`, `"1"`}
	r := rand.New(rand.NewPCG(25, 2))
	filled := 0
	for range 5000 {
		var b strings.Builder
		b.WriteString("{")
		for i := range r.IntN(6) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q:%s", keys[r.IntN(len(keys))], values[r.IntN(len(values))])
		}
		b.WriteString("}")
		raw := []byte(b.String())
		p, err := Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		for _, make := range types {
			got, want := make(), make()
			if p.plain && fillFlat(p.Value, make()) {
				filled++
			}
			gotErr, wantErr := p.Into(got), json.Unmarshal(raw, want)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%T from %s: Into %+v (%v), json.Unmarshal %+v (%v)", got, raw, got, gotErr, want, wantErr)
			}
		}
	}
	if filled < 1000 {
		t.Errorf("only %d fills took the direct path", filled)
	}
	for _, make := range types[3:] {
		if fs := flatOf(reflect.TypeOf(make()).Elem()); fs != nil {
			t.Errorf("%T is taken for a flat struct of strings", make())
		}
	}
}
