//go:build unix

package shared

import "syscall"

// detached runs the daemon in its own session: no terminal's hang-up or
// signal to its starter's group reaches it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
