package model

import (
	"reflect"
	"testing"
)

// Strings names every field of Offer, in field order: a field added to
// Offer and forgotten there fails this, and with it every encoder that
// walks an offer by index (the card record, the listing).
func TestOfferStrings_everyFieldInOrder(t *testing.T) {
	var o Offer
	v := reflect.ValueOf(&o).Elem()
	if v.NumField() != OfferFields {
		t.Fatalf("Offer has %d fields, OfferFields is %d", v.NumField(), OfferFields)
	}
	for i := range v.NumField() {
		v.Field(i).SetString(v.Type().Field(i).Name)
	}
	got := o.Strings()
	for i := range v.NumField() {
		if want := v.Type().Field(i).Name; got[i] != want {
			t.Errorf("Strings()[%d] = %q, want %q", i, got[i], want)
		}
	}
}

// ViewOf shows an unscratched card without an offer and a revealed one
// with its reward's.
func TestViewOf(t *testing.T) {
	c := Card{RewardID: 7, Channel: "C"}
	if v := ViewOf(&c); v.Revealed || v.RewardID != 7 || v.Channel != "C" || v.Offer != [OfferFields]string{} {
		t.Errorf("unscratched: %+v", v)
	}
	c.Reward = &Reward{Offer: Offer{OfferTitle: "T", BgColor: "B"}}
	if v := ViewOf(&c); !v.Revealed || v.Offer[0] != "T" || v.Offer[OfferFields-1] != "B" {
		t.Errorf("revealed: %+v", v)
	}
}
