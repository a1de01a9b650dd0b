package hostconfig

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeAtomic replaces file with content: written to a temporary file
// beside it, synced, then renamed over it, so that a crash leaves either
// the old file or the new one. A file that exists keeps its mode; a new
// one (and its directory) is created.
func writeAtomic(file string, content []byte) error {
	mode := os.FileMode(0o644)
	if info, err := os.Stat(file); err == nil {
		mode = info.Mode().Perm()
	}
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(file)+".lspkit-*")
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; the leftover after a failure
	_, err = tmp.Write(content)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}
