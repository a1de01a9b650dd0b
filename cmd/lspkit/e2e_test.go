package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service"
	"github.com/lspkit/lspkit/transport"
)

// lspkitBin is the daemon under test, built once by TestMain.
var lspkitBin string

func TestMain(m *testing.M) {
	switch mode := os.Getenv("LSPKIT_FAKE"); mode {
	case "":
	case "raw-client":
		rawClient()
		return
	default:
		fakeServer(mode)
		return
	}
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
	t     testing.TB
	proc  *client.Process
	conn  *transport.Conn
	ready chan map[string]any
}

// startDaemon runs `lspkit serve --root root` with env added.
func startDaemon(t *testing.T, root string, env ...string) *daemon {
	t.Helper()
	proc, err := client.StartProcess(client.Command{Path: lspkitBin, Args: []string{"serve", "--root", root}, Env: append(env, "LSPKIT_LOG=debug"), Dir: root})
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
	select {
	case <-d.ready:
	case <-time.After(10 * time.Second):
		t.Fatalf("no lsp/ready: %s", strings.Join(proc.StderrTail(), "\n"))
	}
	return d
}

// call makes a request with a deadline.
func (d *daemon) call(method string, params, result any) error {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return d.conn.Call(ctx, method, params, result)
}

// must makes a request that must succeed.
func (d *daemon) must(method string, params, result any) {
	d.t.Helper()
	if err := d.call(method, params, result); err != nil {
		d.t.Fatalf("%s: %v\n%s", method, err, strings.Join(d.proc.StderrTail(), "\n"))
	}
}

// status returns lsp/status by server id (the last entry wins).
func (d *daemon) status() map[string]service.ServerStatus {
	d.t.Helper()
	var sts []service.ServerStatus
	d.must("lsp/status", nil, &sts)
	out := map[string]service.ServerStatus{}
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
	return `{"lsp":{"autoInstall":false` + extra + `}}`
}

func TestReadyAndShutdown(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": "package demo\n\nvar X int = \"s\"\n", "lspkit.json": noInstall("")})
	d := startDaemon(t, root, serversEnv(t)...)
	if got := d.running(); len(got) != 0 {
		t.Fatalf("servers started before any file asked: %v", got)
	}
	var diags []service.Diagnostic
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
	case <-time.After(10 * time.Second):
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
	for _, tc := range []struct {
		name  string
		end   func(d *daemon) error
		clean bool // exit status 0 expected
	}{
		{"stdin EOF", func(d *daemon) error { return d.conn.Close() }, true},
		{"SIGTERM", func(d *daemon) error { return syscall.Kill(d.proc.PID(), syscall.SIGTERM) }, true},
		{"SIGKILL", func(d *daemon) error { return syscall.Kill(d.proc.PID(), syscall.SIGKILL) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": "package demo\n", "lspkit.json": noInstall("")})
			d := startDaemon(t, root, serversEnv(t)...)
			var diags []service.Diagnostic
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
			case <-time.After(10 * time.Second):
				t.Fatalf("the daemon did not exit after %s", tc.name)
			}
			if es := d.proc.Exit(); tc.clean && (es.Code != 0 || es.Signal != 0) {
				t.Fatalf("daemon exit: %s", es)
			}
			servertest.Gone(t, pid)
		})
	}
}

func TestErrors(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"lspkit.json": noInstall("")})
	d := startDaemon(t, root)
	cases := []struct {
		method string
		params any
		code   int64
		field  string
	}{
		{"lsp/nope", nil, transport.CodeMethodNotFound, ""},
		{"lsp/checkFile", map[string]any{}, transport.CodeInvalidParams, "params.filePath"},
		{"lsp/checkFile", map[string]any{"filePath": 7}, transport.CodeInvalidParams, "params.filePath"},
		{"lsp/checkFile", map[string]any{"filePath": "a.go", "timeoutMs": "x"}, transport.CodeInvalidParams, "params.timeoutMs"},
		{"lsp/definition", map[string]any{"file": "a.go", "line": 0, "character": 1}, transport.CodeInvalidParams, "params.line"},
		{"lsp/report", map[string]any{"filePath": "a.go", "mode": "both"}, transport.CodeInvalidParams, "params.mode"},
		{"lsp/diagnosticsAfter", map[string]any{}, transport.CodeInvalidParams, "params.afterEpoch"},
		{"lsp/checkFile", []int{1}, transport.CodeInvalidParams, "params must be an object"},
		{"lsp/definition", map[string]any{"file": "../outside.go", "line": 1, "character": 1}, service.CodeOutsideRoot, "../outside.go"},
	}
	for _, tc := range cases {
		err := d.call(tc.method, tc.params, nil)
		var rpcErr *transport.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != tc.code || !strings.Contains(rpcErr.Message, tc.field) {
			t.Errorf("%s %v: got %v, want code %d naming %q", tc.method, tc.params, err, tc.code, tc.field)
		}
	}
	// The daemon still answers.
	var epoch uint64
	d.must("lsp/getDiagnosticEpoch", nil, &epoch)
}

