//go:build unix

package park

import (
	"net"
	"syscall"
)

// hungUp reports whether c's client has closed its side: a peek that
// neither waits nor takes anything reads end of file. Data waiting (a
// pipelined request) or nothing yet is a client still there.
func hungUp(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		if u, ok := c.(interface{ Unwrap() net.Conn }); ok {
			return hungUp(u.Unwrap())
		}
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	gone := false
	var b [1]byte
	err = raw.Read(func(fd uintptr) bool {
		n, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		gone = n == 0 && rerr == nil || rerr != nil && rerr != syscall.EAGAIN && rerr != syscall.EINTR
		return true
	})
	return gone || err != nil
}
