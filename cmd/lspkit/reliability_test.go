// The end-to-end tests drive the built binary and read /proc: Linux only
// (the other systems are covered by cross-compiled builds and vets).

//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
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
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err != nil || strings.TrimSpace(string(comm)) != "gopls" {
		t.Fatalf("status's server pid %d is %q (%v), not gopls", pid, comm, err)
	}
	// The server's whole process group is stopped, its go list children
	// too: a child that exits while gopls alone is stopped leaves the
	// group orphaned, and the kernel continues an orphaned group that
	// has a stopped member (SIGHUP, SIGCONT).
	pgid, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-pgid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-pgid, syscall.SIGCONT)
	// The stop takes effect when the kernel next schedules gopls: on a
	// loaded machine, a few moments after kill returns.
	stopDeadline := time.Now().Add(10 * time.Second)
	for !processStopped(pid) {
		if time.Now().After(stopDeadline) {
			t.Fatalf("gopls (pid %d) did not stop", pid)
		}
		time.Sleep(time.Millisecond) // polling the process's state: no event exists for it
	}
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

// fakeServers are the fake language servers this test binary runs when
// re-executed with LSPKIT_FAKE naming one.
var fakeServers = map[string]lsptest.Behavior{
	// The servers lspkit conform scores (conform_test.go).
	"conform-ok":        {},
	"conform-liar":      {Liar: true},
	"conform-crash":     {CrashOn: "textDocument/hover"},
	"conform-hang-init": {HangOn: "initialize"},
	"conform-garbage":   {RawOn: "textDocument/hover", Raw: "Content-Length: 5\r\n\r\n{]]]}"},
	"conform-flood": {Before: func() {
		go func() {
			line := strings.Repeat("x", 200) + "\n"
			for range 50000 {
				os.Stderr.WriteString(line)
			}
		}()
	}},
	// forker starts a child of its own (sleep), writes the child's pid to
	// $LSPKIT_CHILD_PID, and serves.
	"forker": {Before: func() {
		child := exec.Command("sleep", "600")
		if err := child.Start(); err != nil {
			panic(err)
		}
		if err := os.WriteFile(os.Getenv("LSPKIT_CHILD_PID"), []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
			panic(err)
		}
	}},
}

// TestSIGKILLTakesServerTree: when the daemon is killed by SIGKILL, its
// servers die and so do their own children (the orphan guard kills each
// server's process group). With LSPKIT_ORPHAN_GUARD=off the child is left
// behind (checked by hand: this test then fails).
func TestSIGKILLTakesServerTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	exe, _ := os.Executable()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	writeFiles(t, root, map[string]string{
		"a.fk": "ERROR\n",
		"lspkit.json": fmt.Sprintf(`{"lsp":{"autoInstall":false,"servers":{"forker":{"command":%q,"extensions":[".fk"],"env":{"LSPKIT_FAKE":"forker","LSPKIT_CHILD_PID":%q}}}}}`,
			exe, pidFile),
	})
	d := startDaemon(t, root)
	var res api.CheckResult
	d.must("lsp/check", map[string]any{"filePath": "a.fk"}, &res)
	if !res.Checked || len(res.Diagnostics) != 1 {
		t.Fatalf("check: %+v", res)
	}
	server := d.status()["forker"].ServerPID
	data, err := os.ReadFile(pidFile)
	child, _ := strconv.Atoi(string(data))
	if err != nil || server <= 0 || child <= 0 {
		t.Fatalf("server %d, child %q %v", server, data, err)
	}
	if err := syscall.Kill(d.proc.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-d.proc.Done()
	servertest.Gone(t, server)
	servertest.Gone(t, child)
}