// TestBoundary: paths that escape the root give [] and start nothing.
func TestBoundary(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "ws")
	sibling := filepath.Join(parent, "ws2")
	writeFiles(t, root, map[string]string{"go.mod": goMod, "lspkit.json": noInstall("")})
	writeFiles(t, sibling, map[string]string{"go.mod": goMod, "b.go": "package demo\n\nvar X int = \"s\"\n"})
	writeFiles(t, parent, map[string]string{"out.go": "package demo\n\nvar X int = \"s\"\n"})
	if err := os.Symlink(filepath.Join(sibling, "b.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"bin.go": "package demo\x00\x01"})
	d := startDaemon(t, root, serversEnv(t)...)
	for _, p := range []string{"../out.go", filepath.Join(parent, "out.go"), "link.go", filepath.Join(sibling, "b.go"), "../ws2/b.go", "bin.go", "notes.unknownext"} {
		var diags []service.Diagnostic
		d.must("lsp/checkFile", map[string]any{"filePath": p}, &diags)
		if diags == nil || len(diags) != 0 {
			t.Errorf("%s: %+v", p, diags)
		}
	}
	if got := d.running(); len(got) != 0 {
		t.Fatalf("servers started for escaping paths: %v", got)
	}
}

func TestDisabled(t *testing.T) {
	for _, tc := range []struct{ name, config, reason string }{
		{"lsp false", `{"lsp": false}`, "LSP disabled by configuration"},
		{"gopls disabled", noInstall(`,"servers":{"gopls":{"enabled":false}}`), "disabled by configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": "package demo\n\nvar X int = \"s\"\n", "lspkit.json": tc.config})
			d := startDaemon(t, root)
			var diags []service.Diagnostic
			d.must("lsp/checkFile", map[string]any{"filePath": "a.go"}, &diags)
			if len(diags) != 0 {
				t.Fatalf("diagnostics: %+v", diags)
			}
			st := d.status()["gopls"]
			if st.Status != "disabled" || st.Reason != tc.reason {
				t.Fatalf("status: %+v", st)
			}
			if got := d.running(); len(got) != 0 {
				t.Fatalf("servers started: %v", got)
			}
		})
	}
}

// TestCustomServer: a server from the configuration, on a command from the
// configuration (gopls under another id, the built-in off).
func TestCustomServer(t *testing.T) {
	gopls := servertest.Binary(t, "gopls")
	root := t.TempDir()
	cfg := fmt.Sprintf(`{"lsp":{"autoInstall":false,"servers":{"gopls":{"enabled":false},"mygo":{"command":%q,"extensions":[".go"],"rootMarkers":["go.mod"],"env":{"GOFLAGS":"-mod=mod"}}}}}`, gopls)
	writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": "package demo\n\nvar X int = \"s\"\n", "lspkit.json": cfg})
	d := startDaemon(t, root)
	var res service.CheckResult
	d.must("lsp/check", map[string]any{"filePath": "a.go"}, &res)
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Server != "mygo" {
		t.Fatalf("diagnostics: %+v", res.Diagnostics)
	}
	if len(res.Servers) != 1 || res.Servers[0].ID != "mygo" || res.Servers[0].Verdict != service.VerdictSettled {
		t.Fatalf("servers: %+v", res.Servers)
	}
	if st := d.status()["mygo"]; st.Status != "active" || st.ServerPID <= 0 || st.Root != root {
		t.Fatalf("status: %+v", st)
	}
}

