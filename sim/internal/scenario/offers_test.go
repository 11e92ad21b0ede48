package scenario

import "testing"

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
