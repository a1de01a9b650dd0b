package client

import "syscall"

// setDeathSignal makes the kernel kill the process when the thread that
// started it ends (Pdeathsig): the daemon's death takes the server along.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
