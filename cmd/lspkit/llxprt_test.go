//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/transport"
)

// llxprtModules returns the node_modules LLxprt Code's client runs with
// (testdata/llxprt/package-lock.json): LSPKIT_LLXPRT_MODULES, which
// scripts/test-llxprt.sh (run by .ci/run) installs and sets; without it
// the test skips.
func llxprtModules(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LSPKIT_LLXPRT_MODULES")
	if dir == "" {
		t.Skip("LSPKIT_LLXPRT_MODULES is not set: scripts/test-llxprt.sh (in .ci/run) installs LLxprt Code's client's packages and runs this test")
	}
	if _, err := os.Stat(filepath.Join(dir, "vscode-jsonrpc")); err != nil {
		t.Fatalf("LSPKIT_LLXPRT_MODULES: %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node: %v", err)
	}
	return dir
}

// llxprtHost lays out LLxprt Code's client as its monorepo has it — its
// vendored sources (testdata/llxprt/vendor, types stripped by
// harness/build.mjs), stand-ins for the two modules it imports from
// elsewhere in LLxprt (a logger, the MCP tool class), the placeholder of
// its LSP service entry, and a `bun` that runs lspkit there — and returns
// the directory.
func llxprtHost(t *testing.T, modules string) string {
	t.Helper()
	work := t.TempDir()
	src := filepath.Join("testdata", "llxprt")
	if err := os.CopyFS(work, os.DirFS(filepath.Join(src, "vendor"))); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(modules)
	if err != nil {
		t.Fatal(err)
	}
	nm := filepath.Join(work, "node_modules")
	for _, e := range entries {
		if err := os.MkdirAll(nm, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(modules, e.Name()), filepath.Join(nm, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	stubs := filepath.Join(src, "harness", "stubs")
	copyFile := func(from, to string) {
		t.Helper()
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, work, map[string]string{to: string(data)})
	}
	writeFiles(t, work, map[string]string{
		"package.json":                                         `{"private": true, "type": "module"}`,
		"packages/ide-integration/package.json":                `{"name": "@vybestack/llxprt-code-ide-integration", "type": "module", "main": "./src/lsp/index.js"}`,
		"packages/core/package.json":                           `{"name": "@vybestack/llxprt-code-core", "type": "module"}`,
		"packages/tools/package.json":                          `{"name": "@vybestack/llxprt-code-tools", "type": "module"}`,
		"node_modules/@vybestack/llxprt-code-mcp/package.json": `{"name": "@vybestack/llxprt-code-mcp", "type": "module", "main": "./index.js"}`,
		// Where LLxprt's resolver finds its LSP service (the monorepo's
		// packages/lsp): `bun` is given this path and runs lspkit instead.
		"packages/lsp/src/main.ts": "// lspkit serves here: the test's bun runs `lspkit serve --mcp-fds 3,4`.\n",
		"bin/bun":                  "#!/bin/sh\n# LLxprt runs `bun <its LSP entry>`: lspkit instead.\nexec \"$LSPKIT_BIN\" serve --mcp-fds 3,4\n",
	})
	copyFile(filepath.Join(stubs, "debugLogger.js"), "packages/core/src/utils/debugLogger.js")
	copyFile(filepath.Join(stubs, "llxprt-code-mcp.js"), "node_modules/@vybestack/llxprt-code-mcp/index.js")
	copyFile(filepath.Join(src, "harness", "build.mjs"), "build.mjs")
	copyFile(filepath.Join(src, "harness", "scenario.mjs"), "scenario.mjs")
	if err := os.Chmod(filepath.Join(work, "bin", "bun"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "packages", "ide-integration"), filepath.Join(nm, "@vybestack", "llxprt-code-ide-integration")); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("node", "build.mjs", "packages")
	build.Dir = work
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("stripping the types of LLxprt's sources: %v\n%s", err, out)
	}
	return work
}

// llxprtProject is a Go module and a TypeScript project, each with one
// deliberate type error at a known line and column.
func llxprtProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":        "module example.com/llx\n\ngo 1.22\n",
		"lib.go":        "package main\n\n// answer is the answer.\nfunc answer() int { return 42 }\n",
		"main.go":       "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(answer())\n\tvar s string = answer()\n\tfmt.Println(s)\n}\n",
		"tsconfig.json": `{"compilerOptions": {"strict": true, "target": "ES2022", "module": "ES2022", "moduleResolution": "bundler"}, "include": ["src"]}` + "\n",
		"src/app.ts":    "export function twice(n: number): number {\n  return n * 2;\n}\n\nconst label: string = twice(21);\n",
	})
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// llxprtRun is what scenario.mjs observed.
type llxprtRun struct {
	Shape       string  `json:"shape"`
	StartMs     int     `json:"startMs"`
	Alive       bool    `json:"alive"`
	Unavailable *string `json:"unavailable"`
	Tools       []struct {
		Name   string `json:"name"`
		Server string `json:"server"`
		Trust  bool   `json:"trust"`
	} `json:"tools"`
	PID          int                         `json:"pid"`
	GoBlock      *string                     `json:"goBlock"`
	TSBlock      *string                     `json:"tsBlock"`
	All          map[string][]map[string]any `json:"all"`
	Status       []map[string]any            `json:"status"`
	RawStatus    []map[string]any            `json:"rawStatus"`
	Calls        map[string]map[string]any   `json:"calls"`
	GoFixedBlock *string                     `json:"goFixedBlock"`
	TSFixedBlock *string                     `json:"tsFixedBlock"`
	AllFixed     map[string][]map[string]any `json:"allFixed"`
	Exit         struct {
		Code   *int
		Signal *string
	} `json:"exit"`
	Uncaught   []string       `json:"uncaught"`
	Steps      map[string]int `json:"steps"`
	PipeErrors []string       `json:"pipeErrors"`
}

