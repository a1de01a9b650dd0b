//go:build unix

package client

import (
	"os"
	"os/exec"
	"syscall"
)

// processControl is a server's process group on Unix: its own, led by the
// server (or by its guard), signalled as a whole.
type processControl struct{ pgid int }

// prepare puts the process in a new group; unguarded on Linux it also
// dies with the thread that started it (setDeathSignal).
func (c *processControl) prepare(cmd *exec.Cmd, guarded, _ bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if !guarded {
		setDeathSignal(cmd.SysProcAttr)
	}
}

// started records the group (led by the started process).
func (c *processControl) started(p *os.Process) { c.pgid = p.Pid }

// terminate asks the whole group to end (SIGTERM).
func (c *processControl) terminate() { c.signal(syscall.SIGTERM) }

// kill ends the whole group at once (SIGKILL).
func (c *processControl) kill() { c.signal(syscall.SIGKILL) }

// sweep ends what is left of the group led by pid once the leader has
// exited: the children a server (or its guard) left behind. It takes the
// leader's pid rather than c's, which the starting goroutine sets.
func (*processControl) sweep(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

func (c *processControl) signal(sig syscall.Signal) {
	if c.pgid > 0 {
		_ = syscall.Kill(-c.pgid, sig)
	}
}