// TestGoCrossFile: a write to a.go that changes a signature breaks b.go;
// lsp/report in write mode and lsp/diagnosticsAfter include b.go.
func TestGoCrossFile(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":      goMod,
		"a.go":        "package demo\n\n// F is used by b.go.\nfunc F() int { return 1 }\n",
		"b.go":        "package demo\n\nfunc G() int { return F() + 1 }\n",
		"lspkit.json": noInstall(""),
	})
	d := startDaemon(t, root, serversEnv(t)...)
	var diags []service.Diagnostic
	d.must("lsp/checkFile", map[string]any{"filePath": "b.go"}, &diags)
	if len(diags) != 0 {
		t.Fatalf("b.go before the change: %+v", diags)
	}
	var epoch uint64
	d.must("lsp/getDiagnosticEpoch", nil, &epoch)
	changed := "package demo\n\n// F is used by b.go.\nfunc F() string { return \"1\" }\n"
	writeFiles(t, root, map[string]string{"a.go": changed})
	var report service.ReportResult
	d.must("lsp/report", map[string]any{"filePath": "a.go", "mode": "write"}, &report)
	want := "LSP errors detected in other files:\n<diagnostics file=\"b.go\">\nERROR [3:23] "
	if !strings.HasPrefix(report.Text, want) || !strings.Contains(report.Text, "</diagnostics>") {
		t.Fatalf("report text:\n%s", report.Text)
	}
	if len(report.Diagnostics["b.go"]) != 1 || len(report.Diagnostics["a.go"]) != 0 {
		t.Fatalf("report diagnostics: %+v", report.Diagnostics)
	}
	var after map[string][]service.Diagnostic
	d.must("lsp/diagnosticsAfter", map[string]any{"afterEpoch": epoch, "waitMs": 5000}, &after)
	if len(after["b.go"]) != 1 || after["b.go"][0].Line != 3 {
		t.Fatalf("diagnosticsAfter: %+v", after)
	}
	var now uint64
	d.must("lsp/getDiagnosticEpoch", nil, &now)
	if now <= epoch {
		t.Fatalf("epoch %d did not advance past %d", now, epoch)
	}
	// Edit mode reports the file only: a.go is fine.
	d.must("lsp/report", map[string]any{"filePath": "a.go", "mode": "edit"}, &report)
	if report.Text != "" {
		t.Fatalf("edit-mode report for a clean file: %q", report.Text)
	}
	// Unsaved text is authoritative: the edit fixes b.go in the server's view.
	d.must("lsp/checkFile", map[string]any{"filePath": "b.go", "text": "package demo\n\nfunc G() string { return F() + \"1\" }\n"}, &diags)
	if len(diags) != 0 {
		t.Fatalf("b.go with the fix as text: %+v", diags)
	}
	var all map[string][]service.Diagnostic
	d.must("lsp/diagnostics", nil, &all)
	if len(all) != 0 {
		t.Fatalf("diagnostics after the fix: %+v", all)
	}
}

