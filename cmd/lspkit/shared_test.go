//go:build linux

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

func init() {
	fakeServers["shared-plain"] = lsptest.Behavior{}
	fakeServers["shared-hang"] = lsptest.Behavior{HangOn: "textDocument/hover"}
	fakeServers["shared-slow"] = lsptest.Behavior{Delay: 3 * time.Second}
}

// sharedFixture is a workspace of .fk files served by the fake server
// behavior (its hovers quote the line), and a runtime directory of its
// own for the shared daemon's socket.
func sharedFixture(t *testing.T, behavior string, idleExitMs int) (root, runtime string) {
	t.Helper()
	exe, _ := os.Executable()
	root = t.TempDir()
	writeFiles(t, root, map[string]string{
		"a.fk": "ERROR here\n",
		"b.fk": "fine\n",
		"lspkit.json": fmt.Sprintf(`{"lsp":{"autoInstall":false,"mcpStructuredContent":true,"idleExitMs":%d,"servers":{"fake":{"command":%q,"extensions":[".fk"],"env":{"LSPKIT_FAKE":%q}}}}}`,
			idleExitMs, exe, behavior),
	})
	// The runtime directory's path must fit a socket address (108 bytes).
	runtime, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtime) })
	return root, runtime
}

// attach starts `lspkit serve --shared` for root, in a directory of its
// own (so that the processes in root are the shared daemon's), and
// returns it with the shared daemon's pid from lsp/ready. The daemon is
// killed when the test ends, if it still runs.
func attach(t *testing.T, root, runtime string, extra ...string) (*daemon, int) {
	t.Helper()
	d := startServe(t, root, t.TempDir(), append([]string{"--shared"}, extra...), "LSPKIT_RUNTIME_DIR="+runtime)
	pid := int(d.readyParams["pid"].(float64))
	if pid == d.proc.PID() {
		t.Fatalf("lsp/ready names the relay (pid %d), not the shared daemon", pid)
	}
	t.Cleanup(func() {
		syscall.Kill(pid, syscall.SIGKILL)
		noProcessesIn(t, root)
	})
	return d, pid
}

// gone waits, up to a deadline, until the process pid has exited.
func gone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for syscall.Kill(pid, 0) == nil {
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(stat), ") Z ") {
			return // a zombie: exited, its parent not yet told
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs after %s", pid, within)
		}
		time.Sleep(5 * time.Millisecond) // polling the process table: no event exists for another process's exit
	}
}

