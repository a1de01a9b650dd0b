// Package servertest finds the language servers that
// `lspkit install --tested` installs, for live tests.
package servertest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Binary returns the path of an installed server binary (a name in the
// server store's bin directory: $LSPKIT_SERVERS/bin, by default under the
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
			t.Fatalf("%s is not installed (%v): run go run ./cmd/lspkit install --tested", name, err)
		}
		t.Skipf("%s is not installed: run go run ./cmd/lspkit install --tested", name)
	}
	return path
}

// CIOnly skips a live test outside CI's live steps (LSPKIT_CI_LIVE=1):
// one heavy enough on the servers' CPU that the test command's budget on
// a fresh 2-core machine leaves it to .ci/run.
func CIOnly(t testing.TB) {
	t.Helper()
	if os.Getenv("LSPKIT_CI_LIVE") == "" {
		t.Skip("live in CI's step: LSPKIT_CI_LIVE=1 (.ci/run)")
	}
}

// Gone waits, up to a deadline, for pid to leave the process table.
func Gone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for Alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still alive", pid)
		}
		time.Sleep(10 * time.Millisecond) // polling the process table: there is no event for another process's death
	}
}
