// Package servertest finds the language servers that
// `lspkit install --tested` installs, for live tests, and says which live
// tests run where: the test command (scripts/test.sh) runs one live row per
// core server (Row), CI's live pass (.ci/run, LSPKIT_CI_LIVE=1) runs every
// live test whole. It also scales the tests' deadlines to the machine.
package servertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Binary returns the path of an installed server binary (a name in the
// server store's bin directory: $LSPKIT_SERVERS/bin, by default under the
// user cache directory) for a live test of CI's live pass: outside it
// (LSPKIT_CI_LIVE unset) the test is skipped and, where
// LSPKIT_LIVE_DEFERRED names a file, recorded there for that pass. Where
// LSPKIT_REQUIRE_SERVERS is set — the test script sets it after installing
// — a missing server fails the test; elsewhere it skips. A live test holds
// one of the machine's live slots (see Slots) until it ends.
func Binary(t testing.TB, name string) string {
	t.Helper()
	if !CILive() {
		defer_(t)
		t.Skip("live in CI's live pass: LSPKIT_CI_LIVE=1 (.ci/run)")
	}
	return find(t, name)
}

// Row is Binary for the live rows the test command keeps: one per core
// server (gopls, typescript, pyright, clangd). It never defers.
func Row(t testing.TB, name string) string {
	t.Helper()
	return find(t, name)
}

// find returns the server binary's path, holding a live slot.
func find(t testing.TB, name string) string {
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
	holdSlot(t)
	return path
}

// CILive reports whether this is CI's live pass (LSPKIT_CI_LIVE set),
// where every live test runs.
func CILive() bool { return os.Getenv("LSPKIT_CI_LIVE") != "" }

// CIOnly skips a test outside CI's live pass (LSPKIT_CI_LIVE=1): one too
// heavy on the processor for the test command's budget on a fresh 2-core
// machine (a long live scenario, compiling generated code), recorded for
// the pass as Binary records.
func CIOnly(t testing.TB) {
	t.Helper()
	if !CILive() {
		defer_(t)
		t.Skip("in CI's live pass: LSPKIT_CI_LIVE=1 (.ci/run)")
	}
}

// Heavy reports whether a test that runs everywhere is to run at its full
// size: in CI's live pass. Elsewhere it runs smaller (the test command's
// budget) and is recorded, as Binary records, for the pass to run whole.
func Heavy(t testing.TB) bool {
	t.Helper()
	if CILive() {
		return true
	}
	defer_(t)
	return false
}

var deferMu sync.Mutex

// defer_ records the top-level test t belongs to in $LSPKIT_LIVE_DEFERRED
// as "DIR TEST": the package's directory (a test runs in it) and the
// test's name, for CI's live pass to run.
func defer_(t testing.TB) {
	file := os.Getenv("LSPKIT_LIVE_DEFERRED")
	if file == "" {
		return
	}
	wd, err := os.Getwd()
	if err != nil {
		return
	}
	top, _, _ := strings.Cut(t.Name(), "/")
	deferMu.Lock()
	defer deferMu.Unlock()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Logf("record the deferred test: %v", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s\n", filepath.ToSlash(wd), top)
}

// Scale is d times LSPKIT_TEST_TIMEOUT_SCALE (a number, 1 when unset): the
// one factor every test deadline that waits on a server, a process or
// the machine is given, so that a slower machine is given more time
// instead of failing. A deadline is a verdict on what is awaited, never
// on the clock.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * scale())
}

// scale is LSPKIT_TEST_TIMEOUT_SCALE, or 1.
func scale() float64 {
	if f, err := strconv.ParseFloat(os.Getenv("LSPKIT_TEST_TIMEOUT_SCALE"), 64); err == nil && f > 0 {
		return f
	}
	return 1
}

// Gone waits, up to a deadline, for pid to leave the process table.
func Gone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(Scale(10 * time.Second))
	for Alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still alive", pid)
		}
		time.Sleep(10 * time.Millisecond) // polling the process table: there is no event for another process's death
	}
}

// LoadedWait is the lsp options' first-touch wait of a live test: a loaded
// machine may start a server for longer than the default, and the answers
// must then be complete all the same (scaled: Scale).
var LoadedWait = fmt.Sprintf(`,"firstTouchTimeout":%d`, Scale(90*time.Second).Milliseconds())

// LiveConfig is a live test's configuration document: autoInstall off, the
// lsp options given (",key":value…), and unless they say otherwise the
// waits a loaded machine needs (LoadedWait; a minute, scaled, for a
// server's findings: pyright took over 3 s to answer for a workspace
// folder added to it while a fresh clone's tests compiled beside it). A
// live test asserts what the server answers, not how fast.
func LiveConfig(options string) string {
	if !strings.Contains(options, `"firstTouchTimeout"`) {
		options = LoadedWait + options
	}
	if !strings.Contains(options, `"diagnosticTimeout"`) {
		options = fmt.Sprintf(`,"diagnosticTimeout":%d`, Scale(60*time.Second).Milliseconds()) + options
	}
	return `{"lsp":{"autoInstall":false` + options + `}}`
}

// GoMod is a go.mod for the live tests' Go projects.
const GoMod = "module example.com/demo\n\ngo 1.22\n"

// GoCrossFile is a Go module whose b.go calls a.go's F, and a text of
// a.go that changes F's signature, which breaks b.go (on its line 3).
func GoCrossFile() (files map[string]string, breakingA string) {
	return map[string]string{
		"go.mod": GoMod,
		"a.go":   "package demo\n\n// F is used by b.go.\nfunc F() int { return 1 }\n",
		"b.go":   "package demo\n\nfunc G() int { return F() + 1 }\n",
	}, "package demo\n\n// F is used by b.go.\nfunc F() string { return \"1\" }\n"
}
