//go:build unix

package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
)

// sidecarStatus waits (within 10 s) until server id's sidecar status
// satisfies ok, and returns it.
func (f *fake) sidecarStatus(t *testing.T, id string, ok func(*api.SidecarStatus) bool) *api.SidecarStatus {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := f.status(id).Sidecar
		if st != nil && ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("sidecar of %s: %+v", id, st)
		}
		time.Sleep(10 * time.Millisecond) // polling status, with a deadline
	}
}

// TestSidecar: a server's sidecar starts after it, in its root, shows in
// status, is restarted when it dies within the restart policy and then
// broken with the reason, is unavailable (without blocking checks) when
// its binary is missing, and is stopped with its server.
func TestSidecar(t *testing.T) {
	t.Parallel()
	sh := func(script string) string { return fmt.Sprintf(`{"command":["sh","-c",%q]}`, script) }
	f := newFake(t, map[string]string{"a.fk": "ERROR\n", "b.fk2": "ERROR\n", "c.fk3": "ERROR\n"},
		lsptest.Config(`,"restart":{"maxRestarts":1,"windowMs":60000}`,
			`"ok": {"command": `+fmt.Sprintf("%q", os.Args[0])+`, "args": ["fake"], "extensions": [".fk"], "sidecar": `+sh("pwd > where; exec sleep 600")+`}`,
			`"dies": {"command": `+fmt.Sprintf("%q", os.Args[0])+`, "args": ["fake"], "extensions": [".fk2"], "sidecar": `+sh("echo dying >&2; exit 3")+`}`,
			`"missing": {"command": `+fmt.Sprintf("%q", os.Args[0])+`, "args": ["fake"], "extensions": [".fk3"], "sidecar": {"command": ["lspkit-no-such-sidecar"]}}`),
		map[string]lsptest.Behavior{"fake": {}})
	if st := f.status("ok").Sidecar; st == nil || st.Status != api.StatusIdle || st.Reason != "starts with the server: sh -c pwd > where; exec sleep 600" {
		t.Errorf("before the server starts: %+v", st)
	}
	for _, file := range []string{"a.fk", "b.fk2", "c.fk3"} {
		if res := f.check(t, api.CheckParams{FilePath: file}); !res.Checked || len(res.Diagnostics) != 1 {
			t.Fatalf("%s: %+v", file, res)
		}
	}
	running := f.sidecarStatus(t, "ok", func(st *api.SidecarStatus) bool { return st.Status == "running" && st.PID > 0 })
	where, err := os.ReadFile(filepath.Join(f.root, "where"))
	for err != nil { // written as it starts
		time.Sleep(10 * time.Millisecond) // polling for the file, bounded by the test's timeout
		where, err = os.ReadFile(filepath.Join(f.root, "where"))
	}
	if strings.TrimSpace(string(where)) != f.root {
		t.Errorf("the sidecar ran in %q, not the root %s", where, f.root)
	}
	f.sidecarStatus(t, "dies", func(st *api.SidecarStatus) bool {
		return st.Status == "broken" && st.Restarts == 1 && strings.Contains(st.Reason, "exited 2 times within 1m0s, not restarted: exited: exit status 3; stderr: dying")
	})
	f.sidecarStatus(t, "missing", func(st *api.SidecarStatus) bool {
		return st.Status == "unavailable" && st.Reason == `lspkit-no-such-sidecar not found on PATH (the sidecar "lspkit-no-such-sidecar")`
	})
	if st := f.status("dies"); st.Status != api.StatusActive {
		t.Errorf("the server of a broken sidecar: %+v", st)
	}
	f.Shutdown(context.Background())
	if err := syscall.Kill(running.PID, 0); err == nil {
		t.Errorf("sidecar %d still running after Shutdown", running.PID)
	}
}

// TestRojoSidecar: a luau server whose initialization options turn on
// sourcemap autogeneration with a Rojo project gets rojo as its sidecar,
// run in its root with the project file.
func TestRojoSidecar(t *testing.T) {
	bin := t.TempDir()
	rojo := filepath.Join(bin, "rojo")
	if err := os.WriteFile(rojo, []byte("#!/bin/sh\necho \"$@\" > rojo.args\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	f := newFake(t, map[string]string{"default.project.json": "{}", "a.luau": "ERROR\n"},
		lsptest.Config("", `"luau": {"command": `+fmt.Sprintf("%q", os.Args[0])+`, "args": ["fake"], "initializationOptions": {"luau-lsp": {"sourcemap": {"autogenerate": true, "rojoProjectFile": "default.project.json"}}}}`),
		map[string]lsptest.Behavior{"fake": {}})
	if res := f.check(t, api.CheckParams{FilePath: "a.luau"}); !res.Checked {
		t.Fatalf("%+v", res)
	}
	f.sidecarStatus(t, "luau", func(st *api.SidecarStatus) bool { return st.Status == "running" && st.PID > 0 })
	deadline := time.Now().Add(10 * time.Second)
	for {
		args, err := os.ReadFile(filepath.Join(f.root, "rojo.args"))
		if err == nil && strings.TrimSpace(string(args)) == "sourcemap default.project.json --watch -o sourcemap.json" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rojo's arguments: %q %v", args, err)
		}
		time.Sleep(10 * time.Millisecond) // polling for the file, with a deadline
	}
}