// TestNavigation: definition, references, hover and symbols through the
// daemon, 1-based and in code points (é🙂 precede the call on its line).
func TestNavigation(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod": goMod,
		"lib.go": "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n\n" +
			"// Greeter greets.\ntype Greeter interface{ Greet() string }\n\n// English says hello.\ntype English struct{}\n\n" +
			"// Greet greets in English.\nfunc (English) Greet() string { return \"hello\" }\n",
		"use.go":      "package demo\n\nfunc Use() string { _ = \"é🙂\"; return Greeting(\"x\") }\n\nvar g Greeter = English{}\n",
		"lspkit.json": noInstall(""),
	})
	d := startDaemon(t, root, serversEnv(t)...)
	var res struct {
		Locations []service.Location `json:"locations"`
	}
	// Greeting's call starts at code-point column 38 of line 3.
	d.must("lsp/definition", map[string]any{"file": "use.go", "line": 3, "character": 38}, &res)
	if len(res.Locations) != 1 || res.Locations[0] != (service.Location{File: "lib.go", Line: 4, Character: 6, EndLine: 4, EndCharacter: 14}) {
		t.Fatalf("definition: %+v", res.Locations)
	}
	d.must("lsp/references", map[string]any{"file": "lib.go", "line": 4, "character": 6}, &res)
	if len(res.Locations) != 2 || !slices.Contains(res.Locations, service.Location{File: "use.go", Line: 3, Character: 38, EndLine: 3, EndCharacter: 46}) {
		t.Fatalf("references: %+v", res.Locations)
	}
	d.must("lsp/typeDefinition", map[string]any{"file": "use.go", "line": 5, "character": 5}, &res)
	if len(res.Locations) != 1 || res.Locations[0] != (service.Location{File: "lib.go", Line: 7, Character: 6, EndLine: 7, EndCharacter: 13}) {
		t.Fatalf("type definition: %+v", res.Locations)
	}
	d.must("lsp/implementation", map[string]any{"file": "lib.go", "line": 7, "character": 6}, &res)
	if len(res.Locations) != 1 || res.Locations[0] != (service.Location{File: "lib.go", Line: 10, Character: 6, EndLine: 10, EndCharacter: 13}) {
		t.Fatalf("implementation: %+v", res.Locations)
	}
	var hover struct {
		Content *string `json:"content"`
	}
	d.must("lsp/hover", map[string]any{"file": "use.go", "line": 3, "character": 38}, &hover)
	if hover.Content == nil || !strings.Contains(*hover.Content, "Greeting says hello.") {
		t.Fatalf("hover: %v", hover.Content)
	}
	d.must("lsp/hover", map[string]any{"file": "use.go", "line": 2, "character": 1}, &hover)
	if hover.Content != nil {
		t.Fatalf("hover on a blank line: %q", *hover.Content)
	}
	var syms struct {
		Symbols []service.Symbol `json:"symbols"`
	}
	d.must("lsp/documentSymbols", map[string]any{"file": "lib.go"}, &syms)
	if !slices.ContainsFunc(syms.Symbols, func(s service.Symbol) bool {
		return s.Name == "Greeting" && s.Kind == "function" && s.Range.StartLine == 4
	}) ||
		!slices.ContainsFunc(syms.Symbols, func(s service.Symbol) bool { return s.Name == "Greeter" && s.Kind == "interface" }) {
		t.Fatalf("document symbols: %+v", syms.Symbols)
	}
	var ws struct {
		Symbols []service.WorkspaceSymbol `json:"symbols"`
	}
	d.must("lsp/workspaceSymbols", map[string]any{"query": "Greeting"}, &ws)
	if !slices.ContainsFunc(ws.Symbols, func(s service.WorkspaceSymbol) bool {
		return s.Name == "Greeting" && s.File == "lib.go" && s.Range.StartLine == 4
	}) {
		t.Fatalf("workspace symbols: %+v", ws.Symbols)
	}
}

// TestTypeScriptAndESLint: one .ts file, two servers, both reporting.
func TestTypeScriptAndESLint(t *testing.T) {
	servertest.Binary(t, "typescript-language-server")
	servertest.Binary(t, "vscode-eslint-language-server")
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"tsconfig.json":     `{"compilerOptions":{"strict":true}}`,
		"eslint.config.mjs": "export default [{ files: [\"**/*.ts\"], rules: { \"no-debugger\": \"error\" } }];\n",
		"a.ts":              "const n = 1;\nn = 2;\ndebugger;\nexport {};\n",
		"lspkit.json":       noInstall(""),
	})
	d := startDaemon(t, root)
	var res service.CheckResult
	d.must("lsp/check", map[string]any{"filePath": "a.ts"}, &res)
	servers := map[string]service.Verdict{}
	for _, s := range res.Servers {
		servers[s.ID] = s.Verdict
	}
	if servers["typescript"] != service.VerdictSettled || servers["eslint"] != service.VerdictSettled || len(servers) != 2 {
		t.Fatalf("servers: %+v", res.Servers)
	}
	var ts, eslint bool
	for _, dg := range res.Diagnostics {
		ts = ts || (dg.Server == "typescript" && dg.Line == 2 && dg.Character == 1)
		eslint = eslint || (dg.Server == "eslint" && dg.Line == 3 && dg.Character == 1 && dg.Code == "no-debugger")
	}
	if !ts || !eslint {
		t.Fatalf("want typescript's error at 2:1 and eslint's no-debugger at 3:1: %+v", res.Diagnostics)
	}
}

// TestTypeScript7: the pull-only server, enabled by configuration instead
// of typescript-language-server.
func TestTypeScript7(t *testing.T) {
	servertest.Binary(t, "tsc7")
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"tsconfig.json": `{"compilerOptions":{"strict":true}}`,
		"a.ts":          "const s = \"é🙂\"; const n: number = s;\nexport {};\n",
		"lspkit.json":   noInstall(`,"servers":{"typescript":{"enabled":false},"typescript7":{"enabled":true}}`),
	})
	d := startDaemon(t, root)
	var diags []service.Diagnostic
	d.must("lsp/checkFile", map[string]any{"filePath": "a.ts"}, &diags)
	if len(diags) != 1 || diags[0].Server != "typescript7" || diags[0].Line != 1 || diags[0].Character != 23 {
		t.Fatalf("diagnostics: %+v", diags)
	}
}

