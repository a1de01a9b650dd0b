package shared

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// runtimeDir is lspkit\run in the user's local application data, which
// only the user (and administrators) can enter: the known folder itself,
// not %LOCALAPPDATA%, which a host may drop or change; LSPKIT_RUNTIME_DIR
// names another (every client must then see it).
func runtimeDir() (string, error) {
	dir := os.Getenv("LSPKIT_RUNTIME_DIR")
	if dir == "" || !filepath.IsAbs(dir) {
		base, err := windows.KnownFolderPath(windows.FOLDERID_LocalAppData, 0)
		if err != nil {
			return "", fmt.Errorf("runtime directory: the local application data folder: %w", err)
		}
		dir = filepath.Join(base, "lspkit", "run")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("runtime directory: %w", err)
	}
	return dir, nil
}
