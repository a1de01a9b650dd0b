package orchestrator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
)

// The live tests drive real servers (installed by lspkit install --tested)
// through an in-process orchestrator: the happy path of each feature.

const goMod = "module example.com/demo\n\ngo 1.22\n"

// live starts an orchestrator over a new root with files and the
// configuration's lsp options (autoInstall off).
func live(t testing.TB, files map[string]string, options string) *Orchestrator {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	return liveIn(t, root, options)
}

// liveIn starts an orchestrator over root with the configuration's lsp
// options (autoInstall off). Unless the options say otherwise, the first
// touch of a server and its answers may take as long as they do on a
// loaded CI machine (a server starting beside a dozen others on two cores
// took over 10 s): a live test asserts what the server answers, not how
// fast.
func liveIn(t testing.TB, root, options string) *Orchestrator {
	t.Helper()
	if !strings.Contains(options, `"firstTouchTimeout"`) {
		options = loadedWait + options
	}
	if !strings.Contains(options, `"diagnosticTimeout"`) {
		// Likewise a server's answer on a loaded machine: pyright took
		// over 3 s to answer for a workspace folder added to it while a
		// fresh clone's tests compiled beside it.
		options = fmt.Sprintf(`,"diagnosticTimeout":%d`, servertest.Scale(60*time.Second).Milliseconds()) + options
	}
	cfg, err := config.Parse([]byte(`{"lsp":{"autoInstall":false`+options+`}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	o, err := New(Options{Root: root, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Shutdown(context.Background()) })
	return o
}

func mustCheck(t testing.TB, o *Orchestrator, p api.CheckParams) api.CheckResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(3*time.Minute))
	defer cancel()
	res, err := o.Check(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGoCrossFile: a write to a.go that changes a signature breaks b.go; a
// write report and DiagnosticsAfter include b.go; unsaved text stands.
func TestGoCrossFile(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	o := live(t, map[string]string{
		"go.mod": goMod,
		"a.go":   "package demo\n\n// F is used by b.go.\nfunc F() int { return 1 }\n",
		"b.go":   "package demo\n\nfunc G() int { return F() + 1 }\n",
	}, "")
	if res := mustCheck(t, o, api.CheckParams{FilePath: "b.go"}); !res.Checked || len(res.Diagnostics) != 0 {
		t.Fatalf("b.go before the change: %+v", res)
	}
	epoch := o.Epoch()
	writeFiles(t, o.Root(), map[string]string{"a.go": "package demo\n\n// F is used by b.go.\nfunc F() string { return \"1\" }\n"})
	ctx := context.Background()
	report, err := o.Report(ctx, api.ReportParams{FilePath: "a.go", Mode: "write"})
	if err != nil {
		t.Fatal(err)
	}
	want := "LSP errors detected in other files:\n<diagnostics file=\"b.go\">\nERROR [3:23] "
	if !strings.HasPrefix(report.Text, want) || len(report.Diagnostics["b.go"]) != 1 || len(report.Diagnostics["a.go"]) != 0 {
		t.Fatalf("report:\n%s\n%+v", report.Text, report.Diagnostics)
	}
	wait := 5000
	after, err := o.DiagnosticsAfter(ctx, api.DiagnosticsAfterParams{AfterEpoch: epoch, WaitMs: &wait})
	if err != nil || len(after["b.go"]) != 1 || after["b.go"][0].Line != 3 {
		t.Fatalf("diagnosticsAfter: %+v %v", after, err)
	}
	if o.Epoch() <= epoch {
		t.Fatalf("epoch %d did not advance past %d", o.Epoch(), epoch)
	}
	if report, _ = o.Report(ctx, api.ReportParams{FilePath: "a.go", Mode: "edit"}); report.Text != "" {
		t.Fatalf("edit-mode report for a clean file: %q", report.Text)
	}
	fix := "package demo\n\nfunc G() string { return F() + \"1\" }\n"
	if res := mustCheck(t, o, api.CheckParams{FilePath: "b.go", Text: &fix}); len(res.Diagnostics) != 0 {
		t.Fatalf("b.go with the fix as text: %+v", res)
	}
	if all := o.Diagnostics(); len(all) != 0 {
		t.Fatalf("diagnostics after the fix: %+v", all)
	}
}

// TestNavigation: definition, references, implementation, type definition,
// hover and symbols against gopls, 1-based and in code points (é🙂 precede
// the call on its line).
func TestNavigation(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	o := live(t, map[string]string{
		"go.mod": goMod,
		"lib.go": "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n\n" +
			"// Greeter greets.\ntype Greeter interface{ Greet() string }\n\n// English says hello.\ntype English struct{}\n\n" +
			"// Greet greets in English.\nfunc (English) Greet() string { return \"hello\" }\n",
		"use.go": "package demo\n\nfunc Use() string { _ = \"é🙂\"; return Greeting(\"x\") }\n\nvar g Greeter = English{}\n",
	}, "")
	ctx := context.Background()
	at := func(file string, line, char int) api.PositionParams {
		return api.PositionParams{File: file, Line: line, Character: char}
	}
	res, err := o.Definition(ctx, at("use.go", 3, 38))
	if err != nil || len(res.Locations) != 1 || res.Locations[0] != (api.Location{File: "lib.go", Line: 4, Character: 6, EndLine: 4, EndCharacter: 14, Source: `func Greeting(name string) string { return "hello, " + name }`}) {
		t.Fatalf("definition: %+v %v", res, err)
	}
	res, err = o.References(ctx, at("lib.go", 4, 6))
	if err != nil || len(res.Locations) != 2 || !slices.Contains(res.Locations, api.Location{File: "use.go", Line: 3, Character: 38, EndLine: 3, EndCharacter: 46, Source: `func Use() string { _ = "é🙂"; return Greeting("x") }`}) {
		t.Fatalf("references: %+v %v", res, err)
	}
	res, err = o.TypeDefinition(ctx, at("use.go", 5, 5))
	if err != nil || len(res.Locations) != 1 || res.Locations[0] != (api.Location{File: "lib.go", Line: 7, Character: 6, EndLine: 7, EndCharacter: 13, Source: "type Greeter interface{ Greet() string }"}) {
		t.Fatalf("type definition: %+v %v", res, err)
	}
	res, err = o.Implementation(ctx, at("lib.go", 7, 6))
	if err != nil || len(res.Locations) != 1 || res.Locations[0] != (api.Location{File: "lib.go", Line: 10, Character: 6, EndLine: 10, EndCharacter: 13, Source: "type English struct{}"}) {
		t.Fatalf("implementation: %+v %v", res, err)
	}
	hov, err := o.Hover(ctx, at("use.go", 3, 38))
	if err != nil || hov.Content == nil || !strings.Contains(*hov.Content, "Greeting says hello.") {
		t.Fatalf("hover: %+v %v", hov, err)
	}
	if hov, err = o.Hover(ctx, at("use.go", 2, 1)); err != nil || hov.Content != nil {
		t.Fatalf("hover on a blank line: %+v %v", hov, err)
	}
	syms, err := o.DocumentSymbols(ctx, api.FileParams{File: "lib.go"})
	if err != nil || !slices.ContainsFunc(syms.Symbols, func(s api.Symbol) bool { return s.Name == "Greeting" && s.Kind == "function" && s.Range.StartLine == 4 }) ||
		!slices.ContainsFunc(syms.Symbols, func(s api.Symbol) bool { return s.Name == "Greeter" && s.Kind == "interface" }) {
		t.Fatalf("document symbols: %+v %v", syms, err)
	}
	ws, err := o.WorkspaceSymbols(ctx, api.QueryParams{Query: "Greeting"})
	if err != nil || !slices.ContainsFunc(ws.Symbols, func(s api.WorkspaceSymbol) bool {
		return s.Name == "Greeting" && s.File == "lib.go" && s.Range.StartLine == 4
	}) {
		t.Fatalf("workspace symbols: %+v %v", ws, err)
	}
}

// TestTypeScriptAndESLint: one .ts file, two servers, both reporting.
func TestTypeScriptAndESLint(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "typescript-language-server")
	servertest.Binary(t, "vscode-eslint-language-server")
	o := live(t, map[string]string{
		"tsconfig.json":     `{"compilerOptions":{"strict":true}}`,
		"eslint.config.mjs": "export default [{ files: [\"**/*.ts\"], rules: { \"no-debugger\": \"error\" } }];\n",
		"a.ts":              "const n = 1;\nn = 2;\ndebugger;\nexport {};\n",
	}, "")
	res := mustCheck(t, o, api.CheckParams{FilePath: "a.ts"})
	servers := map[string]api.Verdict{}
	for _, s := range res.Servers {
		servers[s.ID] = s.Verdict
	}
	if !res.Checked || servers["typescript"] != api.VerdictSettled || servers["eslint"] != api.VerdictSettled || len(servers) != 2 {
		t.Fatalf("servers: %+v", res)
	}
	var ts, eslint bool
	for _, d := range res.Diagnostics {
		ts = ts || (d.Server == "typescript" && d.Line == 2 && d.Character == 1)
		eslint = eslint || (d.Server == "eslint" && d.Line == 3 && d.Character == 1 && d.Code == "no-debugger")
	}
	if !ts || !eslint {
		t.Fatalf("want typescript's error at 2:1 and eslint's no-debugger at 3:1: %+v", res.Diagnostics)
	}
}

// TestTypeScript7: the pull-only server, enabled by configuration instead
// of typescript-language-server.
func TestTypeScript7(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "tsc7")
	o := live(t, map[string]string{
		"tsconfig.json": `{"compilerOptions":{"strict":true}}`,
		"a.ts":          "const s = \"é🙂\"; const n: number = s;\nexport {};\n",
	}, `,"servers":{"typescript":{"enabled":false},"typescript7":{"enabled":true}}`)
	res := mustCheck(t, o, api.CheckParams{FilePath: "a.ts"})
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Server != "typescript7" || res.Diagnostics[0].Line != 1 || res.Diagnostics[0].Character != 23 {
		t.Fatalf("diagnostics: %+v", res)
	}
}

// TestCustomServer: a server from the configuration, on a command from the
// configuration (gopls under another id, the built-in off).
func TestCustomServer(t *testing.T) {
	t.Parallel()
	gopls := servertest.Binary(t, "gopls")
	o := live(t, map[string]string{"go.mod": goMod, "a.go": "package demo\n\nvar X int = \"s\"\n"},
		fmt.Sprintf(`,"servers":{"gopls":{"enabled":false},"mygo":{"command":%q,"extensions":[".go"],"rootMarkers":["go.mod"],"env":{"GOFLAGS":"-mod=mod"}}}`, gopls))
	res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"})
	if !res.Checked || len(res.Diagnostics) != 1 || res.Diagnostics[0].Server != "mygo" || res.Servers[0].ID != "mygo" {
		t.Fatalf("check: %+v", res)
	}
	var mygo api.ServerStatus
	for _, s := range o.Status() {
		if s.ID == "mygo" {
			mygo = s
		}
	}
	if mygo.Status != api.StatusActive || mygo.ServerPID <= 0 || mygo.Root != o.Root() {
		t.Fatalf("status: %+v", mygo)
	}
}
