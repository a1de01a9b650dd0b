package shared

import (
	"errors"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// startDetached starts the daemon without a console, in its own process
// group (its starter's console and Ctrl+C do not reach it) and out of its
// starter's Job Object, so that it outlives its starter: a job that ends
// its processes when closed (as daemon.Start's and lspkit's own do) would
// take the daemon with the client that started it. A job that lets no
// process leave refuses the breakaway; the daemon then starts inside it
// and lives as long as that job — a later client starts the next one.
func startDetached(newCmd func() *exec.Cmd) (*exec.Cmd, error) {
	const flags = windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags | windows.CREATE_BREAKAWAY_FROM_JOB}
	err := cmd.Start()
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		cmd = newCmd()
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags}
		err = cmd.Start()
	}
	return cmd, err
}
