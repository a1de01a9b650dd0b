package fdpair

import (
	"fmt"
	"os"
)

// File is handle fd, inherited from the host, as a *os.File. (Windows
// hosts pass no numbered descriptors; a handle number works as given.)
func File(fd int, name string) (*os.File, error) {
	f := os.NewFile(uintptr(fd), name)
	if _, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("descriptor %d is not open: %w", fd, err)
	}
	return f, nil
}

// drain has nothing to do on Windows: a pipe closed with unread bytes
// resets nothing.
func drain(*os.File) int64 { return 0 }
