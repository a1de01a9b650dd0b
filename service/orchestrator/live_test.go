package orchestrator

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
)

// The live tests drive real servers (installed by lspkit install --tested)
// through an in-process orchestrator: the happy path of each feature.

// live starts an orchestrator over a new root with files and the
// configuration's lsp options (autoInstall off).
func live(t testing.TB, files map[string]string, options string) *Orchestrator {
	t.Helper()
	root := t.TempDir()
	lsptest.WriteFiles(t, root, files)
	return liveIn(t, root, options)
}

// liveIn starts an orchestrator over root with a live test's
// configuration (servertest.LiveConfig) and the lsp options given.
func liveIn(t testing.TB, root, options string) *Orchestrator {
	t.Helper()
	cfg, err := config.Parse([]byte(servertest.LiveConfig(options)), "test")
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
// check with its impact and DiagnosticsAfter include b.go; unsaved text
// stands.
func TestGoCrossFile(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	files, breaking := servertest.GoCrossFile()
	o := live(t, files, "")
	if res := mustCheck(t, o, api.CheckParams{FilePath: "b.go"}); !res.Checked || len(res.Diagnostics) != 0 {
		t.Fatalf("b.go before the change: %+v", res)
	}
	epoch := o.Epoch()
	lsptest.WriteFiles(t, o.Root(), map[string]string{"a.go": breaking})
	ctx := context.Background()
	res := mustCheck(t, o, api.CheckParams{FilePath: "a.go", Impact: true})
	if imp := res.Impact; len(res.Diagnostics) != 0 || imp == nil || !imp.Complete || len(imp.Files) != 1 || imp.Files[0].File != "b.go" || imp.Files[0].Diagnostics[0].Line != 3 {
		t.Fatalf("a.go with its impact: %+v %+v", res, res.Impact)
	}
	wait := 5000
	after, err := o.DiagnosticsAfter(ctx, api.DiagnosticsAfterParams{AfterEpoch: epoch, WaitMs: &wait})
	if err != nil || len(after["b.go"]) != 1 || after["b.go"][0].Line != 3 {
		t.Fatalf("diagnosticsAfter: %+v %v", after, err)
	}
	if o.Epoch() <= epoch {
		t.Fatalf("epoch %d did not advance past %d", o.Epoch(), epoch)
	}
	fix := "package demo\n\nfunc G() string { return F() + \"1\" }\n"
	if res := mustCheck(t, o, api.CheckParams{FilePath: "b.go", Text: &fix}); len(res.Diagnostics) != 0 {
		t.Fatalf("b.go with the fix as text: %+v", res)
	}
	if all := o.Diagnostics(); len(all) != 0 {
		t.Fatalf("diagnostics after the fix: %+v", all)
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
	o := live(t, map[string]string{"go.mod": servertest.GoMod, "a.go": "package demo\n\nvar X int = \"s\"\n"},
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
