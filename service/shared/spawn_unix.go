//go:build unix

package shared

import (
	"os/exec"
	"syscall"
)

// startDetached starts the daemon in its own session: no terminal's
// hang-up or signal to its starter's group reaches it, and it outlives
// its starter.
func startDetached(newCmd func() *exec.Cmd) (*exec.Cmd, error) {
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, cmd.Start()
}
