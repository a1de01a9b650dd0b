// Package servertest finds the language servers that
// conformance/servers/install.sh installs, for live tests.
package servertest

import (
	"os"
	"path/filepath"
	"testing"
)

// Binary returns the path of an installed server binary (a name in the
// install script's bin directory: $LSPKIT_SERVERS/bin, by default under the
// user cache directory). Where LSPKIT_REQUIRE_SERVERS is set — the test
// script sets it after installing — a missing server fails the test;
// elsewhere it skips.
func Binary(t testing.TB, name string) string {
	t.Helper()
	dir := os.Getenv("LSPKIT_SERVERS")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(cache, "lspkit", "servers")
	}
	path := filepath.Join(dir, "bin", name)
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("LSPKIT_REQUIRE_SERVERS") != "" {
			t.Fatalf("%s is not installed (%v): run conformance/servers/install.sh", name, err)
		}
		t.Skipf("%s is not installed: run conformance/servers/install.sh", name)
	}
	return path
}
