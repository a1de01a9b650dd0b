package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hostConfig lays a bootstrap's config over the defaults.
func hostConfig(t *testing.T, variable, data string) Config {
	t.Helper()
	b, err := ParseBootstrap(variable, data)
	if err != nil {
		t.Fatalf("ParseBootstrap(%s): %v", data, err)
	}
	return b.Apply(Default())
}

// TestBootstrapAsHostsSendIt: LLxprt Code's three shapes of LSP_BOOTSTRAP
// (lsp: true; with its timeouts; with a configured server), as its client
// writes them (packages/ide-integration/src/lsp/lsp-service-client.ts at
// f80a695), are taken whole, with nothing ignored.
func TestBootstrapAsHostsSendIt(t *testing.T) {
	plain := hostConfig(t, "LSP_BOOTSTRAP", `{"workspaceRoot":"/w","config":{"servers":[]}}`)
	want := Default()
	want.Source = "LSP_BOOTSTRAP"
	if d := cmp.Diff(want, plain); d != "" {
		t.Errorf("plain (-want +got):\n%s", d)
	}
	timed := hostConfig(t, "LSP_BOOTSTRAP", `{"workspaceRoot":"/w","config":{"servers":[],"diagnosticsTimeoutMs":2500,"firstTouchTimeoutMs":8000,"navigationTimeoutMs":3000,"navigationTools":false,"requestTimeoutMs":12000}}`)
	if timed.DiagnosticTimeout != 2500*time.Millisecond || timed.FirstTouchTimeout != 8*time.Second || timed.NavigationTimeout != 3*time.Second ||
		timed.RequestTimeout != 12*time.Second || timed.NavigationTools || len(timed.Ignored) != 0 {
		t.Errorf("timeouts: %+v", timed)
	}
	configured := hostConfig(t, "LSP_BOOTSTRAP", `{"workspaceRoot":"/w","config":{"servers":[
		{"id":"ts","command":"typescript-language-server","args":["--stdio"]},
		{"id":"mine","command":"my-ls","extensions":[".my"],"workspaceRootMarkers":["my.toml"],"env":{"A":"b"},"initializationOptions":{"x":1},"enabled":true}]}}`)
	ts, mine := configured.Servers["ts"], configured.Servers["mine"]
	if ts.Command != "typescript-language-server" || strings.Join(ts.Args, " ") != "--stdio" || ts.Enabled != nil {
		t.Errorf("ts: %+v", ts)
	}
	if mine.Command != "my-ls" || mine.Extensions[0] != ".my" || mine.RootMarkers[0] != "my.toml" || mine.Env["A"] != "b" ||
		string(mine.InitializationOptions) != `{"x":1}` || mine.Enabled == nil || !*mine.Enabled {
		t.Errorf("mine: %+v", mine)
	}
	if len(configured.Ignored) != 0 {
		t.Errorf("ignored: %q", configured.Ignored)
	}
}

// TestBootstrapIgnores: whatever a host sends that lspkit cannot take is
// named, with why, and the rest is used; only a bootstrap that is not a
// JSON object is an error, naming the variable that was set.
func TestBootstrapIgnores(t *testing.T) {
	cfg := hostConfig(t, "LSP_BOOTSTRAP", `{"workspaceRoot":"/w","extra":1,"config":{
		"colour": 1, "diagnosticsTimeoutMs": "fast", "firstTouchTimeout": 5000, "firstTouchTimeoutMs": 6000,
		"includeSeverities": ["error", "fatal"], "maxDiagnosticsPerFile": 7,
		"servers": [{"command": "x"}, 3, {"id": "a", "args": "x", "command": "a-ls", "rootUri": "file:///w", "port": 1}, {"id": "gone", "command": ""}]}}`)
	want := []string{
		"LSP_BOOTSTRAP extra: unknown key (expected workspaceRoot and config)",
		"LSP_BOOTSTRAP config.colour: unknown key",
		`LSP_BOOTSTRAP config.diagnosticsTimeoutMs: expected a whole number of milliseconds ≥ 0, got a string "fast"`,
		"LSP_BOOTSTRAP config.firstTouchTimeoutMs: sets what config.firstTouchTimeout set already",
		`LSP_BOOTSTRAP config.includeSeverities: unknown severity "fatal" (expected error, warning, info or hint)`,
		"LSP_BOOTSTRAP config.servers[0].id: expected the server's id, a non-empty string, got none",
		"LSP_BOOTSTRAP config.servers[1]: expected an object, got the number 3",
		`LSP_BOOTSTRAP config.servers[2].args: expected an array of strings, got a string "x"`,
		"LSP_BOOTSTRAP config.servers[2].port: unknown key (expected enabled, command, args, extensions, rootMarkers, roots, env, initializationOptions, settings, language, impact or sidecar)",
		"LSP_BOOTSTRAP config.servers[2].rootUri: not used: lspkit finds each file's root from the server's rootMarkers",
	}
	if d := cmp.Diff(want, cfg.Ignored); d != "" {
		t.Errorf("ignored (-want +got):\n%s", d)
	}
	if cfg.DiagnosticTimeout != 3*time.Second || cfg.FirstTouchTimeout != 5*time.Second || cfg.MaxDiagnosticsPerFile != 7 ||
		strings.Join(cfg.IncludeSeverities, ",") != "error" {
		t.Errorf("what was understood: %+v", cfg)
	}
	if a := cfg.Servers["a"]; a.Command != "a-ls" || a.Args != nil {
		t.Errorf("a: %+v", a)
	}
	if g := cfg.Servers["gone"]; g.Enabled == nil || *g.Enabled {
		t.Errorf("an empty command removes the server: %+v", g)
	}
	for data, msg := range map[string]string{
		`{"workspaceRoot": "/w", "config": `: "LSP_BOOTSTRAP: not valid JSON",
		`["/w"]`:                             "LSP_BOOTSTRAP: expected an object with workspaceRoot and config, got an array",
	} {
		if _, err := ParseBootstrap("LSP_BOOTSTRAP", data); err == nil || !strings.HasPrefix(err.Error(), msg) {
			t.Errorf("ParseBootstrap(%s) = %v, want %s", data, err, msg)
		}
	}
	b, err := ParseBootstrap("LSPKIT_BOOTSTRAP", `{"workspaceRoot": 7, "config": "yes"}`)
	if err != nil || b.WorkspaceRoot != "" {
		t.Fatalf("%+v %v", b, err)
	}
	if got := b.Apply(Default()).Ignored; strings.Join(got, "\n") != "LSPKIT_BOOTSTRAP workspaceRoot: expected a directory's path, got the number 7\n"+
		`LSPKIT_BOOTSTRAP config: expected an object, true or false, got a string "yes"` {
		t.Errorf("ignored: %q", got)
	}
}

