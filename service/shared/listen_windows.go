package shared

import (
	"errors"
	"net"
	"os"

	"golang.org/x/sys/windows"
)

// errLocked says another process holds the lock.
var errLocked = errors.New("locked")

// lockFile takes f's exclusive lock without waiting; the system lets it go
// when the process ends, however it ends.
func lockFile(f *os.File) error {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errLocked
	}
	return err
}

// listen listens on an AF_UNIX socket at path, in the user's local
// application data, which only the user can enter.
func listen(path string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return ln, nil
}

// samePeer admits every peer that could reach the socket: Windows gives no
// credentials of an AF_UNIX peer, and the socket's directory admits only
// the user.
func samePeer(net.Conn) error { return nil }
