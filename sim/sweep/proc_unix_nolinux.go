//go:build unix && !linux

package sweep

import "syscall"

// dieWithParent: no parent-death signal here; watchGroup alone ends the
// group.
func dieWithParent(*syscall.SysProcAttr) {}
