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
	// GetReward's and fetchCouponCode's requests: numbers and raw values.
	intoRaw struct {
		ChannelName string          `json:"channelName"`
		Amount      json.Number     `json:"amount"`
		Params      json.RawMessage `json:"additionalParams"`
		Coins       json.RawMessage `json:"coinsUsed,omitempty"`
	}
	intoFolding struct {
		A string `json:"name"`
		B string `json:"Name"`
	}
)

// Into fills a request exactly as json.Unmarshal does (fields, error or
// not, and the error's words), on generated objects whose keys are the
// fields' names, their case variants, unknown and non-ASCII names, and
// whose values are of every JSON type.
func TestIntoAgrees(t *testing.T) {
	types := []func() any{
		func() any { return new(intoToken) }, func() any { return new(intoEnvelope) },
		func() any { return new(intoReveal) }, func() any { return new(intoRaw) },
		func() any { return new(intoNumber) },
		func() any { return new(intoEmbedded) }, func() any { return new(intoOption) }, func() any { return new(intoFolding) },
	}
	const firstNotFlat = 4
	keys := []string{"bName", "BNAME", "bname", "virtualId", "channelName", "CHANNELID", "channelid", "SIGN", "BDATA",
		"rewardId", "kind", "Kind", "KIND", "-", "Skipped", "Untagged", "untagged", "id", "amount", "count", "extra", "n",
		"other", "bNaMe", "\u212aind", "b\u017fName", "é",
		"AMOUNT", "additionalParams", "additionalparams", "coinsUsed", "name", "Name", "NAME"}
	values := []string{`"x"`, `"DEMOBANK"`, `""`, `"é"`, `null`, `1`, `1.5`, `true`, `{}`, `[]`, `{"a":"b"}`, `"1"`,
		`-0`, `100.00`, `1e5`, `"100.00"`, `"-1.5E+3"`, `"1."`, `"abc"`, `" 1"`, `"01"`, `false`,
		`{ "a" : [ 1 , "b" ] }`, `[{},[],null]`, `"{\"pincode\":\"560001\"}"`}
	spaces := []string{"", " ", "\n\t", "  \r\n"}
	r := rand.New(rand.NewPCG(25, 2))
	filled, rawFilled := 0, 0
	for range 5000 {
		var b strings.Builder
		sp := func() string { return spaces[r.IntN(len(spaces))] }
		b.WriteString(sp() + "{" + sp())
		for i := range r.IntN(6) {
			if i > 0 {
				b.WriteString(sp() + "," + sp())
			}
			fmt.Fprintf(&b, "%q%s:%s%s", keys[r.IntN(len(keys))], sp(), sp(), values[r.IntN(len(values))])
		}
		b.WriteString(sp() + "}" + sp())
		raw := []byte(b.String())
		p, err := Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		for _, make := range types {
			got, want := make(), make()
			if direct := make(); p.plain && fillFlat(p.Value, p.Raw, direct) {
				filled++
				if r, ok := direct.(*intoRaw); ok && (r.Params != nil || r.Coins != nil) {
					rawFilled++
				}
			}
			gotErr, wantErr := p.Into(got), json.Unmarshal(raw, want)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%T from %s: Into %+v (%v), json.Unmarshal %+v (%v)", got, raw, got, gotErr, want, wantErr)
			}
		}
	}
	if filled < 1000 || rawFilled < 200 {
		t.Errorf("only %d fills took the direct path, %d of them with a raw value", filled, rawFilled)
	}
	for i, make := range types {
		if fs := flatOf(reflect.TypeOf(make()).Elem()); (fs != nil) != (i < firstNotFlat) {
			t.Errorf("%T: taken for a flat struct is %v", make(), fs != nil)
		}
	}
}