// sharedDaemons lists the shared daemons serving root.
func sharedDaemons(root string) []int {
	var pids []int
	for _, p := range processesIn(root) {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", p, "cmdline"))
		if strings.Contains(string(cmdline), "\x00shared-daemon\x00") {
			pid, _ := strconv.Atoi(p)
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestSharedDaemon: two agents' `lspkit serve --shared` on one root share
// one daemon and one server process, each answered as without --shared; a
// check's given text is that check's alone; lsp/shutdown detaches one
// client only; when the last has left, the daemon exits after idleExitMs
// and leaves no process and no socket behind.
func TestSharedDaemon(t *testing.T) {
	t.Parallel()
	root, runtime := sharedFixture(t, "shared-plain", 300)
	a, pid := attach(t, root, runtime)
	b, pidB := attach(t, root, runtime)
	if pid != pidB {
		t.Fatalf("two clients, two daemons: %d and %d", pid, pidB)
	}
	var ra, rb api.CheckResult
	a.must("lsp/check", map[string]any{"filePath": "a.fk"}, &ra)
	b.must("lsp/check", map[string]any{"filePath": "a.fk"}, &rb)
	if !ra.Checked || len(ra.Diagnostics) != 1 || fmt.Sprint(ra.Diagnostics) != fmt.Sprint(rb.Diagnostics) {
		t.Fatalf("checks: a %+v, b %+v", ra, rb)
	}
	sa, sb := a.status()["fake"], b.status()["fake"]
	if sa.ServerPID == 0 || sa.ServerPID != sb.ServerPID {
		t.Fatalf("the clients see different servers: %+v, %+v", sa, sb)
	}
	// lspkit status sees the daemon, its clients and its servers.
	if out := statusIn(t, root, runtime); !strings.Contains(out, fmt.Sprintf("shared daemon: pid %d since ", pid)) || !strings.Contains(out, "2 clients attached (rpc ×2)") ||
		!regexp.MustCompile(`(?m)^fake +\S* +active`).MatchString(out) {
		t.Fatalf("lspkit status while the daemon runs:\n%s", out)
	}
	// Isolation: a's given text is a's alone.
	given := "GIVEN\n"
	a.must("lsp/check", map[string]any{"filePath": "a.fk", "text": given}, &ra)
	if !ra.Checked || len(ra.Diagnostics) != 0 {
		t.Fatalf("check of given text: %+v", ra)
	}
	var hover api.HoverResult
	b.must("lsp/hover", map[string]any{"file": "a.fk", "line": 1, "character": 1}, &hover)
	if hover.Content == nil || !strings.Contains(*hover.Content, "ERROR here") {
		t.Fatalf("b's hover after a's check of given text: %v; want the disk's line", hover.Content)
	}
	// lsp/shutdown detaches a alone.
	a.must("lsp/shutdown", nil, nil)
	select {
	case <-a.proc.Done():
		if es := a.proc.Exit(); es.Code != 0 {
			t.Fatalf("a's relay after lsp/shutdown: %s", es)
		}
	case <-time.After(servertest.Scale(10 * time.Second)):
		t.Fatal("a's relay still runs after lsp/shutdown")
	}
	if sb := b.status()["fake"]; sb.ServerPID != sa.ServerPID {
		t.Fatalf("a's shutdown stopped b's server: %+v", sb)
	}
	// b leaves by closing its input; the daemon follows after idleExitMs.
	b.proc.Stdio().Close()
	select {
	case <-b.proc.Done():
	case <-time.After(servertest.Scale(10 * time.Second)):
		t.Fatal("b's relay still runs after its input ended")
	}
	gone(t, pid, 10*time.Second)
	noProcessesIn(t, root)
	if left, _ := filepath.Glob(filepath.Join(runtime, "*.sock")); len(left) != 0 {
		t.Fatalf("socket left behind: %v", left)
	}
	if out := statusIn(t, root, runtime); !strings.Contains(out, "shared daemon: none runs for this root") || !regexp.MustCompile(`(?m)^fake +\S* +idle`).MatchString(out) {
		t.Fatalf("lspkit status after the daemon left:\n%s", out)
	}
}

// statusIn is lspkit status's output for root, with the shared daemons'
// runtime directory.
func statusIn(t *testing.T, root, runtime string) string {
	t.Helper()
	cmd := exec.Command(lspkitBin, "status", "--root", root)
	cmd.Env = append(os.Environ(), "LSPKIT_RUNTIME_DIR="+runtime)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("lspkit status: %v\n%s", err, out)
	}
	return string(out)
}

// TestSharedRace: eight clients started at once start one daemon; all
// attach to it.
func TestSharedRace(t *testing.T) {
	t.Parallel()
	root, runtime := sharedFixture(t, "shared-plain", 60000)
	pids := make([]int, 8)
	var wg sync.WaitGroup
	for i := range pids {
		wg.Go(func() {
			d, pid := attach(t, root, runtime)
			pids[i] = pid
			var res api.CheckResult
			d.must("lsp/check", map[string]any{"filePath": "a.fk"}, &res)
			if !res.Checked || len(res.Diagnostics) != 1 {
				t.Errorf("client %d: %+v", i, res)
			}
		})
	}
	wg.Wait()
	if distinct := slices.Compact(slices.Sorted(slices.Values(pids))); len(distinct) != 1 {
		t.Fatalf("eight clients attached to %v", pids)
	}
	oneDaemon(t, root)
}

// TestSharedClientKilled: a client killed with SIGKILL while a request of
// its hangs is detached at once: the daemon, with no other client, exits
// after idleExitMs.
func TestSharedClientKilled(t *testing.T) {
	t.Parallel()
	root, runtime := sharedFixture(t, "shared-hang", 200)
	a, pid := attach(t, root, runtime)
	var res api.CheckResult
	a.must("lsp/check", map[string]any{"filePath": "a.fk"}, &res)
	go a.call("lsp/hover", map[string]any{"file": "a.fk", "line": 1, "character": 1}, nil) // never answered
	syscall.Kill(a.proc.PID(), syscall.SIGKILL)
	gone(t, pid, 10*time.Second)
	noProcessesIn(t, root)
}

// TestSharedDaemonKilled: when the shared daemon dies, the request in
// flight fails saying so, its servers die with it, and the next request of
// each client is answered by one new daemon.
func TestSharedDaemonKilled(t *testing.T) {
	t.Parallel()
	root, runtime := sharedFixture(t, "shared-hang", 60000)
	a, pid := attach(t, root, runtime)
	b, _ := attach(t, root, runtime)
	var res api.CheckResult
	a.must("lsp/check", map[string]any{"filePath": "a.fk"}, &res)
	server := a.status()["fake"].ServerPID
	errc := make(chan error, 1)
	go func() { errc <- a.call("lsp/hover", map[string]any{"file": "a.fk", "line": 1, "character": 1}, nil) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(readLog(runtime), "method=lsp/hover") {
		if time.Now().After(deadline) {
			t.Fatalf("the hover never reached the daemon: %s", readLog(runtime))
		}
		time.Sleep(5 * time.Millisecond) // polling the daemon's log for the request's arrival
	}
	syscall.Kill(pid, syscall.SIGKILL)
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "ended before answering") {
			t.Fatalf("the request in flight: %v", err)
		}
	case <-time.After(servertest.Scale(10 * time.Second)):
		t.Fatal("the request in flight when the daemon died hangs")
	}
	gone(t, server, 10*time.Second)
	var wg sync.WaitGroup
	for _, d := range []*daemon{a, b} {
		wg.Go(func() {
			var res api.CheckResult
			d.must("lsp/check", map[string]any{"filePath": "a.fk"}, &res)
			if !res.Checked || len(res.Diagnostics) != 1 {
				t.Errorf("check after the daemon died: %+v", res)
			}
		})
	}
	wg.Wait()
	// Both clients may have started a daemon: the one that lost the lock
	// exits at once.
	d := oneDaemon(t, root)
	t.Cleanup(func() { syscall.Kill(d, syscall.SIGKILL) })
	if d == pid {
		t.Fatalf("the dead daemon %d serves", pid)
	}
}

// oneDaemon waits, up to a deadline, until one shared daemon serves root
// (others started at once exit as they lose the lock), and returns it.
func oneDaemon(t *testing.T, root string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := sharedDaemons(root)
		if len(d) == 1 {
			return d[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("shared daemons: %v", d)
		}
		time.Sleep(5 * time.Millisecond) // polling the process table: no event exists for another process's exit
	}
}

// readLog returns the shared daemons' logs in runtime.
func readLog(runtime string) string {
	logs, _ := filepath.Glob(filepath.Join(runtime, "*.log"))
	var b strings.Builder
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		b.Write(data)
	}
	return b.String()
}

