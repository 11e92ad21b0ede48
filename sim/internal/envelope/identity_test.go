package envelope

import (
	"encoding/base64"
	"testing"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// Identity reads whom a body names as json.Unmarshal does: keys without
// regard to case, the last of a repeated key, nested and mistyped fields
// ignored, escapes decoded, invalid JSON read as no one; BDATA before the
// top level, the header's CHANNELID unless the body has one.
func TestIdentity(t *testing.T) {
	for _, c := range []struct {
		hdr, body                     string
		channel, channelID, virtualID string
	}{
		{"", ``, "", "", ""},
		{"HDR", `x`, "HDR", "HDR", ""},
		{"", `{`, "", "", ""},
		{"", `{"channelName":"A","virtualId":"V"}`, "A", "", "V"},
		{"HDR", `{"channelName":"A","virtualId":"V"}`, "A", "HDR", "V"},
		{"", `{"CHANNELID":"C","BDATA":"` + b64(`{"bName":"B","virtualId":"W"}`) + `","SIGN":"s"}`, "B", "C", "W"},
		{"", `{"CHANNELID":"C","BDATA":"` + b64(`{"channelName":"N","bName":"B"}`) + `"}`, "N", "C", ""},
		{"", `{"CHANNELID":"C","BDATA":"` + b64(`not json`) + `"}`, "C", "C", ""},
		{"", `{"CHANNELID":"C","BDATA":"%%%"}`, "C", "C", ""},
		{"", `{"channelname":"lower","VIRTUALID":"upper"}`, "lower", "", "upper"},
		{"", `{"channelName":"first","channelName":"second"}`, "second", "", ""},
		{"", `{"nested":{"channelName":"no"},"list":[{"virtualId":"no"}],"bName":"yes"}`, "yes", "", ""},
		{"", `{"channelName":7,"virtualId":["x"],"bName":"B"}`, "B", "", ""},
		{"", `{"channelName":"A\u0042","virtualId":"q\"uote"}`, "AB", "", `q"uote`},
		{"HDR", `{"channelName":"A"} trailing`, "HDR", "HDR", ""},
		{"", `{"CHANNELID":"C","BDATA":"` + b64(`{"virtualId":"V","x":{"channelName":"deep"}}`) + `"}`, "C", "C", "V"},
	} {
		ch, id, v := Identity(c.hdr, []byte(c.body))
		if ch != c.channel || id != c.channelID || v != c.virtualID {
			t.Errorf("header %q, body %s: (%q %q %q), want (%q %q %q)", c.hdr, c.body, ch, id, v, c.channel, c.channelID, c.virtualID)
		}
	}
}
