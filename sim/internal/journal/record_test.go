package journal

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/rewardsim/rewardsim/sim/internal/secrets"
)

// identityByReflection is requestIdentity as it was, through
// json.Unmarshal: the reference the scanner must agree with.
func identityByReflection(xChannelID string, body []byte) (channel, channelID, virtualID string) {
	channelID = xChannelID
	var top envelopeFields
	if len(body) == 0 || body[0] != '{' || !tolerant(json.Unmarshal(body, &top)) {
		return channelID, channelID, ""
	}
	if top.CHANNELID != "" {
		channelID = top.CHANNELID
	}
	var inner envelopeFields
	if top.BDATA != "" {
		if raw, err := base64.StdEncoding.DecodeString(top.BDATA); err == nil {
			_ = json.Unmarshal(raw, &inner)
		}
	}
	return first(inner.ChannelName, inner.BName, top.ChannelName, top.BName, channelID), channelID, first(inner.VirtualID, top.VirtualID)
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// The writer's scanner reads a request's identity exactly as
// json.Unmarshal did: case-insensitive keys, the last repeated key,
// nested and mistyped fields ignored, escapes decoded, invalid JSON read
// as nothing.
func TestRequestIdentity_asJSONUnmarshal(t *testing.T) {
	bodies := []string{
		``, `x`, `{`, `{}`, `[]`, `{"channelName":"A","virtualId":"V"}`,
		`{"CHANNELID":"C","BDATA":"` + b64(`{"bName":"B","virtualId":"W"}`) + `","SIGN":"s"}`,
		`{"CHANNELID":"C","BDATA":"` + b64(`{"channelName":"N","bName":"B"}`) + `"}`,
		`{"CHANNELID":"C","BDATA":"` + b64(`not json`) + `"}`,
		`{"CHANNELID":"C","BDATA":"%%%"}`,
		`{"channelname":"lower","VIRTUALID":"upper"}`,
		`{"channelName":"first","channelName":"second"}`,
		`{"nested":{"channelName":"no"},"list":[{"virtualId":"no"}],"bName":"yes"}`,
		`{"channelName":7,"virtualId":["x"],"bName":"B"}`,
		`{"channelName":"A\u0042","virtualId":"q\"uote"}`,
		`{ "channelName" : "spaced" , "virtualId" :"v" }`,
		`{"channelName":"A"} trailing`,
		`{"a":"\\","channelName":"after-escape"}`,
		`{"channelName":"A",}`,
		`{"CHANNELID":"C","BDATA":"` + b64(`{"virtualId":"V","x":{"channelName":"deep"}}`) + `"}`,
	}
	for _, body := range bodies {
		for _, hdr := range []string{"", "HDR"} {
			c1, id1, v1 := requestIdentity(hdr, []byte(body), nil)
			c2, id2, v2 := identityByReflection(hdr, []byte(body))
			if c1 != c2 || id1 != id2 || v1 != v2 {
				t.Errorf("body %s, header %q: scanner (%q %q %q), json.Unmarshal (%q %q %q)", body, hdr, c1, id1, v1, c2, id2, v2)
			}
		}
	}
}

// handedOut reads the token and referenceKey an envelope answer hands out.
func TestHandedOut(t *testing.T) {
	for _, c := range []struct {
		body string
		want []string
	}{
		{`{"BDATA":"` + b64(`{"referenceKey":"R","expireDate":"x"}`) + `","SIGN":"s"}`, []string{"R"}},
		{`{"BDATA":"` + b64(`{"Token":"T","referenceKey":"R"}`) + `"}`, []string{"T", "R"}},
		{`{"BDATA":"` + b64(`{"token":"T\u0031"}`) + `"}`, []string{"T1"}},
		{`{"BDATA":"` + b64(`{"x":{"token":"nested"}}`) + `"}`, nil},
		{`{"BDATA":"` + b64(`not json`) + `"}`, nil},
		{`{"status":true}`, nil},
	} {
		got := handedOut([]byte(c.body), nil)
		if len(got) != len(c.want) {
			t.Errorf("%s: %q, want %q", c.body, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: %q, want %q", c.body, got, c.want)
			}
		}
	}
}

// A bearer call without a body is attributed to its token's owner: from
// the bearer check when it admitted the token (however many credentials
// were handed out since), else from the answer that handed it out.
func TestBuilder_attributesBearerCalls(t *testing.T) {
	b := NewBuilder(secrets.New())
	issue := &Exchange{Method: "POST", Path: "/api/GetAuthToken",
		RequestBody:  []byte(`{"CHANNELID":"CID","BDATA":"` + b64(`{"bName":"BANK","virtualId":"U1"}`) + `"}`),
		ResponseBody: []byte(`{"BDATA":"` + b64(`{"token":"TOKEN-1"}`) + `"}`)}
	b.record(issue)
	list := func(token, ownerChannel string) *record {
		x := &Exchange{Method: "GET", Path: "/api/rewards", reqPairs: headerPairs{"Authorization", "Bearer " + token}}
		x.ownerChannel, x.ownerVirtualID = ownerChannel, ""
		if ownerChannel != "" {
			x.ownerVirtualID = "U9"
		}
		return b.record(x)
	}
	if r := list("TOKEN-1", ""); r.Channel != "BANK" || r.ChannelID != "CID" || r.VirtualID != "U1" {
		t.Errorf("refused token, remembered owner: %q %q %q", r.Channel, r.ChannelID, r.VirtualID)
	}
	if r := list("TOKEN-2", "OTHER"); r.Channel != "OTHER" || r.VirtualID != "U9" {
		t.Errorf("admitted token: %q %q", r.Channel, r.VirtualID)
	}
	if r := list("TOKEN-3", ""); r.Channel != "" {
		t.Errorf("unknown token attributed to %q", r.Channel)
	}
}
