package scenario

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// clause: CPN-7, CPN-8
// The url.query template: every placeholder expanded and escaped; with no
// order id (switches.coupons.orderId off) each parameter naming {orderId}
// is left out, wherever it stands.
func TestOffer_RedirectQuery(t *testing.T) {
	cases := []struct{ query, order, want string }{
		{"vid={virtualId}&txn={extTransactionId}&order={orderId}", "ORD-1", "vid=V+1%26x&txn=T1&order=ORD-1"},
		{"vid={virtualId}&txn={extTransactionId}&order={orderId}", "", "vid=V+1%26x&txn=T1"},
		{"order={orderId}&o={offerId}", "", "o=OFF"},
		{"ref={orderId}-{extTransactionId}", "", ""},
		{"vid={virtualId}", "", "vid=V+1%26x"},
	}
	for _, c := range cases {
		o := &Offer{OfferFile: OfferFile{ID: "OFF", URL: OfferURL{Query: c.query}}}
		if got := o.RedirectQuery("V 1&x", "T1", c.order); got != c.want {
			t.Errorf("%q with order %q: %q, want %q", c.query, c.order, got, c.want)
		}
	}
}

// redirectQueryByReplacer is RedirectQuery as it was written with a
// strings.Replacer, the reference its one-pass expansion is held to.
func redirectQueryByReplacer(o *Offer, virtualID, extTx, orderID string) string {
	esc := url.QueryEscape
	r := strings.NewReplacer(
		"{offerId}", esc(o.ID), "{virtualId}", esc(virtualID),
		"{extTransactionId}", esc(extTx), "{orderId}", esc(orderID),
	)
	if orderID != "" {
		return r.Replace(o.URL.Query)
	}
	var kept []string
	for _, p := range strings.Split(o.URL.Query, "&") {
		if !strings.Contains(p, "{orderId}") {
			kept = append(kept, r.Replace(p))
		}
	}
	return strings.Join(kept, "&")
}

// RedirectQuery expands as the strings.Replacer did, on generated
// templates: placeholders whole, cut short, nested in braces, next to
// each other, empty parameters, values that need escaping or are empty.
func TestRedirectQuery_sameAsReplacer(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 4))
	pieces := []string{"", "&", "=", "{", "}", "{{", "a", "vid=", "{offerId}", "{virtualId}", "{extTransactionId}", "{orderId}",
		"{order", "{orderId", "{offerId}}", "{{virtualId}", "{unknown}", "é", "%"}
	values := []string{"", "V 1&x", "T1", "ORD-OFF-000001", "a+b/c?d=e", "{orderId}", "é"}
	for range 20000 {
		var q strings.Builder
		for range r.IntN(8) {
			q.WriteString(pieces[r.IntN(len(pieces))])
		}
		o := &Offer{OfferFile: OfferFile{ID: values[r.IntN(len(values))], URL: OfferURL{Query: q.String()}}}
		v, x, ord := values[r.IntN(len(values))], values[r.IntN(len(values))], values[r.IntN(len(values))]
		if got, want := o.RedirectQuery(v, x, ord), redirectQueryByReplacer(o, v, x, ord); got != want {
			t.Fatalf("%q (%q, %q, %q, %q): %q, want %q", o.URL.Query, o.ID, v, x, ord, got, want)
		}
	}
}

// Code expands a codes.pattern as the strings.Replacer did, on generated
// patterns around {seq} and {offerId}.
func TestOfferCode_sameAsReplacer(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 5))
	pieces := []string{"", "CPN-", "{seq}", "{offerId}", "{", "}", "{seq", "{{seq}}", "{offerId}{seq}", "-", "é", "{orderId}"}
	for range 20000 {
		var p strings.Builder
		for range r.IntN(6) {
			p.WriteString(pieces[r.IntN(len(pieces))])
		}
		o := &Offer{OfferFile: OfferFile{ID: []string{"OFF", "", "{seq}", "a b"}[r.IntN(4)]}}
		o.Codes.Pattern = p.String()
		seq := r.IntN(2_000_000) - 10
		want := strings.NewReplacer("{seq}", fmt.Sprintf("%06d", seq), "{offerId}", o.ID).Replace(o.Codes.Pattern)
		if got := o.Code(seq); got != want {
			t.Fatalf("%q, id %q, seq %d: %q, want %q", o.Codes.Pattern, o.ID, seq, got, want)
		}
	}
}
