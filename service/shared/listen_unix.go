//go:build unix

package shared

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// errLocked says another process holds the lock.
var errLocked = errors.New("locked")

// lockFile takes f's exclusive lock without waiting; the system lets it go
// when the process ends, however it ends.
func lockFile(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// listen listens on a Unix socket at path, mode 0600.
func listen(path string) (net.Listener, error) {
	old := unix.Umask(0o177) // the socket is created 0600, never wider for a moment
	ln, err := net.Listen("unix", path)
	unix.Umask(old)
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false) // Close removes it, under the lock
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// socketPath is the socket's path in the endpoint's directory.
func socketPath(e Endpoint) string { return filepath.Join(e.Dir, e.Name+".sock") }

// dial connects to the socket at path.
func dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}

// removeStale removes the socket file at path, if any.
func removeStale(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
