package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	cfg, err := Parse([]byte(`{"lsp": {
		"servers": {"eslint": {"enabled": false},
			"luau": {"command": "luau-lsp", "args": ["lsp"], "extensions": [".luau"], "rootMarkers": ["default.project.json"], "env": {"A": "b"}, "initializationOptions": {"x": 1}, "settings": {"y": 2}}},
		"diagnosticTimeout": 3000, "firstTouchTimeout": 10000,
		"includeSeverities": ["error", "warning"], "maxDiagnosticsPerFile": 20, "maxProjectDiagnosticsFiles": 5,
		"navigationTools": false, "autoInstall": false,
		"restart": {"maxRestarts": 0, "windowMs": 300000},
		"exclude": ["vendor/**"], "maxFileBytes": 1000, "maxOpenDocuments": 3, "prewarm": true, "serverIdleStopMs": 60000}}`), "lspkit.json")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Disabled || cfg.DiagnosticTimeout != 3*time.Second || cfg.FirstTouchTimeout != 10*time.Second ||
		strings.Join(cfg.IncludeSeverities, ",") != "error,warning" || cfg.NavigationTools || cfg.AutoInstall ||
		cfg.Restart.MaxRestarts != 0 || cfg.Restart.Window != 5*time.Minute ||
		strings.Join(cfg.Exclude, ",") != "vendor/**" || cfg.MaxFileBytes != 1000 || cfg.MaxOpenDocuments != 3 || !cfg.Prewarm || cfg.ServerIdleStop != time.Minute {
		t.Fatalf("%+v", cfg)
	}
	if e := cfg.Servers["eslint"]; e.Enabled == nil || *e.Enabled {
		t.Error("eslint not disabled")
	}
	luau := cfg.Servers["luau"]
	if luau.Command != "luau-lsp" || strings.Join(luau.Args, " ") != "lsp" || luau.Env["A"] != "b" || string(luau.Settings) != `{"y":2}` || luau.Extensions[0] != ".luau" {
		t.Fatalf("luau: %+v", luau)
	}
	if off, _ := Parse([]byte(`{"lsp": false}`), "f"); !off.Disabled {
		t.Error(`"lsp": false did not disable`)
	}
	if def, _ := Parse([]byte(`{"other": 1}`), "f"); def.Disabled || def.DiagnosticTimeout != 3*time.Second ||
		strings.Join(def.Exclude, ",") != "**/node_modules/**,**/.git/**" || def.MaxFileBytes != 2<<20 || def.MaxOpenDocuments != 200 {
		t.Error("absent lsp key is not the defaults")
	}
}

// TestConfigErrors: one clear line naming the file, the key and what was
// expected.
func TestConfigErrors(t *testing.T) {
	cases := []struct{ doc, want string }{
		{`{"lsp": {"diagnosticTimeout": "3s"}}`, `cfg.json: lsp.diagnosticTimeout: expected a whole number of milliseconds ≥ 0, got a string "3s"`},
		{`{"lsp": {"servers": {"gopls": {"args": "x"}}}}`, `cfg.json: lsp.servers.gopls.args: expected an array of strings, got a string "x"`},
		{`{"lsp": {"servers": {"gopls": {"enabled": 1}}}}`, `cfg.json: lsp.servers.gopls.enabled: expected true or false, got the number 1`},
		{`{"lsp": {"servers": {"x": {"extensions": ["go"]}}}}`, `cfg.json: lsp.servers.x.extensions: extension "go" must start with a dot`},
		{`{"lsp": {"includeSeverities": ["fatal"]}}`, `cfg.json: lsp.includeSeverities: unknown severity "fatal"`},
		{`{"lsp": {"restart": {"max": 1}}}`, `cfg.json: lsp.restart.max: unknown key`},
		{`{"lsp": {"colour": true}}`, `cfg.json: lsp.colour: unknown key`},
		{`{"lsp": {"exclude": ["a/[b"]}}`, `cfg.json: lsp.exclude: bad glob "a/[b"`},
		{`{"lsp": {"maxFileBytes": -1}}`, `cfg.json: lsp.maxFileBytes: expected a whole number ≥ 0, got the number -1`},
		{`{"lsp": {"maxOpenDocuments": 0}}`, `cfg.json: lsp.maxOpenDocuments: expected a whole number ≥ 1, got 0`},
		{`{"lsp": 3}`, `cfg.json: lsp: expected true, false or an object, got the number 3`},
		{`{"lsp": {`, `cfg.json: not valid JSON`},
		{`[]`, `cfg.json: expected an object, got an array`},
		{`{"lsp": {"servers": {"a": {}, "a": {}}}}`, "cfg.json: bad object: jsontext: duplicate object member name \"a\" within \"/lsp/servers\""},
	}
	for _, tc := range cases {
		_, err := Parse([]byte(tc.doc), "cfg.json")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s:\n got %v\nwant %s", tc.doc, err, tc.want)
		}
	}
}

