package shared

import (
	"fmt"
	"os"
	"path/filepath"
)

// runtimeDir is lspkit\run in the user's local application data, which
// only the user (and administrators) can enter.
func runtimeDir() (string, error) {
	base, err := os.UserCacheDir() // %LocalAppData%
	if err != nil {
		return "", fmt.Errorf("runtime directory: %w", err)
	}
	dir := filepath.Join(base, "lspkit", "run")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("runtime directory: %w", err)
	}
	return dir, nil
}
