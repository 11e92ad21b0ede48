package sweep

import "syscall"

// dieWithParent has the process killed when the sweep dies. Go sends
// the signal when the thread that started the process ends, which the
// runtime does not do to a thread no goroutine locked.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