// TestLLxprtClient: LLxprt Code's shipped client (vybestack/llxprt-code
// at f80a695, its files unmodified) runs lspkit where it runs its own LSP
// service, for each shape of its `lsp` setting — true, with its timeout
// keys, with servers of its own — and everything works: ready; its MCP
// navigation tools registered (only those that write nothing, trusted)
// and answering within its 250 ms; its edit tools' <diagnostics> block
// for a broken Go file and a broken TypeScript file with the real line
// and column; nothing once fixed on disk; getAllDiagnostics; /lsp status
// healthy; shutdown leaves no lspkit or server process and no uncaught
// exception or reset pipe in the host.
func TestLLxprtClient(t *testing.T) {
	modules := llxprtModules(t)
	servertest.Binary(t, "gopls")
	servertest.Binary(t, "typescript-language-server")
	bin := plainBinary(t)
	host := llxprtHost(t, modules)
	for _, shape := range []string{"plain", "timeouts", "configured"} {
		t.Run(shape, func(t *testing.T) {
			t.Parallel()
			root := llxprtProject(t)
			run := runLLxprt(t, bin, host, root, shape)
			checkLLxprtRun(t, run)
			for _, p := range append(pidsOf(run), run.PID) {
				servertest.Gone(t, p)
			}
			if left := processesIn(root); len(left) > 0 {
				t.Errorf("processes left in the project: %v", left)
			}
		})
	}
}

// plainBinary is lspkit built without the race detector: LLxprt's client
// gives its MCP channel 250 ms for each step, as users run lspkit — a
// race-instrumented daemon on a loaded machine missed it. It is
// LSPKIT_PLAIN_BINARY when set, else lspkitBin when the tests run without
// -race (scripts/test-llxprt.sh), else built here.
func plainBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("LSPKIT_PLAIN_BINARY"); bin != "" {
		return bin
	}
	if !raceEnabled {
		return lspkitBin
	}
	bin := filepath.Join(t.TempDir(), "lspkit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building lspkit: %v\n%s", err, out)
	}
	return bin
}