// TestServerCrashes: a server that dies on every didOpen is restarted
// within the policy, then broken with its reason; the daemon keeps going.
func TestServerCrashes(t *testing.T) {
	root := t.TempDir()
	exe, _ := os.Executable()
	cfg := fmt.Sprintf(`{"lsp":{"autoInstall":false,"restart":{"maxRestarts":2,"windowMs":60000},"servers":{"crashy":{"command":%q,"extensions":[".crash"],"env":{"LSPKIT_FAKE":"crash-on-open"}}}}}`, exe)
	writeFiles(t, root, map[string]string{"a.crash": "boom\n", "lspkit.json": cfg})
	d := startDaemon(t, root)
	var verdicts []service.Verdict
	for range 6 {
		var res service.CheckResult
		d.must("lsp/check", map[string]any{"filePath": "a.crash", "timeoutMs": 5000}, &res)
		if len(res.Servers) != 1 {
			t.Fatalf("servers: %+v", res.Servers)
		}
		verdicts = append(verdicts, res.Servers[0].Verdict)
		if res.Servers[0].Verdict == service.VerdictBroken && d.status()["crashy"].Status == "broken" {
			break
		}
	}
	st := d.status()["crashy"]
	if st.Status != "broken" || st.Restarts != 2 || !strings.Contains(st.Reason, "exit status 3") || !strings.Contains(st.Reason, "crashing on didOpen") {
		t.Fatalf("status after %v: %+v", verdicts, st)
	}
	var epoch uint64
	d.must("lsp/getDiagnosticEpoch", nil, &epoch) // still answering
}

// TestInitializeHang: a server that never answers initialize costs a check
// its first-touch timeout, no more.
func TestInitializeHang(t *testing.T) {
	root := t.TempDir()
	exe, _ := os.Executable()
	cfg := fmt.Sprintf(`{"lsp":{"autoInstall":false,"firstTouchTimeout":500,"servers":{"hangs":{"command":%q,"extensions":[".hang"],"env":{"LSPKIT_FAKE":"hang-initialize"}}}}}`, exe)
	writeFiles(t, root, map[string]string{"a.hang": "x\n", "lspkit.json": cfg})
	d := startDaemon(t, root)
	start := time.Now()
	var res service.CheckResult
	d.must("lsp/check", map[string]any{"filePath": "a.hang"}, &res)
	if len(res.Servers) != 1 || res.Servers[0].Verdict != service.VerdictTimedOut {
		t.Fatalf("servers: %+v", res.Servers)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("check took %s with a 500 ms first-touch timeout", el)
	}
	if st := d.status()["hangs"]; st.Status != "starting" {
		t.Fatalf("status: %+v", st)
	}
}

