//go:build !cgo || !linux

package envelope

// Without cgo (the static release build) the library cannot be loaded.
func loadLibcrypto() (backend, error) { return nil, errNoLibcrypto }
