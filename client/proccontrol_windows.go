package client

import (
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// processControl is a server's Job Object on Windows: the server and every
// process it starts belong to it, and the job is killed when its last
// handle closes — when the daemon exits or dies, the job goes with it.
type processControl struct {
	job       windows.Handle
	pid       int
	breakaway bool // children that ask may leave the job
}

// prepare starts the process in a new console process group.
func (c *processControl) prepare(cmd *exec.Cmd, _, breakaway bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
	c.breakaway = breakaway
}

// started puts the process in a new job with kill-on-close. Without a job
// (the call fails) terminate and kill reach the process alone.
func (c *processControl) started(p *os.Process) {
	c.pid = p.Pid
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return
	}
	flags := uint32(windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE)
	if c.breakaway {
		flags |= windows.JOB_OBJECT_LIMIT_BREAKAWAY_OK
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: flags},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return
	}
	c.job = job
}

// terminate ends the job: Windows has no SIGTERM for a console-less
// server, so this is the same as kill.
func (c *processControl) terminate() { c.kill() }

// sweep does nothing on Windows: what a server left in its job ends with
// the job, when the daemon kills it or exits (the job dies with its last
// handle).
func (*processControl) sweep(int) {}

// kill ends every process of the job at once.
func (c *processControl) kill() {
	if c.job != 0 {
		_ = windows.TerminateJobObject(c.job, 1)
		return
	}
	if p, err := os.FindProcess(c.pid); err == nil {
		_ = p.Kill()
	}
}