// TestBootstrap: the root and configuration from LSPKIT_BOOTSTRAP, as
// agents spawn the daemon (no --root, another working directory).
func TestBootstrap(t *testing.T) {
	serversEnv(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": "package demo\n\nvar X int = \"s\"\n"})
	boot := fmt.Sprintf(`{"workspaceRoot": %q, "config": {"lsp": {"autoInstall": false, "servers": {"mine": {"command": "no-such-ls", "extensions": [".mine"]}}}}}`, root)
	proc, err := client.StartProcess(client.Command{Path: lspkitBin, Args: []string{"serve"}, Env: []string{"LSPKIT_BOOTSTRAP=" + boot}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{t: t, proc: proc, ready: make(chan map[string]any, 1)}
	d.conn = transport.NewConn(proc.Stdio(), transport.Options{})
	t.Cleanup(func() { d.conn.Close(); proc.Stop(5 * time.Second) })
	if st := d.status()["mine"]; st.Status != "unavailable" || !strings.Contains(st.Reason, "no-such-ls") {
		t.Fatalf("bootstrap config not applied: %+v", st)
	}
	var diags []service.Diagnostic
	d.must("lsp/checkFile", map[string]any{"filePath": "a.go"}, &diags) // relative to the bootstrap root
	if len(diags) != 1 || diags[0].File != "a.go" {
		t.Fatalf("diagnostics: %+v", diags)
	}
}

// TestSingleFlight: eight concurrent first checks of files of one module
// start one gopls.
func TestSingleFlight(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"go.mod": goMod, "lspkit.json": noInstall("")}
	for i := range 8 {
		files[fmt.Sprintf("f%d.go", i)] = fmt.Sprintf("package demo\n\nvar V%d int = \"s\"\n", i)
	}
	writeFiles(t, root, files)
	d := startDaemon(t, root, serversEnv(t)...)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			var diags []service.Diagnostic
			err := d.call("lsp/checkFile", map[string]any{"filePath": fmt.Sprintf("f%d.go", i)}, &diags)
			if err == nil && len(diags) != 1 {
				err = fmt.Errorf("f%d.go: %+v", i, diags)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var sts []service.ServerStatus
	d.must("lsp/status", nil, &sts)
	var gopls []service.ServerStatus
	for _, s := range sts {
		if s.ID == "gopls" {
			gopls = append(gopls, s)
		}
	}
	if len(gopls) != 1 || gopls[0].ServerPID <= 0 || gopls[0].Restarts != 0 {
		t.Fatalf("gopls sessions: %+v", gopls)
	}
	n := 0
	for _, pid := range processesIn(root) {
		if exe, _ := os.Readlink("/proc/" + pid + "/exe"); filepath.Base(exe) == "gopls" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d gopls processes", n)
	}
}

// TestSlowServerDoesNotDelay: a server that never initializes shares .go
// with gopls; gopls's verdict and diagnostics come in its own time, the
// check ends at the slow one's deadline.
func TestSlowServerDoesNotDelay(t *testing.T) {
	root := t.TempDir()
	exe, _ := os.Executable()
	cfg := fmt.Sprintf(`{"lsp":{"autoInstall":false,"firstTouchTimeout":3000,"servers":{"hangs":{"command":%q,"extensions":[".go"],"env":{"LSPKIT_FAKE":"hang-initialize"}}}}}`, exe)
	writeFiles(t, root, map[string]string{"go.mod": goMod, "a.go": "package demo\n\nvar X int = \"s\"\n", "lspkit.json": cfg})
	d := startDaemon(t, root, serversEnv(t)...)
	start := time.Now()
	var res service.CheckResult
	d.must("lsp/check", map[string]any{"filePath": "a.go"}, &res)
	wall := time.Since(start)
	verdicts := map[string]service.ServerResult{}
	for _, s := range res.Servers {
		verdicts[s.ID] = s
	}
	if verdicts["gopls"].Verdict != service.VerdictSettled || verdicts["hangs"].Verdict != service.VerdictTimedOut || len(res.Diagnostics) != 1 {
		t.Fatalf("check: %+v", res)
	}
	if verdicts["gopls"].MS >= 3000 || wall > 6*time.Second {
		t.Fatalf("gopls took %d ms, the check %s, with a 3 s first-touch timeout", verdicts["gopls"].MS, wall)
	}
}

// TestNoRestarts: maxRestarts 0 makes the first crash final.
func TestNoRestarts(t *testing.T) {
	root := t.TempDir()
	exe, _ := os.Executable()
	cfg := fmt.Sprintf(`{"lsp":{"autoInstall":false,"restart":{"maxRestarts":0},"servers":{"crashy":{"command":%q,"extensions":[".crash"],"env":{"LSPKIT_FAKE":"crash-on-open"}}}}}`, exe)
	writeFiles(t, root, map[string]string{"a.crash": "boom\n", "lspkit.json": cfg})
	d := startDaemon(t, root)
	var res service.CheckResult
	d.must("lsp/check", map[string]any{"filePath": "a.crash", "timeoutMs": 5000}, &res)
	if len(res.Servers) != 1 || res.Servers[0].Verdict != service.VerdictBroken {
		t.Fatalf("first check: %+v", res.Servers)
	}
	for range 2 {
		d.must("lsp/check", map[string]any{"filePath": "a.crash", "timeoutMs": 5000}, &res)
		if res.Servers[0].Verdict != service.VerdictBroken {
			t.Fatalf("later check: %+v", res.Servers)
		}
	}
	if st := d.status()["crashy"]; st.Status != "broken" || st.Restarts != 0 {
		t.Fatalf("status: %+v", st)
	}
}
