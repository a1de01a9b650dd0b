package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
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

// TestServeBadFrame: a frame header the stream cannot be read past ends
// serve with exit status 1 and one line on stderr naming the problem; a
// request read before it is still answered.
func TestServeBadFrame(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"lspkit.json": noInstall("")})
	status := `{"jsonrpc":"2.0","id":1,"method":"lsp/status"}`
	for header, want := range map[string]string{
		"Content-Length: abc\r\n\r\n":                      `invalid Content-Length "abc"`,
		"Content-Length: 2147483648\r\n\r\n":               "exceeds the 67108864-byte limit",
		"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}": "conflicting Content-Length headers",
		"X-Other: 1\r\n\r\n":                               "header block without Content-Length",
	} {
		cmd := exec.Command(lspkitBin, "serve", "--root", root)
		cmd.Env = append(os.Environ(), "LSPKIT_LOG=error")
		cmd.Stdin = strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n%s%s", len(status), status, header))
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(errb.String(), "lspkit serve: rpc: input: transport: ") || !strings.Contains(errb.String(), want) {
			t.Errorf("%q: exit %d, stderr %q", header, code, errb.String())
		}
		if !strings.Contains(out.String(), `"id":1,"result":[`) {
			t.Errorf("%q: the request before it was not answered: %q", header, out.String())
		}
	}
}