// TestSharedMCP: two `lspkit mcp --shared` sessions share one daemon and
// server; after the daemon dies, a session's call in flight fails, and the
// next is answered by a new daemon (the session begun again for it).
func TestSharedMCP(t *testing.T) {
	t.Parallel()
	root, runtime := sharedFixture(t, "shared-plain", 60000)
	open := func() *mcp.ClientSession {
		cmd := exec.Command(lspkitBin, "mcp", "--shared", "--root", root)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "LSPKIT_RUNTIME_DIR="+runtime)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := open(), open()
	t.Cleanup(func() {
		for _, pid := range sharedDaemons(root) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		noProcessesIn(t, root)
	})
	var ca, cb api.CheckResult
	call(t, a, "lsp_check_file", map[string]any{"file": "a.fk"}, &ca)
	call(t, b, "lsp_check_file", map[string]any{"file": "a.fk"}, &cb)
	if len(ca.Diagnostics) != 1 || fmt.Sprint(ca.Diagnostics) != fmt.Sprint(cb.Diagnostics) {
		t.Fatalf("checks: %+v, %+v", ca, cb)
	}
	daemons := []int{oneDaemon(t, root)}
	syscall.Kill(daemons[0], syscall.SIGKILL)
	gone(t, daemons[0], 10*time.Second)
	// The relay may see the daemon gone before or after the next call:
	// the call either fails saying so, or is answered by a new daemon.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "lsp_check_file", Arguments: map[string]any{"file": "a.fk"}})
	if err != nil && !strings.Contains(err.Error(), "ended before answering") {
		t.Fatalf("the first call after the daemon died: %v", err)
	}
	if err != nil || res.IsError {
		call(t, a, "lsp_check_file", map[string]any{"file": "a.fk"}, &ca)
	}
	call(t, b, "lsp_check_file", map[string]any{"file": "a.fk"}, &cb)
	if len(cb.Diagnostics) != 1 {
		t.Fatalf("b's check from the new daemon: %+v", cb)
	}
	if d := oneDaemon(t, root); d == daemons[0] {
		t.Fatalf("the dead daemon %d serves", d)
	}
}

