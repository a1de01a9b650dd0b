package conformance

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the recorded server when the recording
// proxy dies (Pdeathsig).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
