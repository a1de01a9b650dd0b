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
	node, langserver := os.Getenv("LSPKIT_WINE_NODE"), os.Getenv("LSPKIT_WINE_PYRIGHT")
	if node == "" || langserver == "" {
		t.Skip("LSPKIT_WINE_NODE and LSPKIT_WINE_PYRIGHT name no Windows node.exe and pyright langserver")
	}
	root := t.TempDir()
	quote := func(s string) string { return fmt.Sprintf("%q", s) }
	writeFiles(t, root, map[string]string{
		"a.py":           "def f() -> int:\n    return \"x\"\n",
		"pyproject.toml": "[project]\nname = \"w\"\n",
		"lspkit.json":    `{"lsp":{"autoInstall":false,"firstTouchTimeout":120000,"servers":{"pyright":{"command":` + quote(node) + `,"args":[` + quote(langserver) + `,"--stdio"]}}}}`,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	d, err := daemon.Start(ctx, daemon.Options{Binary: lspkitBin, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Kill()
	res, err := d.Check(ctx, api.CheckParams{FilePath: "a.py"})
	if err != nil || !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("check: %+v %v", res, err)
	}
	sts, err := d.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	server := 0
	for _, s := range sts {
		if s.ID == "pyright" {
			server = s.ServerPID
		}
	}
	if server <= 0 || !servertest.Alive(server) {
		t.Fatalf("no running pyright in %+v", sts)
	}
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(d.PID()))
	if err != nil {
		t.Fatal(err)
	}
	err = windows.TerminateProcess(h, 1)
	windows.CloseHandle(h)
	if err != nil {
		t.Fatal(err)
	}
	servertest.Gone(t, server)
}