// TestBootstrapOverProject: a host's bootstrap is laid over the project's
// lspkit.json: the keys it sets win, the others stay; a whole document
// ({"lsp": …}) and false work as before.
func TestBootstrapOverProject(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "lspkit.json"), []byte(`{"lsp": {"maxDiagnosticsPerFile": 9, "servers": {"gopls": {"enabled": false}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(root, "", &Bootstrap{Var: "LSP_BOOTSTRAP", Config: []byte(`{"servers": [{"id": "mine", "command": "m", "extensions": [".m"]}], "diagnosticsTimeoutMs": 1000}`)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxDiagnosticsPerFile != 9 || cfg.DiagnosticTimeout != time.Second || cfg.Servers["mine"].Command != "m" || *cfg.Servers["gopls"].Enabled {
		t.Fatalf("%+v", cfg)
	}
	if cfg, _ := Load(root, "", &Bootstrap{Var: "LSPKIT_BOOTSTRAP", Config: []byte(`{"lsp": false}`)}); !cfg.Disabled {
		t.Error(`{"lsp": false} did not disable`)
	}
	if cfg, _ := Load(root, "", &Bootstrap{Var: "LSPKIT_BOOTSTRAP", Config: []byte(`{"lsp": {"colour": 1}}`)}); cfg.Disabled ||
		strings.Join(cfg.Ignored, "") != "LSPKIT_BOOTSTRAP config.lsp.colour: unknown key" {
		t.Errorf("a whole document's unknown key: %q", cfg.Ignored)
	}
}

// TestServersArray: lspkit.json takes the array form and the host names
// too; it still refuses what it does not know.
func TestServersArray(t *testing.T) {
	cfg, err := Parse([]byte(`{"lsp": {"servers": [{"id": "mine", "command": "m", "extensions": [".m"], "workspaceRootMarkers": ["m.toml"]}], "requestTimeoutMs": 2000}}`), "lspkit.json")
	if err != nil || cfg.Servers["mine"].RootMarkers[0] != "m.toml" || cfg.RequestTimeout != 2*time.Second {
		t.Fatalf("%+v %v", cfg, err)
	}
	for doc, want := range map[string]string{
		`{"lsp": {"servers": [{"command": "m"}]}}`:                     "lspkit.json: lsp.servers[0].id: expected the server's id",
		`{"lsp": {"servers": [{"id": "a", "rootUri": "x"}]}}`:          "lspkit.json: lsp.servers[0].rootUri: unknown key",
		`{"lsp": {"servers": [{"id": "a"}, {"id": "a"}]}}`:             `lspkit.json: lsp.servers[1]: server "a" again`,
		`{"lsp": {"servers": 3}}`:                                      "lspkit.json: lsp.servers: expected an object of servers by id, or an array",
		`{"lsp": {"diagnosticTimeout": 1, "diagnosticsTimeoutMs": 2}}`: "lspkit.json: lsp.diagnosticsTimeoutMs: sets what lsp.diagnosticTimeout set already",
	} {
		if _, err := Parse([]byte(doc), "lspkit.json"); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %s", doc, err, want)
		}
	}
}