// runLLxprt runs the scenario of shape against root with lspkit bin.
func runLLxprt(t *testing.T, bin, host, root, shape string) llxprtRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "scenario.mjs", root, shape)
	cmd.Dir = host
	cmd.Env = append(os.Environ(), "LSPKIT_BIN="+bin, "PATH="+filepath.Join(host, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("scenario %s: %v\nstdout:\n%s\nstderr:\n%s", shape, err, stdout.String(), stderr.String())
	}
	var run llxprtRun
	if err := json.Unmarshal(stdout.Bytes(), &run); err != nil {
		t.Fatalf("scenario %s: %v\n%s\nstderr:\n%s", shape, err, stdout.String(), stderr.String())
	}
	t.Logf("%s: lspkit ready in %d ms (LLxprt's start: which bun, spawn, lsp/ready, MCP registration); tool calls %v; steps (ms from the start) %v", shape, run.StartMs, callTimes(run), run.Steps)
	return run
}

// checkLLxprtRun judges one session.
func checkLLxprtRun(t *testing.T, run llxprtRun) {
	t.Helper()
	if !run.Alive {
		t.Fatalf("LLxprt's client never saw lspkit ready: %v", deref(run.Unavailable))
	}
	var tools []string
	for _, tool := range run.Tools {
		tools = append(tools, tool.Name)
		if !tool.Trust || tool.Server != "lsp-navigation" {
			t.Errorf("tool %+v", tool)
		}
	}
	want := "lsp_batch lsp_call_hierarchy lsp_check_file lsp_code_actions lsp_completion lsp_diagnostics lsp_document_highlights lsp_document_symbols lsp_find_references lsp_goto_declaration lsp_goto_definition lsp_goto_implementation lsp_goto_type_definition lsp_hover lsp_inlay_hints lsp_signature_help lsp_status lsp_symbol_context lsp_type_hierarchy lsp_workspace_diagnostics lsp_workspace_symbols"
	if strings.Join(sortedCopy(tools), " ") != want {
		t.Errorf("registered tools (trusted: LLxprt runs them without asking):\n got %v\nwant %s", sortedCopy(tools), want)
	}
	goWant := "LSP errors detected in this file, please fix:\n<diagnostics file=\"main.go\">\nERROR [7:17] cannot use answer() (value of type int) as string value in variable declaration (IncompatibleAssign)\n</diagnostics>"
	if deref(run.GoBlock) != goWant {
		t.Errorf("Go edit block:\n%s\nwant:\n%s", deref(run.GoBlock), goWant)
	}
	tsWant := "LSP errors detected in this file, please fix:\n<diagnostics file=\"src/app.ts\">\nERROR [5:7] Type 'number' is not assignable to type 'string'. (2322)\n</diagnostics>"
	if deref(run.TSBlock) != tsWant {
		t.Errorf("TypeScript edit block:\n%s\nwant:\n%s", deref(run.TSBlock), tsWant)
	}
	if g, ts := run.All["main.go"], run.All["src/app.ts"]; len(g) != 1 || len(ts) != 1 || g[0]["column"] != float64(17) || ts[0]["column"] != float64(7) {
		t.Errorf("getAllDiagnostics: %v", run.All)
	}
	healthy := map[string]bool{}
	for _, st := range run.Status {
		if st["healthy"] == true {
			healthy[st["serverId"].(string)] = true
		}
		if st["serverId"] == "" {
			t.Errorf("status entry without serverId: %v", st)
		}
	}
	if !healthy["gopls"] || !healthy["typescript"] {
		t.Errorf("status: gopls and typescript not healthy: %v", run.Status)
	}
	for name, want := range map[string]string{
		"go definition": "lib.go:4:6",
		"go references": "main.go:7:17",
		"go hover":      "func answer() int",
		"ts definition": "src/app.ts:1:17",
	} {
		c := run.Calls[name]
		// A place as the compact answer writes it ("main.go: 6:14 7:17"),
		// read back, or the text itself.
		if text, _ := c["text"].(string); c["isError"] == true || !strings.Contains(text, want) && !slices.Contains(placesIn(text), want) {
			t.Errorf("%s: %v, want %q", name, c, want)
		}
	}
	if deref(run.GoFixedBlock) != "" || deref(run.TSFixedBlock) != "" || len(run.AllFixed) != 0 {
		t.Errorf("fixed on disk: Go block %q, TypeScript block %q, all %v", deref(run.GoFixedBlock), deref(run.TSFixedBlock), run.AllFixed)
	}
	if run.Exit.Signal != nil || run.Exit.Code == nil || *run.Exit.Code != 0 {
		t.Errorf("lspkit's exit: code %v signal %v (LLxprt sends SIGTERM after lsp/shutdown, SIGKILL 2 s later)", run.Exit.Code, deref(run.Exit.Signal))
	}
	if len(run.Uncaught) > 0 || len(run.PipeErrors) > 0 {
		t.Errorf("in the host: uncaught %q, pipe errors %q", run.Uncaught, run.PipeErrors)
	}
}

