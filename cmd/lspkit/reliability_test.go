package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestStoppedServerRestarted: a gopls that stops answering (SIGSTOP) makes
// a check time out; the daemon then finds it unresponsive, says so in
// status, and restarts it under the restart policy; the next check is
// answered by the new one.
func TestStoppedServerRestarted(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": "package demo\n\nvar X int = \"s\"\n", "lspkit.json": noInstall("")})
	d := startDaemon(t, root, serversEnv(t)...)
	var res api.CheckResult
	d.must("lsp/check", map[string]any{"filePath": "a.go"}, &res)
	pid := d.status()["gopls"].ServerPID
	if !res.Checked || pid <= 0 {
		t.Fatalf("first check: %+v, pid %d", res, pid)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGCONT)
	d.must("lsp/check", map[string]any{"filePath": "a.go", "timeoutMs": 300}, &res)
	if v := res.Servers[0].Verdict; res.Checked || v != api.VerdictTimedOut && v != api.VerdictPartial {
		t.Fatalf("check of a stopped server: %+v", res)
	}
	deadline := time.Now().Add(20 * time.Second)
	for st := d.status()["gopls"]; st.Restarts == 0; st = d.status()["gopls"] {
		if time.Now().After(deadline) {
			t.Fatalf("the stopped server was not restarted: %+v", st)
		}
		time.Sleep(20 * time.Millisecond) // polling status, with a deadline
	}
	d.must("lsp/check", map[string]any{"filePath": "a.go"}, &res)
	if !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("check after the restart: %+v", res)
	}
	if st := d.status()["gopls"]; st.ServerPID == pid || st.Restarts != 1 || st.Status != api.StatusActive ||
		!strings.Contains(st.Reason, "restarted after: unresponsive: no answer to a ping within 5s after a check timed out") {
		t.Errorf("status: %+v (the stopped one was %d)", st, pid)
	}
	servertest.Gone(t, pid)
}
