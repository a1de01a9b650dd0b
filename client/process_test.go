//go:build unix

package client

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

func fake(t *testing.T, mode string) *Process {
	t.Helper()
	p, err := StartProcess(Command{Path: os.Args[0], Env: []string{"LSPKIT_FAKE=" + mode}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(time.Second) })
	return p
}

func firstLine(t *testing.T, p *Process) string {
	t.Helper()
	line, err := bufio.NewReader(p.Stdio()).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the fake server: %v (%s)", err, p.Exit())
	}
	return strings.TrimSpace(line)
}

func TestProcessCrash(t *testing.T) {
	p := fake(t, "crash")
	<-p.Done()
	es := p.Exit()
	if es.Code != 3 || es.Signal != 0 {
		t.Fatalf("exit: %s", es)
	}
	if len(es.Stderr) != stderrLines+1 || es.Stderr[0] != "fake: line 11" || es.Stderr[stderrLines-1] != "fake: line 60" || es.Stderr[stderrLines] != "fake: panic: no newline at the end" {
		t.Fatalf("stderr tail (%d lines): %q … %q", len(es.Stderr), es.Stderr[0], es.Stderr[len(es.Stderr)-1])
	}
	if !strings.Contains(es.String(), "exit status 3; stderr: fake: line 1 | ") || !strings.Contains(es.String(), "fake: line 8 | … | fake: line 11 |") {
		t.Fatalf("String: %s", es)
	}
	// The first lines are kept too: a program says why it cannot start
	// first, and its backtrace may push that out of the tail.
	if len(es.StderrHead) != stderrHead || es.StderrHead[0] != "fake: line 1" {
		t.Fatalf("stderr head: %q", es.StderrHead)
	}
	if got, want := es.Summary(), "exit status 3: fake: panic: no newline at the end"; got != want {
		t.Fatalf("Summary: %q, want %q", got, want)
	}
}

func TestProcessStopEscalates(t *testing.T) {
	p := fake(t, "stubborn")
	if firstLine(t, p) != "ready" {
		t.Fatal("fake server not ready")
	}
	start := time.Now()
	es := p.Stop(200 * time.Millisecond)
	if es.Signal != syscall.SIGKILL {
		t.Fatalf("a server ignoring SIGTERM ended with %s", es)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("Stop took %v", time.Since(start))
	}
	servertest.Gone(t, p.PID())
}

// TestProcessGroup: a child the server leaves behind dies with the group.
func TestProcessGroup(t *testing.T) {
	p := fake(t, "grandchild")
	child, err := strconv.Atoi(firstLine(t, p))
	if err != nil || !servertest.Alive(child) {
		t.Fatalf("no grandchild: %v", err)
	}
	p.Stop(200 * time.Millisecond)
	servertest.Gone(t, p.PID())
	servertest.Gone(t, child)
}

// TestPdeathsig: when the process that started a server is killed with
// SIGKILL (nothing can clean up), the kernel kills the server.
func TestPdeathsig(t *testing.T) {
	parent := fake(t, "parent")
	server, err := strconv.Atoi(firstLine(t, parent))
	if err != nil || !servertest.Alive(server) {
		t.Fatalf("no server: %v", err)
	}
	if err := syscall.Kill(parent.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-parent.Done()
	servertest.Gone(t, server)
}

func TestStartMissing(t *testing.T) {
	_, err := StartProcess(Command{Path: "no-such-language-server"})
	if err == nil || !strings.Contains(err.Error(), "no-such-language-server") {
		t.Fatalf("got %v", err)
	}
}

// TestProcessGopls: the real gopls started as a Process speaks LSP over
// Stdio and is gone after Stop.
func TestProcessGopls(t *testing.T) {
	gopls := servertest.Binary(t, "gopls")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/x\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := StartProcess(Command{Path: gopls, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	conn := transport.NewConn(p.Stdio(), transport.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := protocol.InitializeRequest.Call(ctx, conn, protocol.InitializeParams{ProcessID: protocol.NewNullable(int32(os.Getpid()))})
	if err != nil {
		t.Fatalf("initialize: %v (%s)", err, strings.Join(p.StderrTail(), " | "))
	}
	if res.ServerInfo == nil || res.ServerInfo.Name != "gopls" {
		t.Fatalf("server info %+v", res.ServerInfo)
	}
	es := p.Stop(2 * time.Second)
	conn.Close()
	conn.Wait()
	if es.Signal != syscall.SIGTERM && es.Code != 0 {
		t.Fatalf("gopls ended with %s", es)
	}
	servertest.Gone(t, p.PID())
}

// TestExitNotHeldByGrandchild: a server that exits while a child it left
// behind holds its stderr is reaped within WaitDelay, not when the child
// ends.
func TestExitNotHeldByGrandchild(t *testing.T) {
	p, err := StartProcess(Command{Path: "sh", Args: []string{"-c", "sleep 60 >&2 & echo started >&2; exit 0"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill() // the sleep, in the server's group
	select {
	case <-p.Done():
	case <-time.After(10 * WaitDelay):
		t.Fatalf("the server was not reaped %v after it exited: a grandchild holding stderr held Wait", 10*WaitDelay)
	}
	if es := p.Exit(); es.Code != 0 {
		t.Fatalf("exit: %s", es)
	}
}

// TestExitStatusString: how an exit reads in a reason.
func TestExitStatusString(t *testing.T) {
	for es, want := range map[string]ExitStatus{
		"killed by signal 9 (killed)":  {Code: -1, Signal: syscall.SIGKILL},
		"exit status 3; stderr: a | b": {Code: 3, Stderr: []string{"a", "b"}},
	} {
		if got := want.String(); got != es {
			t.Errorf("%+v: %q, want %q", want, got, es)
		}
	}
}

// TestTellingLine: the line of a program's stderr that says what went
// wrong, as the programs write it.
func TestTellingLine(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{"error: Unknown binary 'rust-analyzer' in official toolchain 'stable'.", "", "Stack backtrace:", "   0: anyhow::kind::Adhoc::new"}, "error: Unknown binary 'rust-analyzer' in official toolchain 'stable'."},
		{[]string{"Traceback (most recent call last):", `  File "/usr/bin/pylsp", line 5, in <module>`, "    from pylsp.__main__ import main", "ModuleNotFoundError: No module named 'pylsp'"}, "ModuleNotFoundError: No module named 'pylsp'"},
		{[]string{"/srv/node_modules/x/lib/server.js:12", "    throw new TypeError('bad')", "    ^", "", "TypeError: bad", "    at Object.<anonymous> (/srv/x.js:12:11)"}, "TypeError: bad"},
		{[]string{"Exception in thread \"main\" java.lang.IllegalStateException: no JDK"}, "Exception in thread \"main\" java.lang.IllegalStateException: no JDK"},
		{[]string{"mise ERROR No version is set for shim: zls"}, "mise ERROR No version is set for shim: zls"},
		{[]string{"", "  starting up", "listening"}, "starting up"},
		{nil, ""},
		{[]string{strings.Repeat("é", 400)}, strings.Repeat("é", 120) + "…"},
	} {
		if got := TellingLine(tc.lines); got != tc.want {
			t.Errorf("TellingLine(%q) = %q, want %q", tc.lines, got, tc.want)
		}
	}
}
