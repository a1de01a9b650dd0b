// The end-to-end tests drive the built binary and read /proc: Linux only
// (the other systems are covered by cross-compiled builds and vets).

//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// lspkitBin is the daemon under test, built once by TestMain.
var lspkitBin string

func TestMain(m *testing.M) {
	if os.Getenv("LSPKIT_FAKE") == "raw-client" {
		rawClient()
		return
	}
	lsptest.Main(fakeServers)
	lsptest.Main(probeServers)
	dir, err := os.MkdirTemp("", "lspkit-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lspkitBin = filepath.Join(dir, "lspkit")
	args := []string{"build", "-o", lspkitBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if prebuilt := os.Getenv("LSPKIT_TEST_BINARY"); prebuilt != "" {
		// scripts/test.sh's lspkit, built with -race from this tree.
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

// daemon is a running `lspkit serve` driven over its stdio.
type daemon struct {
	t      testing.TB
	proc   *client.Process
	stderr *lockedBuffer // the daemon's stderr when proc is not set
	conn   *transport.Conn
	ready  chan map[string]any
	// readyParams is what lsp/ready said.
	readyParams map[string]any
}

// lockedBuffer collects a process's output for failure messages.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startDaemon runs `lspkit serve --root root` with env added.
func startDaemon(t testing.TB, root string, env ...string) *daemon {
	t.Helper()
	return startServe(t, root, root, nil, env...)
}

// startServe runs `lspkit serve --root root` with args and env added, in
// dir.
func startServe(t testing.TB, root, dir string, args []string, env ...string) *daemon {
	t.Helper()
	proc, err := client.StartProcess(client.Command{Path: lspkitBin, Args: append([]string{"serve", "--root", root}, args...), Env: append(env, "LSPKIT_LOG=debug"), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{t: t, proc: proc, ready: make(chan map[string]any, 1)}
	d.conn = transport.NewConn(proc.Stdio(), transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == "lsp/ready" {
			var v map[string]any
			json.Unmarshal(req.Params, &v)
			d.ready <- v
		}
		return nil, nil
	})})
	t.Cleanup(func() {
		d.conn.Close()
		proc.Stop(5 * time.Second)
		if es := proc.Exit(); es.Signal != 0 && es.Signal != syscall.SIGKILL || t.Failed() {
			t.Logf("daemon exit: %s\n%s", es, strings.Join(proc.StderrTail(), "\n"))
		}
	})
	// The daemon's first message ends the wait, or its exit; the limit
	// only catches a hang, and scales.
	select {
	case d.readyParams = <-d.ready:
	case <-proc.Done():
		t.Fatalf("lspkit serve exited before lsp/ready (%s): %s", proc.Exit(), strings.Join(proc.StderrTail(), "\n"))
	case <-time.After(servertest.Scale(time.Minute)):
		t.Fatalf("no lsp/ready: %s", strings.Join(proc.StderrTail(), "\n"))
	}
	return d
}

// call makes a request with a deadline.
func (d *daemon) call(method string, params, result any) error {
	d.t.Helper()
	// Every request of the contract ends in its own time (a check in its
	// timeout, saying so); a call unanswered this long is a hang.
	ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(3*time.Minute))
	defer cancel()
	return d.conn.Call(ctx, method, params, result)
}

// must makes a request that must succeed.
func (d *daemon) must(method string, params, result any) {
	d.t.Helper()
	if err := d.call(method, params, result); err != nil {
		stderr := ""
		switch {
		case d.proc != nil:
			stderr = strings.Join(d.proc.StderrTail(), "\n")
		case d.stderr != nil:
			stderr = d.stderr.String()
		}
		d.t.Fatalf("%s: %v\n%s", method, err, stderr)
	}
}

// status returns lsp/status by server id (the last entry wins).
func (d *daemon) status() map[string]api.ServerStatus {
	d.t.Helper()
	var sts []api.ServerStatus
	d.must("lsp/status", nil, &sts)
	out := map[string]api.ServerStatus{}
	for _, s := range sts {
		out[s.ID] = s
	}
	return out
}

// running returns the ids of servers with a process.
func (d *daemon) running() []string {
	var ids []string
	for id, s := range d.status() {
		if s.ServerPID > 0 || s.Root != "" {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// serversEnv points the daemon at the installed servers (no auto-install
// in tests: a missing server must fail, not download).
func serversEnv(t testing.TB) []string {
	servertest.Binary(t, "gopls") // fails early under LSPKIT_REQUIRE_SERVERS
	return nil
}

const goMod = "module example.com/demo\n\ngo 1.22\n"

func noInstall(extra string) string {
	if !strings.Contains(extra, `"firstTouchTimeout"`) {
		// A live test asserts what a server answers, not how fast it
		// starts: on a loaded machine a first touch took over 10 s.
		extra = `,"firstTouchTimeout":45000` + extra
	}
	return `{"lsp":{"autoInstall":false` + extra + `}}`
}

func TestReadyAndShutdown(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": "package demo\n\nvar X int = \"s\"\n", "lspkit.json": noInstall("")})
	d := startDaemon(t, root, serversEnv(t)...)
	if got := d.running(); len(got) != 0 {
		t.Fatalf("servers started before any file asked: %v", got)
	}
	var diags []api.Diagnostic
	d.must("lsp/checkFile", map[string]any{"filePath": "a.go"}, &diags)
	if len(diags) != 1 || diags[0].File != "a.go" || diags[0].Line != 3 || diags[0].Character != 13 || diags[0].Server != "gopls" || diags[0].Severity != "error" {
		t.Fatalf("diagnostics: %+v", diags)
	}
	pid := d.status()["gopls"].ServerPID
	if pid <= 0 {
		t.Fatalf("no gopls pid in status: %+v", d.status()["gopls"])
	}
	var res jsontext.Value
	d.must("lsp/shutdown", nil, &res)
	if string(res) != "null" {
		t.Fatalf("lsp/shutdown returned %s", res)
	}
	select {
	case <-d.proc.Done():
	case <-time.After(servertest.Scale(10 * time.Second)):
		t.Fatal("the daemon did not exit after lsp/shutdown")
	}
	if es := d.proc.Exit(); es.Code != 0 {
		t.Fatalf("daemon exit: %s", es)
	}
	servertest.Gone(t, pid)
}

// TestDaemonExits: stdin EOF and SIGTERM stop the servers and exit 0;
// SIGKILL of the daemon takes its servers with it (Pdeathsig).
func TestDaemonExits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		end   func(d *daemon) error
		clean bool // exit status 0 expected
	}{
		{"stdin EOF", func(d *daemon) error { return d.conn.Close() }, true},
		{"SIGTERM", func(d *daemon) error { return syscall.Kill(d.proc.PID(), syscall.SIGTERM) }, true},
		{"SIGKILL", func(d *daemon) error { return syscall.Kill(d.proc.PID(), syscall.SIGKILL) }, false},
		{"SIGKILL without the guard", func(d *daemon) error { return syscall.Kill(d.proc.PID(), syscall.SIGKILL) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": "package demo\n", "lspkit.json": noInstall("")})
			env := append(serversEnv(t), "LSPKIT_ORPHAN_GUARD=pipe")
			if strings.HasSuffix(tc.name, "without the guard") {
				env = append(serversEnv(t), "LSPKIT_ORPHAN_GUARD=off") // Pdeathsig alone
			}
			d := startDaemon(t, root, env...)
			var diags []api.Diagnostic
			d.must("lsp/checkFile", map[string]any{"filePath": "a.go"}, &diags)
			pid := d.status()["gopls"].ServerPID
			if pid <= 0 {
				t.Fatal("gopls not running")
			}
			if err := tc.end(d); err != nil {
				t.Fatal(err)
			}
			select {
			case <-d.proc.Done():
			case <-time.After(servertest.Scale(10 * time.Second)):
				t.Fatalf("the daemon did not exit after %s", tc.name)
			}
			if es := d.proc.Exit(); tc.clean && (es.Code != 0 || es.Signal != 0) {
				t.Fatalf("daemon exit: %s", es)
			}
			servertest.Gone(t, pid)
		})
	}
}

// TestBootstrap: the root and configuration from LSPKIT_BOOTSTRAP (or the
// seed contract's LSP_BOOTSTRAP), as agents spawn the daemon (no --root,
// another working directory).
func TestBootstrap(t *testing.T) {
	t.Parallel()
	for _, variable := range []string{"LSPKIT_BOOTSTRAP", "LSP_BOOTSTRAP"} {
		t.Run(variable, func(t *testing.T) { testBootstrap(t, variable) })
	}
}

func testBootstrap(t *testing.T, variable string) {
	serversEnv(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": "package demo\n\nvar X int = \"s\"\n"})
	boot := fmt.Sprintf(`{"workspaceRoot": %q, "config": {"lsp": {"autoInstall": false, "servers": {"mine": {"command": "no-such-ls", "extensions": [".mine"]}}}}}`, root)
	proc, err := client.StartProcess(client.Command{Path: lspkitBin, Args: []string{"serve"}, Env: []string{variable + "=" + boot}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{t: t, proc: proc, ready: make(chan map[string]any, 1)}
	d.conn = transport.NewConn(proc.Stdio(), transport.Options{})
	t.Cleanup(func() { d.conn.Close(); proc.Stop(5 * time.Second) })
	if st := d.status()["mine"]; st.Status != "unavailable" || !strings.Contains(st.Reason, "no-such-ls") {
		t.Fatalf("bootstrap config not applied: %+v", st)
	}
	var diags []api.Diagnostic
	d.must("lsp/checkFile", map[string]any{"filePath": "a.go"}, &diags) // relative to the bootstrap root
	if len(diags) != 1 || diags[0].File != "a.go" {
		t.Fatalf("diagnostics: %+v", diags)
	}
}

// TestHostBootstrap: a bootstrap as LLxprt Code sends it — servers as an
// array under its own ids, its timeout key names — with keys lspkit does
// not know: the daemon starts with what it understood and says what it
// ignored, on stderr and in lsp/status; every status entry carries
// serverId and state, every diagnostic column. Only a bootstrap that
// leaves nothing usable stops it, naming the variable that was set.
func TestHostBootstrap(t *testing.T) {
	t.Parallel()
	serversEnv(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": "package demo\n\nvar X int = \"s\"\n"})
	boot := fmt.Sprintf(`{"workspaceRoot": %q, "config": {"servers": [{"id": "ts", "command": "typescript-language-server", "args": ["--stdio"]}, {"id": "odd", "command": "odd-ls"}],
		"diagnosticsTimeoutMs": 9000, "firstTouchTimeoutMs": 60000, "colour": "blue", "autoInstall": false}}`, root)
	proc, err := client.StartProcess(client.Command{Path: lspkitBin, Args: []string{"serve"}, Env: []string{"LSP_BOOTSTRAP=" + boot}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{t: t, proc: proc, ready: make(chan map[string]any, 1)}
	d.conn = transport.NewConn(proc.Stdio(), transport.Options{})
	t.Cleanup(func() { d.conn.Close(); proc.Stop(5 * time.Second) })
	var sts []map[string]any
	d.must("lsp/status", nil, &sts)
	var notes []string
	for _, st := range sts {
		if st["serverId"] != st["id"] || st["state"] == nil {
			t.Errorf("status entry without its host names: %v", st)
		}
		if st["id"] == "lspkit" {
			for _, n := range st["notes"].([]any) {
				notes = append(notes, n.(string))
			}
		}
	}
	for _, want := range []string{
		"LSP_BOOTSTRAP config.colour: unknown key",
		"servers.odd: ignored: it names no file types (extensions), and neither its id nor its command odd-ls is a built-in server's",
		"servers.ts: configures the built-in typescript (the same command, typescript-language-server)",
	} {
		if !slices.Contains(notes, want) {
			t.Errorf("lsp/status notes %q lack %q", notes, want)
		}
	}
	var diags []map[string]any
	d.must("lsp/checkFile", map[string]any{"filePath": filepath.Join(root, "a.go")}, &diags)
	if len(diags) != 1 || diags[0]["column"] != float64(13) || diags[0]["character"] != float64(13) || diags[0]["line"] != float64(3) {
		t.Fatalf("diagnostics: %v", diags)
	}
	if tail := strings.Join(proc.StderrTail(), "\n"); !strings.Contains(tail, "configuration: LSP_BOOTSTRAP config.colour: unknown key") {
		t.Errorf("stderr does not say what was ignored:\n%s", tail)
	}
	for boot, want := range map[string]string{
		`{"workspaceRoot": "x", "config": `:               "lspkit serve: LSP_BOOTSTRAP: not valid JSON",
		`{"workspaceRoot": "/no/such/dir", "config": {}}`: "lspkit serve: LSP_BOOTSTRAP workspaceRoot /no/such/dir: not a directory",
	} {
		cmd := exec.Command(lspkitBin, "serve")
		cmd.Env = append(os.Environ(), "LSP_BOOTSTRAP="+boot)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Stdin = strings.NewReader("")
		if err := cmd.Run(); cmd.ProcessState.ExitCode() != exitUsage || !strings.HasPrefix(stderr.String(), want) {
			t.Errorf("%s: exit %d (%v), stderr %q, want %q", boot, cmd.ProcessState.ExitCode(), err, stderr.String(), want)
		}
	}
}

// TestConcurrentChecksOverRPCLive: agents racing on one Go file — 24
// lsp/check calls at once through the daemon (the path of lsp/checkFile,
// with the verdict beside the findings), each with its own text — are each
// answered, with the finding of its own text. Checks of given text
// take turns on the file's server, so the later ones wait for the earlier:
// each is given the time of all of them. CI runs it 20 times under slowbox.
func TestConcurrentChecksOverRPCLive(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	root := t.TempDir()
	text := func(i int) string {
		return fmt.Sprintf("package demo\n\n// %d\nvar %sX int = \"%s\"\n", i, strings.Repeat(" ", i), strings.Repeat("é", i))
	}
	writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": text(0), "lspkit.json": noInstall("")})
	d := startDaemon(t, root)
	var warm api.CheckResult
	d.must(api.MethodCheck, map[string]any{"filePath": "a.go", "timeoutMs": servertest.Scale(90 * time.Second).Milliseconds()}, &warm)
	const n = 24
	results := make([]api.CheckResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = d.call(api.MethodCheck, map[string]any{"filePath": "a.go", "text": text(i), "timeoutMs": servertest.Scale(2 * time.Minute).Milliseconds()}, &results[i])
		})
	}
	wg.Wait()
	for i, res := range results {
		want := fmt.Sprintf("cannot use \"%s\"", strings.Repeat("é", i))
		switch {
		case errs[i] != nil:
			t.Errorf("check %d: no answer: %v", i, errs[i])
		case !res.Checked || len(res.Diagnostics) != 1 || res.Diagnostics[0].Line != 4 || !strings.Contains(res.Diagnostics[0].Message, want):
			t.Errorf("check %d: want its own text's error (%s), got %+v", i, want, res)
		}
	}
}
