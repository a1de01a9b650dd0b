//go:build unix

package fdpair

import (
	"fmt"
	"os"
	"syscall"
)

// File is descriptor fd, inherited from the host, as a *os.File the pair
// can use: non-blocking, so that it is in the runtime's poller (reads
// honour deadlines, Close wakes them), and close-on-exec, so that the
// language servers lspkit starts do not hold the host's stream open.
func File(fd int, name string) (*os.File, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("descriptor %d is not open: %w", fd, err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return nil, fmt.Errorf("descriptor %d: %w", fd, err)
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), name), nil
}

// drain reads, without waiting, what f holds unread, and returns how many
// bytes that was.
func drain(f *os.File) int64 {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var total int64
	buf := make([]byte, chunkBytes)
	for {
		var n int
		var rerr error
		if err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), buf)
			return true // never wait: only what is there now
		}); err != nil || rerr != nil || n <= 0 {
			return total
		}
		total += int64(n)
	}
}