// TestCheckFIFOAndSIGTERM: a FIFO is bad input, refused at once; SIGTERM
// ends a check waiting on a server that never answers, promptly and
// without leaving the server behind.
func TestCheckFIFOAndSIGTERM(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.hang": "x\n",
		"lspkit.json": noInstall(`,"servers":{"hang":{"command":"sh","args":["-c","exec sleep 60"],"extensions":[".hang"]}}`)})
	if err := syscall.Mkfifo(filepath.Join(root, "p.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := lspkit(t, root, "check", "p.go"); code != exitBadInput || !strings.Contains(errOut, "p.go: is not a regular file") {
		t.Errorf("FIFO: exit %d, %s", code, errOut)
	}
	cmd := exec.Command(lspkitBin, "check", "--timeout", "60000", "a.hang")
	cmd.Dir = root
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once the server runs, the check is waiting on it.
	deadline := time.Now().Add(10 * time.Second)
	for !slices.ContainsFunc(processesIn(root), func(pid string) bool {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		return strings.HasPrefix(string(cmdline), "sleep\x0060")
	}) {
		if time.Now().After(deadline) {
			t.Fatal("the server never started")
		}
		time.Sleep(10 * time.Millisecond) // polling the process table, with a deadline
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if took := time.Since(start); took > 3*time.Second || cmd.ProcessState.ExitCode() != exitUnchecked {
		t.Errorf("after SIGTERM: exit %d in %v: %s", cmd.ProcessState.ExitCode(), took, errb.String())
	}
	noProcessesIn(t, root)
}

// TestPrintable: a finding stays on one line whatever its path or message.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{"a.go": "a.go", "dir/é.go": "dir/é.go", "a\nb.go": `"a\nb.go"`, "x\ty": `"x\ty"`} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestSidecarGopls: a gopls sidecar writes a .go file (when the test says
// so); the open file's "undefined" error clears through gopls's watched
// files. The sidecar is gone after lsp/shutdown, and after SIGKILL of the
// daemon.
func TestSidecarGopls(t *testing.T) {
	t.Parallel()
	serversEnv(t)
	root := t.TempDir()
	script := `while [ ! -e go.trigger ]; do sleep 0.05; done; printf 'package demo\n\nfunc Helper() int { return 1 }\n' > helper.tmp; mv helper.tmp helper.go; exec sleep 600`
	writeFiles(t, root, map[string]string{
		"go.mod":      goMod,
		"use.go":      "package demo\n\nfunc Use() int { return Helper() }\n",
		"lspkit.json": fmt.Sprintf(`{"lsp":{"autoInstall":false,"servers":{"gopls":{"sidecar":{"command":["sh","-c",%q]}}}}}`, script),
	})
	d := startDaemon(t, root)
	var res api.CheckResult
	d.must("lsp/check", map[string]any{"filePath": "use.go"}, &res)
	if !res.Checked || len(res.Diagnostics) != 1 || !strings.Contains(res.Diagnostics[0].Message, "undefined: Helper") {
		t.Fatalf("before the sidecar writes: %+v", res)
	}
	if err := os.WriteFile(filepath.Join(root, "go.trigger"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var all api.FileDiagnostics
		d.must("lsp/diagnostics", nil, &all)
		if len(all["use.go"]) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the error did not clear after the sidecar wrote helper.go: %+v", all)
		}
		time.Sleep(50 * time.Millisecond) // polling the daemon, with a deadline
	}
	side := d.status()["gopls"].Sidecar
	if side == nil || side.Status != "running" || side.PID <= 0 {
		t.Fatalf("sidecar status: %+v", side)
	}
	d.must("lsp/shutdown", nil, nil)
	<-d.proc.Done()
	servertest.Gone(t, side.PID)

	d = startDaemon(t, root)
	d.must("lsp/check", map[string]any{"filePath": "use.go"}, &res)
	deadline = time.Now().Add(10 * time.Second)
	for side = d.status()["gopls"].Sidecar; side == nil || side.PID <= 0; side = d.status()["gopls"].Sidecar {
		if time.Now().After(deadline) {
			t.Fatalf("sidecar status: %+v", side)
		}
		time.Sleep(20 * time.Millisecond) // polling status, with a deadline
	}
	if err := syscall.Kill(d.proc.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-d.proc.Done()
	servertest.Gone(t, side.PID)
}

// processStopped reports whether every thread of the process pid is
// stopped by a signal (state T in /proc/PID/task/TID/stat).
func processStopped(pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(task)
		if err != nil {
			return false
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) == 0 || fields[0] != "T" && fields[0] != "t" {
			return false
		}
	}
	return true
}
