package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/daemon"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// lspkitBin is the daemon under test, built once by TestMain.
var lspkitBin string

func TestMain(m *testing.M) {
	if os.Getenv("LSPKIT_SILENT_DAEMON") != "" {
		// TestStartNoReady's daemon: says nothing.
		fmt.Fprintln(os.Stderr, "about to say nothing")
		time.Sleep(time.Minute) // a daemon that never answers
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "lspkit-daemon")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lspkitBin = filepath.Join(dir, "lspkit")
	if runtime.GOOS == "windows" {
		lspkitBin += ".exe"
	}
	args := []string{"build", "-o", lspkitBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "../cmd/lspkit")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if prebuilt := os.Getenv("LSPKIT_TEST_BINARY"); prebuilt != "" {
		// A binary built elsewhere (scripts/test.sh's, scripts/test-windows.sh's:
		// no go command under Wine).
		lspkitBin, build = prebuilt, exec.Command(prebuilt, "--version")
	}
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building lspkit:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDaemon: start, typed calls, stop; nothing left running.
func TestDaemon(t *testing.T) {
	servertest.Binary(t, "gopls")
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":      "module example.com/demo\n\ngo 1.22\n",
		"a.go":        "package demo\n\n// Answer is 42.\nfunc Answer() int { return 42 }\n\nvar X int = \"s\"\n",
		"lspkit.json": `{"lsp":{"autoInstall":false}}`,
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := daemon.Start(ctx, daemon.Options{Binary: lspkitBin, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if r := d.Ready(); r.PID != d.PID() || r.Version == "" || !d.Alive() {
		t.Fatalf("ready %+v, pid %d, alive %v", r, d.PID(), d.Alive())
	}
	res, err := d.Check(ctx, api.CheckParams{FilePath: "a.go"})
	if err != nil || !res.Checked || len(res.Diagnostics) != 1 || res.Diagnostics[0].Line != 6 {
		t.Fatalf("check: %+v %v", res, err)
	}
	diags, err := d.CheckFile(ctx, api.CheckParams{FilePath: "a.go"})
	if err != nil || len(diags) != 1 {
		t.Fatalf("checkFile: %+v %v", diags, err)
	}
	hover, err := d.Hover(ctx, api.PositionParams{File: "a.go", Line: 4, Symbol: "Answer"})
	if err != nil || hover.Content == nil || !strings.Contains(*hover.Content, "Answer is 42.") {
		t.Fatalf("hover: %+v %v", hover, err)
	}
	calls, err := d.CallHierarchy(ctx, api.CallHierarchyParams{PositionParams: api.PositionParams{File: "a.go", Line: 4, Symbol: "Answer"}, Direction: api.DirectionIncoming})
	if err != nil || calls.Function != "Answer" || len(calls.Calls) != 0 {
		t.Fatalf("call hierarchy: %+v %v", calls, err)
	}
	ren, err := d.Rename(ctx, api.RenameParams{PositionParams: api.PositionParams{File: "a.go", Line: 4, Symbol: "Answer"}, NewName: "Reply"})
	if err != nil || ren.Applied || ren.Files != 1 || ren.Edits != 2 || !strings.Contains(ren.Diff, "+// Reply is 42.") || !strings.Contains(ren.Diff, "+func Reply() int { return 42 }") {
		t.Fatalf("rename: %+v %v", ren, err)
	}
	if _, err := d.Definition(ctx, api.PositionParams{File: "../elsewhere.go", Line: 1, Character: 1}); err == nil {
		t.Fatal("definition outside the root succeeded")
	} else if e, ok := errors.AsType[*transport.Error](err); !ok || e.Code != api.CodeOutsideRoot {
		t.Fatalf("outside the root: %v", err)
	}
	epoch, err := d.DiagnosticEpoch(ctx)
	if err != nil || epoch == 0 {
		t.Fatalf("epoch %d %v", epoch, err)
	}
	all, err := d.Diagnostics(ctx)
	if err != nil || len(all["a.go"]) != 1 {
		t.Fatalf("diagnostics %+v %v", all, err)
	}
	sts, err := d.Status(ctx)
	var gopls int
	for _, s := range sts {
		if s.ID == "gopls" {
			gopls = s.ServerPID
		}
	}
	if err != nil || gopls <= 0 {
		t.Fatalf("status: %v %v", sts, err)
	}
	pid := d.PID()
	if err := d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d.Alive() {
		t.Fatal("alive after Stop")
	}
	servertest.Gone(t, pid)
	servertest.Gone(t, gopls)
}

// TestStartNoReady: a binary that never sends lsp/ready fails Start within
// the ready timeout and is killed.
func TestStartNoReady(t *testing.T) {
	dir := t.TempDir()
	silent, err := os.Executable() // this test binary, as a daemon that never says ready
	if err != nil {
		t.Fatal(err)
	}
	// Whether the child got as far as its first line before the deadline
	// is up to the machine: the error names the process either way.
	start := time.Now()
	_, err = daemon.Start(context.Background(), daemon.Options{Binary: silent, Root: dir, ReadyTimeout: 300 * time.Millisecond, Env: []string{"LSPKIT_SILENT_DAEMON=1"}})
	if err == nil || !strings.Contains(err.Error(), "no lsp/ready within 300ms") {
		t.Fatalf("got %v", err)
	}
	if took := time.Since(start); took > servertest.Scale(5*time.Second) {
		t.Fatalf("Start took %s", took)
	}
	var pid int
	if _, err := fmt.Sscanf(err.Error(), "daemon: process %d stopped:", &pid); err != nil || pid <= 0 {
		t.Fatalf("the error does not name the process: %v", err)
	}
	servertest.Gone(t, pid)
	if _, err := daemon.Start(context.Background(), daemon.Options{Binary: filepath.Join(dir, "missing")}); err == nil {
		t.Fatal("a missing binary started")
	}
}

// TestShared: two programs attach to one shared daemon (one gopls), and
// each Stop detaches only its own client.
func TestShared(t *testing.T) {
	servertest.Binary(t, "gopls")
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":      "module example.com/demo\n\ngo 1.22\n",
		"a.go":        "package demo\n\nvar X int = \"s\"\n",
		"lspkit.json": `{"lsp":{"autoInstall":false,"idleExitMs":100}}`,
	})
	runtime, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(runtime)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := func() *daemon.Daemon {
		d, err := daemon.Start(ctx, daemon.Options{Binary: lspkitBin, Root: root, Dir: t.TempDir(), Shared: true, Env: []string{"LSPKIT_RUNTIME_DIR=" + runtime}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a, b := start(), start()
	if a.Ready().PID != b.Ready().PID || a.Ready().PID == a.PID() {
		t.Fatalf("ready: %+v, %+v (relays %d, %d)", a.Ready(), b.Ready(), a.PID(), b.PID())
	}
	gopls := func(d *daemon.Daemon) int {
		res, err := d.Check(ctx, api.CheckParams{FilePath: "a.go"})
		if err != nil || len(res.Diagnostics) != 1 {
			t.Fatalf("check: %+v %v", res, err)
		}
		sts, _ := d.Status(ctx)
		for _, s := range sts {
			if s.ID == "gopls" {
				return s.ServerPID
			}
		}
		return 0
	}
	pa, pb := gopls(a), gopls(b)
	if pa == 0 || pa != pb {
		t.Fatalf("gopls: %d and %d", pa, pb)
	}
	if err := a.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if gopls(b) != pa {
		t.Fatal("a's Stop stopped b's gopls")
	}
	if err := b.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	servertest.Gone(t, a.Ready().PID) // the last client left: the daemon exits after idleExitMs
	servertest.Gone(t, pa)
}
