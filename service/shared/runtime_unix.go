//go:build unix

package shared

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// runtimeDir is where this user's shared daemons are found: the same for
// every process of the user whatever its environment — hosts drop or
// change XDG_RUNTIME_DIR and TMPDIR (Codex passes neither through), so
// neither is read — /tmp/lspkit-UID, unless LSPKIT_RUNTIME_DIR names
// another (every client must then see it). Created 0700; it must be a
// directory of this user's that no one else can enter.
func runtimeDir() (string, error) {
	uid := os.Getuid()
	dir := filepath.Join("/tmp", "lspkit-"+strconv.Itoa(uid))
	if x := os.Getenv("LSPKIT_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		dir = x
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("runtime directory: %w", err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("runtime directory: %w", err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	switch {
	case !info.IsDir():
		return "", fmt.Errorf("runtime directory %s is not a directory (a symlink or file in its place is refused)", dir)
	case !ok || int(st.Uid) != uid:
		return "", fmt.Errorf("runtime directory %s belongs to another user: refused", dir)
	case info.Mode().Perm()&0o077 != 0:
		if err := unix.Chmod(dir, 0o700); err != nil {
			return "", fmt.Errorf("runtime directory %s: others can enter it and it cannot be closed: %w", dir, err)
		}
	}
	return dir, nil
}