// pidsOf are the language servers' pids lsp/status named.
func pidsOf(run llxprtRun) []int {
	var pids []int
	for _, st := range run.RawStatus {
		if pid, ok := st["serverPid"].(float64); ok && pid > 0 {
			pids = append(pids, int(pid))
		}
	}
	return pids
}

func callTimes(run llxprtRun) string {
	var parts []string
	for name, c := range run.Calls {
		parts = append(parts, name+" "+strconv.Itoa(int(toFloat(c["ms"])))+" ms")
	}
	return strings.Join(sortedCopy(parts), ", ")
}

func toFloat(v any) float64 {
	f, _ := v.(float64)
	return f
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func sortedCopy(ss []string) []string { return slices.Sorted(slices.Values(ss)) }

// BenchmarkReadyLLxprt: spawn → lsp/ready as LLxprt Code spawns the
// daemon: LSP_BOOTSTRAP with its timeout keys and a server array, MCP on
// two socket pairs as descriptors 3 and 4. Target: ≤ 100 ms.
func BenchmarkReadyLLxprt(b *testing.B) {
	root := b.TempDir()
	boot := `{"workspaceRoot":` + strconv.Quote(root) + `,"config":{"servers":[{"id":"ts","command":"typescript-language-server","args":["--stdio"]}],"diagnosticsTimeoutMs":8000,"firstTouchTimeoutMs":20000,"navigationTimeoutMs":5000,"navigationTools":true,"requestTimeoutMs":30000}}`
	var ready []time.Duration
	for b.Loop() {
		var ours, hosts []*os.File
		for range 2 {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			if err != nil {
				b.Fatal(err)
			}
			hosts = append(hosts, os.NewFile(uintptr(fds[0]), "host"))
			ours = append(ours, os.NewFile(uintptr(fds[1]), "lspkit"))
		}
		cmd := exec.Command(lspkitBin, "serve", "--mcp-fds", "3,4")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "LSP_BOOTSTRAP="+boot, "LSPKIT_LOG=error")
		cmd.ExtraFiles = ours
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		for _, f := range ours {
			f.Close()
		}
		frame, err := transport.NewReader(stdout, transport.ReaderOptions{}).ReadFrame()
		if err != nil || !bytes.Contains(frame, []byte(`"lsp/ready"`)) {
			b.Fatalf("no lsp/ready: %s %v", frame, err)
		}
		ready = append(ready, time.Since(start))
		stdin.Close()
		cmd.Wait()
		for _, f := range hosts {
			f.Close()
		}
	}
	b.ReportMetric(medianMS(ready), "ready-ms")
}
