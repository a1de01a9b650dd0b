package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// replaceIf swaps tmp and path in one step and compares what it swapped
// out; a file system without renameat2's flags falls back to comparing
// first.
func replaceIf(tmp, path string, old []byte) error {
	if old == nil {
		err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE)
		switch {
		case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
			return replaceIfByCompare(tmp, path, old)
		case err != nil:
			os.Remove(tmp)
			if errors.Is(err, unix.EEXIST) {
				return fmt.Errorf("%s: %w (it exists now)", path, ErrChanged)
			}
			return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
		}
		return nil
	}
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
	switch {
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return replaceIfByCompare(tmp, path, old)
	case err != nil:
		os.Remove(tmp)
		if _, serr := os.Lstat(path); errors.Is(serr, os.ErrNotExist) {
			return fmt.Errorf("%s: %w (it was removed)", path, ErrChanged)
		}
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	// tmp now holds what path held.
	was, err := os.ReadFile(tmp)
	if err == nil && bytes.Equal(was, old) {
		os.Remove(tmp)
		return nil
	}
	// Another program wrote path since: put its content back.
	if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE); err != nil {
		return fmt.Errorf("%s: %w, and putting its content back failed: %v (it is in %s)", path, ErrChanged, err, tmp)
	}
	os.Remove(tmp) // the new content, swapped out again
	return fmt.Errorf("%s: %w", path, ErrChanged)
}
