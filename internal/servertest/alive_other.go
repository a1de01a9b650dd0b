//go:build !linux && !windows

package servertest

import "syscall"

// Alive reports whether pid is a live process (a zombie counts as alive
// here: these systems have no /proc to tell).
func Alive(pid int) bool { return syscall.Kill(pid, 0) == nil }