// TestSharedHostileHello: a connection that says no proper hello is
// answered with an error line and closed; the daemon goes on serving.
func TestSharedHostileHello(t *testing.T) {
	t.Parallel()
	root, runtime := sharedFixture(t, "shared-plain", 60000)
	a, _ := attach(t, root, runtime)
	socks, _ := filepath.Glob(filepath.Join(runtime, "*.sock"))
	if len(socks) != 1 {
		t.Fatalf("sockets: %v", socks)
	}
	info, err := os.Stat(socks[0])
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v, %v", info.Mode(), err)
	}
	if dir, _ := os.Stat(filepath.Dir(socks[0])); dir.Mode().Perm() != 0o700 {
		t.Fatalf("runtime directory mode: %v", dir.Mode())
	}
	for _, hello := range []string{"\xff\xfe garbage\n", `{"lspkit":"attach","surface":"rpc","version":"v0.0.0-other"}` + "\n", `{"lspkit":"attach","surface":"smtp","version":"devel"}` + "\n", strings.Repeat("x", 8192) + "\n"} {
		c, err := net.Dial("unix", socks[0])
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		c.Write([]byte(hello))
		reply := make([]byte, 512)
		n, _ := c.Read(reply)
		c.Close()
		if !strings.Contains(string(reply[:n]), `"error"`) {
			t.Errorf("hello %.40q: answered %q", hello, reply[:n])
		}
	}
	var res api.CheckResult
	a.must("lsp/check", map[string]any{"filePath": "a.fk"}, &res)
	if !res.Checked {
		t.Fatalf("check after hostile hellos: %+v", res)
	}
}

