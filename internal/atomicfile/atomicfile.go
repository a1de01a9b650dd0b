// Package atomicfile replaces files so that a crash leaves either the old
// content or the new, never a mix: the new content goes to a temporary
// file beside the old one, synced, and is renamed over it.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteTemp writes data to a new temporary file beside path, with mode,
// synced; it returns the temporary file's name (also on failure, when one
// was created, for the caller to remove). Renaming it over path is the
// caller's, for writes of several files that must all be ready first.
func WriteTemp(path string, data []byte, mode os.FileMode) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".lspkit-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	return tmp.Name(), err
}

// Write replaces path with data atomically. A file that exists keeps its
// mode; a new one gets newMode, its directory created if need be.
func Write(path string, data []byte, newMode os.FileMode) error {
	mode := newMode
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp, err := WriteTemp(path, data, mode)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		if tmp != "" {
			os.Remove(tmp)
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
