//go:build unix && !linux

package client

import "syscall"

// setDeathSignal does nothing where the kernel has no parent-death signal:
// the orphan guard covers the daemon's death there.
func setDeathSignal(*syscall.SysProcAttr) {}
