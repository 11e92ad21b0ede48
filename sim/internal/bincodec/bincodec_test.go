package bincodec

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

var errCorrupt = errors.New("corrupt")

// A record written with the Append functions reads back field by field,
// whether read in place or copied; strings of 127 and 128 bytes cross
// the one-byte length Bytes reads without a call.
func TestDecoder_readsWhatWasWritten(t *testing.T) {
	long := strings.Repeat("x", 128)
	var b []byte
	b = append(b, 7)
	b = binary.BigEndian.AppendUint64(b, 1<<40)
	b = binary.AppendUvarint(b, 300)
	b = binary.AppendVarint(b, -5)
	b = AppendString(b, "")
	b = AppendString(b, long[:127])
	b = AppendString(b, []byte(long))
	if got, want := len(b), 1+8+2+1+StringLen(0)+StringLen(127)+StringLen(128); got != want {
		t.Fatalf("StringLen: %d bytes written, lengths say %d", got, want)
	}
	for _, c := range []struct {
		name string
		d    Decoder
	}{{"in place", NewDecoder(b)}, {"copied", NewCopying(b)}} {
		d := c.d
		if v := d.Byte(); v != 7 {
			t.Errorf("%s: Byte %d", c.name, v)
		}
		if v := d.Uint64(); v != 1<<40 {
			t.Errorf("%s: Uint64 %d", c.name, v)
		}
		if v := d.Uvarint(); v != 300 {
			t.Errorf("%s: Uvarint %d", c.name, v)
		}
		if v := d.Varint(); v != -5 {
			t.Errorf("%s: Varint %d", c.name, v)
		}
		if v := d.String(); v != "" {
			t.Errorf("%s: empty String %q", c.name, v)
		}
		if v := d.String(); v != long[:127] {
			t.Errorf("%s: String of 127 bytes: %d bytes", c.name, len(v))
		}
		if v := d.Bytes(); string(v) != long {
			t.Errorf("%s: Bytes of 128: %d bytes", c.name, len(v))
		}
		if err := d.Done(errCorrupt); err != nil {
			t.Errorf("%s: Done: %v", c.name, err)
		}
	}
}

// A short or overlong record fails, the failure sticks, and Done says so.
func TestDecoder_corruptRecords(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  []byte
		read func(d *Decoder)
	}{
		{"no byte", nil, func(d *Decoder) { d.Byte() }},
		{"short uint64", []byte{1, 2, 3}, func(d *Decoder) { d.Uint64() }},
		{"unterminated uvarint", []byte{0x80}, func(d *Decoder) { d.Uvarint() }},
		{"unterminated varint", []byte{0xff}, func(d *Decoder) { d.Varint() }},
		{"string past the end", []byte{5, 'a'}, func(d *Decoder) { _ = d.String() }},
		{"long string past the end", binary.AppendUvarint(nil, 200), func(d *Decoder) { d.Bytes() }},
		{"bytes left over", []byte{1, 2}, func(d *Decoder) { d.Byte() }},
	} {
		for _, d := range []Decoder{NewDecoder(c.raw), NewCopying(c.raw)} {
			c.read(&d)
			if d.Done(errCorrupt) == nil {
				t.Errorf("%s: read as whole", c.name)
			}
			if c.name != "bytes left over" && (!d.Failed() || d.Byte() != 0 || d.Len() != 0) {
				t.Errorf("%s: the failure did not stick", c.name)
			}
		}
	}
}