func TestLoad(t *testing.T) {
	root := t.TempDir()
	if cfg, err := Load(root, "", nil); err != nil || cfg.Source != "defaults" {
		t.Fatalf("no config: %+v %v", cfg, err)
	}
	// opencode.json's lsp key, when there is no lspkit.json.
	oc := `{"lsp": {"gopls": {"disabled": true}, "mine": {"command": ["my-ls", "--stdio"], "extensions": [".my"], "env": {"K": "v"}, "initialization": {"a": 1}}}}`
	if err := os.WriteFile(filepath.Join(root, "opencode.json"), []byte(oc), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(root, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	gopls, mine := cfg.Servers["gopls"], cfg.Servers["mine"]
	if gopls.Enabled == nil || *gopls.Enabled || mine.Command != "my-ls" || mine.Args[0] != "--stdio" || mine.Env["K"] != "v" || mine.Extensions[0] != ".my" {
		t.Fatalf("opencode config: gopls %+v mine %+v", gopls, mine)
	}
	// lspkit.json wins over opencode.json; --config over both; a bootstrap is laid over either.
	if err := os.WriteFile(filepath.Join(root, "lspkit.json"), []byte(`{"lsp": false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := Load(root, "", nil); !cfg.Disabled {
		t.Fatal("lspkit.json ignored")
	}
	if cfg, _ := Load(root, "", &Bootstrap{Var: "LSPKIT_BOOTSTRAP", Config: []byte(`{"lsp": {"autoInstall": false}}`)}); cfg.Disabled || cfg.AutoInstall || cfg.Source != "LSPKIT_BOOTSTRAP over "+filepath.Join(root, "lspkit.json") {
		t.Fatalf("bootstrap ignored: %+v", cfg)
	}
	if _, err := Load(root, filepath.Join(root, "missing.json"), nil); err == nil || !strings.Contains(err.Error(), "missing.json: cannot read") {
		t.Fatalf("missing --config: %v", err)
	}
}

// TestOpencodeBooleans: opencode.json's "lsp": true means the defaults,
// "lsp": false turns LSP off, anything else that is not an object is an
// error naming the key.
func TestOpencodeBooleans(t *testing.T) {
	on, err := ParseOpencode([]byte(`{"lsp": true, "model": "x"}`), "opencode.json")
	if err != nil || on.Disabled || len(on.Servers) != 0 || !on.AutoInstall {
		t.Fatalf(`"lsp": true: %+v %v`, on, err)
	}
	if off, err := ParseOpencode([]byte(`{"lsp": false}`), "opencode.json"); err != nil || !off.Disabled {
		t.Fatalf(`"lsp": false: %+v %v`, off, err)
	}
	if _, err := ParseOpencode([]byte(`{"lsp": "yes"}`), "opencode.json"); err == nil || err.Error() != `opencode.json: lsp: expected true, false or an object, got a string "yes"` {
		t.Fatalf(`"lsp": "yes": %v`, err)
	}
	if on, err := Parse([]byte(`{"lsp": true}`), "lspkit.json"); err != nil || on.Disabled {
		t.Fatalf(`lspkit.json "lsp": true: %+v %v`, on, err)
	}
}

// TestOpencodeLspkitEntry: opencode.json's entry running lspkit lsp (its
// LSP fronted by lspkit) is not one of lspkit's servers, and the servers
// opencode turns off beside it (so that lspkit serves their files) stay on
// for lspkit; both are named as ignored. Without such an entry, disabled
// means disabled.
func TestOpencodeLspkitEntry(t *testing.T) {
	cfg, err := ParseOpencode([]byte(`{"lsp": {"gopls": {"disabled": true}, "lspkit": {"command": ["/usr/local/bin/lspkit", "lsp", "--server", "gopls"], "extensions": [".go"]}}}`), "opencode.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Servers["lspkit"]; ok || len(cfg.Ignored) != 2 || !strings.Contains(cfg.Ignored[0], "lsp.lspkit: lspkit lsp itself") ||
		!strings.Contains(cfg.Ignored[1], "lsp.gopls.disabled: opencode's own server") {
		t.Fatalf("servers %v, ignored %q: want lspkit's entry and gopls's disabled ignored and named", cfg.Servers, cfg.Ignored)
	}
	if g := cfg.Servers["gopls"]; g.Enabled != nil {
		t.Errorf("gopls: %+v, want lspkit's default (on)", g)
	}
	cfg, err = ParseOpencode([]byte(`{"lsp": {"gopls": {"disabled": true}}}`), "opencode.json")
	if g := cfg.Servers["gopls"]; err != nil || g.Enabled == nil || *g.Enabled || len(cfg.Ignored) != 0 {
		t.Errorf("without an lspkit entry: gopls %+v, ignored %q, %v: want disabled", g, cfg.Ignored, err)
	}
}

// TestSidecarConfig: a server's sidecar from lspkit.json and from
// opencode.json, and what is wrong with a bad one.
func TestSidecarConfig(t *testing.T) {
	cfg, err := Parse([]byte(`{"lsp": {"servers": {"luau": {"sidecar": {"command": ["rojo", "sourcemap", "--watch"], "env": {"A": "b"}}}}}}`), "lspkit.json")
	if sc := cfg.Servers["luau"].Sidecar; err != nil || sc == nil || strings.Join(sc.Command, " ") != "rojo sourcemap --watch" || sc.Env["A"] != "b" {
		t.Fatalf("lspkit.json: %+v %v", cfg.Servers["luau"], err)
	}
	cfg, err = ParseOpencode([]byte(`{"lsp": {"luau": {"command": ["luau-lsp", "lsp"], "sidecar": {"command": ["rojo"]}}}}`), "opencode.json")
	if sc := cfg.Servers["luau"].Sidecar; err != nil || sc == nil || sc.Command[0] != "rojo" {
		t.Fatalf("opencode.json: %+v %v", cfg.Servers["luau"], err)
	}
	for doc, want := range map[string]string{
		`{"lsp": {"servers": {"x": {"sidecar": []}}}}`:                  `cfg.json: lsp.servers.x.sidecar: expected an object, got an array`,
		`{"lsp": {"servers": {"x": {"sidecar": {}}}}}`:                  `cfg.json: lsp.servers.x.sidecar.command: missing`,
		`{"lsp": {"servers": {"x": {"sidecar": {"command": []}}}}}`:     `cfg.json: lsp.servers.x.sidecar.command: expected a non-empty array of strings`,
		`{"lsp": {"servers": {"x": {"sidecar": {"command": "rojo"}}}}}`: `cfg.json: lsp.servers.x.sidecar.command: expected an array of strings`,
		`{"lsp": {"servers": {"x": {"sidecar": {"cmd": ["rojo"]}}}}}`:   `cfg.json: lsp.servers.x.sidecar.cmd: unknown key (expected command or env)`,
	} {
		if _, err := Parse([]byte(doc), "cfg.json"); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %s", doc, err, want)
		}
	}
}
