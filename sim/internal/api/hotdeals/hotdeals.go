// Package hotdeals serves the coupon host. Its endpoints (getCatalogue,
// fetchCouponCode, getUserCoupons) are not built yet; the host exists so
// split mode already gives it a listener of its own.
package hotdeals

import "github.com/labstack/echo/v4"

// Deps is what the hotdeals host needs.
type Deps struct{}

// Register adds the hotdeals host's routes to e.
func Register(e *echo.Echo, d Deps) {}
