//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lspdaemon "github.com/lspkit/lspkit/daemon"
	"github.com/lspkit/lspkit/service/api"
)

// TestSharedServerEnv: a shared daemon started by a host that passes a
// whitelisted environment (Codex: HOME, PATH, TMPDIR, LANG, …) serves
// the others as well: the variable it lacks is taken from the next client
// that has it for the servers it starts, and a client whose value differs
// is told so in lsp/ready and on lsp/status — never silently served
// otherwise. All three are clients of one daemon.
func TestSharedServerEnv(t *testing.T) {
	t.Parallel()
	exe, _ := os.Executable()
	root, runtime := sharedFixture(t, "shared-plain", 60000)
	writeFiles(t, root, map[string]string{
		"lspkit.json": fmt.Sprintf(`{"lsp":{"autoInstall":false,"idleExitMs":0,"servers":{"fake":{"command":"sh","args":["-c","printf %%s \"$GOFLAGS\" > envout; exec \"$0\"",%q],"extensions":[".fk"],"env":{"LSPKIT_FAKE":"shared-plain"}}}}}`, exe),
	})
	// Codex's whitelist, and nothing else.
	whitelist := filepath.Join(t.TempDir(), "codex-env")
	writeFiles(t, filepath.Dir(whitelist), map[string]string{"codex-env": fmt.Sprintf("#!/bin/sh\nexec env -i HOME=\"$HOME\" PATH=\"$PATH\" TMPDIR=/tmp LANG=C.UTF-8 SHELL=/bin/sh TERM=dumb LSPKIT_RUNTIME_DIR=%q %q \"$@\"\n", runtime, lspkitBin)})
	os.Chmod(whitelist, 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := func(bin string, env ...string) *lspdaemon.Daemon {
		d, err := lspdaemon.Start(ctx, lspdaemon.Options{Binary: bin, Root: root, Dir: t.TempDir(), Shared: true, Env: append(env, "LSPKIT_RUNTIME_DIR="+runtime)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Stop(context.Background()) })
		return d
	}
	codex := start(whitelist)
	claude := start(lspkitBin, "GOFLAGS=-tags=claude")
	if notes := claude.Ready().Notes; len(notes) != 0 {
		t.Errorf("a client whose variable the daemon lacked was told: %q", notes)
	}
	if res, err := claude.Check(ctx, api.CheckParams{FilePath: filepath.Join(root, "a.fk")}); err != nil || !res.Checked {
		t.Fatalf("check: %+v %v", res, err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "envout")); string(got) != "-tags=claude" {
		t.Errorf("the server started with GOFLAGS=%q, want the one the daemon lacked, taken from the next client", got)
	}
	other := start(lspkitBin, "GOFLAGS=-tags=other")
	want := "the shared daemon's servers run with another GOFLAGS than this session's"
	if notes := other.Ready().Notes; len(notes) != 1 || !strings.HasPrefix(notes[0], want) {
		t.Errorf("lsp/ready notes %q, want one starting %q", notes, want)
	}
	sts, err := other.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if i := indexStatus(sts, api.DaemonStatusID); i < 0 || !strings.Contains(sts[i].Reason, want) {
		t.Errorf("lsp/status has no lspkit entry with the note: %+v", sts)
	}
	if sts, _ := claude.Status(ctx); indexStatus(sts, api.DaemonStatusID) >= 0 {
		t.Errorf("another client's note reached this one's lsp/status: %+v", sts)
	}
	if a, b, c := codex.Ready().PID, claude.Ready().PID, other.Ready().PID; a != b || b != c {
		t.Errorf("shared daemons %d, %d, %d: want one", a, b, c)
	}
}

// indexStatus is the index of id's entry in sts, or -1.
func indexStatus(sts []api.ServerStatus, id string) int {
	for i, s := range sts {
		if s.ID == id {
			return i
		}
	}
	return -1
}
