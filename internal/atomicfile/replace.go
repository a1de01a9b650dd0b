package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
)

// ErrChanged is ReplaceIf's refusal: the file was not what the caller's
// new content was made from.
var ErrChanged = errors.New("the file changed on disk")

// ReplaceIf renames tmp over path only if path still holds old (old nil:
// only if path does not exist), so that another program's write is never
// lost to a replacement made from what it had before. Where the system
// can swap two names in one step (Linux: renameat2 RENAME_EXCHANGE and
// RENAME_NOREPLACE), the check and the replacement are one: the new
// content is swapped in and what it replaced is compared after, and
// swapped back when it was not old; elsewhere path is compared just
// before the rename. On ErrChanged path is as it was and tmp is removed.
func ReplaceIf(tmp, path string, old []byte) error { return replaceIf(tmp, path, old) }

// replaceIfByCompare is ReplaceIf as a comparison, then a rename.
func replaceIfByCompare(tmp, path string, old []byte) error {
	err := compareRename(tmp, path, old)
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func compareRename(tmp, path string, old []byte) error {
	data, err := os.ReadFile(path)
	switch {
	case old == nil && err == nil:
		return fmt.Errorf("%s: %w (it exists now)", path, ErrChanged)
	case old == nil && errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	case !bytes.Equal(data, old):
		return fmt.Errorf("%s: %w", path, ErrChanged)
	}
	return os.Rename(tmp, path)
}