// TestSharedLive: on a Go + TypeScript repository, two agents through one
// shared daemon get the same answers — checks, definitions, hovers — as an
// agent with a daemon of its own, from one gopls and one
// typescript-language-server.
func TestSharedLive(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	servertest.Binary(t, "typescript-language-server")
	root := goTSRepo(t)
	runtime, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtime) })
	answers := func(d *daemon) string {
		var b strings.Builder
		for _, f := range []string{"use.go", "web/src/use.ts"} {
			var res api.CheckResult
			d.must("lsp/check", map[string]any{"filePath": f}, &res)
			fmt.Fprintf(&b, "check %s: %v %v\n", f, res.Checked, res.Diagnostics)
		}
		for _, p := range []map[string]any{{"file": "use.go", "line": 3, "symbol": "Greeting"}, {"file": "web/src/use.ts", "line": 3, "symbol": "greeting"}} {
			var locs api.LocationsResult
			d.must("lsp/definition", p, &locs)
			var hover api.HoverResult
			d.must("lsp/hover", p, &hover)
			fmt.Fprintf(&b, "definition %v: %v\nhover: %v\n", p["file"], locs.Locations, *hover.Content)
		}
		return b.String()
	}
	plain := startServe(t, root, t.TempDir(), nil)
	own := answers(plain)
	plain.proc.Stop(5 * time.Second) // its servers' processes are the root's too
	a, pid := attach(t, root, runtime)
	b, _ := attach(t, root, runtime)
	var wg sync.WaitGroup
	got := make([]string, 2)
	for i, d := range []*daemon{a, b} {
		wg.Go(func() { got[i] = answers(d) })
	}
	wg.Wait()
	for i, g := range got {
		if g != own {
			t.Errorf("shared client %d answered\n%s\nwithout --shared:\n%s", i, g, own)
		}
	}
	servers := map[string]int{}
	for _, s := range b.status() {
		if s.ServerPID > 0 {
			servers[s.ID]++
		}
	}
	if servers["gopls"] != 1 || servers["typescript"] != 1 {
		// status lists one entry per (server, root): one process each
		t.Errorf("servers of the shared daemon (pid %d): %v", pid, servers)
	}
	if !strings.Contains(own, "check use.go: true [") || !strings.Contains(own, "use.ts:") {
		t.Errorf("the answers themselves: %s", own)
	}
}

// TestSharedDiagnosticsAfterOwnWait: one client's lsp/diagnosticsAfter
// waits at most its own waitMs, however long another client's check of a
// slow server runs meanwhile.
func TestSharedDiagnosticsAfterOwnWait(t *testing.T) {
	t.Parallel()
	root, runtime := sharedFixture(t, "shared-slow", 60000)
	a, _ := attach(t, root, runtime)
	b, _ := attach(t, root, runtime)
	var epoch uint64
	b.must("lsp/getDiagnosticEpoch", nil, &epoch)
	checked := make(chan error, 1)
	go func() {
		var res api.CheckResult
		checked <- a.call("lsp/check", map[string]any{"filePath": "a.fk", "timeoutMs": 20000}, &res)
	}()
	// a's check is under way once the epoch moves.
	deadline := time.Now().Add(10 * time.Second)
	for now := epoch; now == epoch; b.must("lsp/getDiagnosticEpoch", nil, &now) {
		if time.Now().After(deadline) {
			t.Fatal("a's check never began")
		}
		time.Sleep(5 * time.Millisecond) // polling the epoch: the event is another client's
	}
	start := time.Now()
	var diags api.FileDiagnostics
	b.must("lsp/diagnosticsAfter", map[string]any{"afterEpoch": epoch, "waitMs": 200}, &diags)
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("b's diagnosticsAfter with waitMs 200 took %s while a's check ran", took)
	}
	select {
	case err := <-checked:
		if err != nil {
			t.Fatalf("a's check: %v", err)
		}
	case <-time.After(servertest.Scale(30 * time.Second)):
		t.Fatal("a's check never ended")
	}
}

// TestStatusKeepsNoDaemonAlive: lspkit status asking a shared daemon again
// and again does not keep it alive: it exits when its idle period ends, as
// it would unasked.
func TestStatusKeepsNoDaemonAlive(t *testing.T) {
	t.Parallel()
	root, runtime := sharedFixture(t, "shared-plain", 1000)
	d, pid := attach(t, root, runtime)
	d.proc.Stdio().Close() // the one client leaves: 1 s to live
	<-d.proc.Done()
	deadline := time.Now().Add(15 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the shared daemon %d still runs 15 s after its last client left, asked by lspkit status all along (idleExitMs 1000)", pid)
		}
		statusIn(t, root, runtime)
	}
	noProcessesIn(t, root)
}
