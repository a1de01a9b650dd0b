package shared

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// detached runs the daemon without a console and in its own process
// group: its starter's console and Ctrl+C do not reach it.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP}
}
