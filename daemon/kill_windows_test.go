package daemon_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/lspkit/lspkit/daemon"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestKilledDaemonTakesItsServers: a daemon terminated from outside
// (TerminateProcess, as Task Manager ends it) leaves no language server
// behind: each server's Job Object is closed with the daemon's handles,
// and kill-on-close ends it. The server is pyright on a Windows node.exe,
// named by LSPKIT_WINE_NODE and LSPKIT_WINE_PYRIGHT (scripts/test-windows.sh
// sets them).
func TestKilledDaemonTakesItsServers(t *testing.T) {
	root := winePyright(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	d, err := daemon.Start(ctx, daemon.Options{Binary: lspkitBin, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Kill()
	server := checkPyright(ctx, t, d)
	if !servertest.Alive(server) {
		t.Fatalf("pyright %d is not running", server)
	}
	terminate(t, d.PID())
	servertest.Gone(t, server)
}

// winePyright is a workspace with one finding of pyright's in a.py, and a
// configuration running pyright on the Windows node.exe named by
// LSPKIT_WINE_NODE and LSPKIT_WINE_PYRIGHT (the test is skipped without
// them) with the lsp settings in extra ("" or `,"key":value…`).
func winePyright(t *testing.T, extra string) string {
	t.Helper()
	node, langserver := os.Getenv("LSPKIT_WINE_NODE"), os.Getenv("LSPKIT_WINE_PYRIGHT")
	if node == "" || langserver == "" {
		t.Skip("LSPKIT_WINE_NODE and LSPKIT_WINE_PYRIGHT name no Windows node.exe and pyright langserver")
	}
	root := t.TempDir()
	quote := func(s string) string { return fmt.Sprintf("%q", s) }
	writeFiles(t, root, map[string]string{
		"a.py":           "def f() -> int:\n    return \"x\"\n",
		"pyproject.toml": "[project]\nname = \"w\"\n",
		"lspkit.json":    `{"lsp":{"autoInstall":false,"firstTouchTimeout":120000` + extra + `,"servers":{"pyright":{"command":` + quote(node) + `,"args":[` + quote(langserver) + `,"--stdio"]}}}}`,
	})
	return root
}

// TestSharedOnWindows: two programs attach to one shared daemon over its
// named pipe and share one pyright; one's Stop detaches it alone; a
// shared daemon terminated from outside takes its pyright with it and the
// next request starts a new one; after the last client leaves the daemon
// exits with its server.
func TestSharedOnWindows(t *testing.T) {
	root := winePyright(t, `,"idleExitMs":100`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := func() *daemon.Daemon {
		d, err := daemon.Start(ctx, daemon.Options{Binary: lspkitBin, Root: root, Shared: true, ReadyTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Kill() })
		return d
	}
	a, b := start(), start()
	if a.Ready().PID != b.Ready().PID || a.Ready().PID == a.PID() {
		t.Fatalf("ready: %+v, %+v (relays %d, %d)", a.Ready(), b.Ready(), a.PID(), b.PID())
	}
	pyright := func(d *daemon.Daemon) int { return checkPyright(ctx, t, d) }
	pa, pb := pyright(a), pyright(b)
	if pa != pb {
		t.Fatalf("pyright: %d and %d", pa, pb)
	}
	if err := a.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if !servertest.Alive(b.Ready().PID) || pyright(b) != pa {
		t.Fatal("a's Stop ended the shared daemon or its pyright")
	}
	terminate(t, b.Ready().PID)
	servertest.Gone(t, pa)
	// The next request starts a new daemon, with a new pyright.
	pn := pyright(b)
	if pn == pa || !servertest.Alive(pn) {
		t.Fatalf("pyright after the daemon's end: %d (was %d)", pn, pa)
	}
	if err := b.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	servertest.Gone(t, pn) // the last client left: the daemon exits after idleExitMs, its server with it
}

// terminate ends the process pid from outside, as Task Manager does.
func terminate(t *testing.T, pid int) {
	t.Helper()
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	if err := windows.TerminateProcess(h, 1); err != nil {
		t.Fatal(err)
	}
}

// checkPyright checks a.py through d (pyright's one finding) and returns
// the running pyright's pid from d's status, whose memoryMB (the working
// sets of its Job Object's processes) must be measured.
func checkPyright(ctx context.Context, t *testing.T, d *daemon.Daemon) int {
	t.Helper()
	res, err := d.Check(ctx, api.CheckParams{FilePath: "a.py"})
	if err != nil || !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("check: %+v %v", res, err)
	}
	sts, err := d.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sts {
		if s.ID == "pyright" && s.ServerPID > 0 {
			if s.MemoryMB <= 0 {
				t.Errorf("pyright's memoryMB: %+v", s)
			}
			return s.ServerPID
		}
	}
	t.Fatalf("no running pyright in %+v", sts)
	return 0
}
