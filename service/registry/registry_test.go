package registry

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/service/config"
)

// TestBuiltins: at least 20 built-in servers, each complete, every recipe
// pinned.
func TestBuiltins(t *testing.T) {
	specs, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) < 20 {
		t.Fatalf("%d built-in servers", len(specs))
	}
	for id, s := range specs {
		if s.ID != id || s.Language == "" || s.Command == "" || len(s.Extensions)+len(s.FileNames) == 0 {
			t.Errorf("%s: incomplete: %+v", id, s)
		}
		if s.Install == nil {
			continue
		}
		if s.Install.Bin == "" || len(s.Install.From.Packages) == 0 {
			t.Errorf("%s: incomplete recipe %+v", id, s.Install)
		}
		for _, p := range s.Install.From.Packages {
			if _, v := splitPackage(p); v == "" && s.Install.From.Kind != "apt" {
				t.Errorf("%s: %s is not pinned", id, p)
			}
		}
	}
	for _, id := range []string{"gopls", "typescript", "typescript7", "eslint", "pyright", "basedpyright", "clangd", "rust-analyzer", "bash", "yaml", "json", "css", "html", "lua", "luau", "jdtls", "zls", "ruby-lsp", "intelephense", "dockerfile", "terraform-ls"} {
		if specs[id] == nil {
			t.Errorf("no built-in %s", id)
		}
	}
	if !specs["dockerfile"].Serves("/w/Dockerfile") || specs["typescript"].LanguageID("/w/a.tsx") != "typescriptreact" || specs["clangd"].LanguageID("a.cpp") != "cpp" {
		t.Error("file names or language ids")
	}
	synthetic, err := parse([]byte(`{"installs":{"g":{"kind":"npm","packages":["a-ls@1.2.3","@scope/lib@4.5.6"]},"s":{"kind":"apt","packages":["a-ls-9"]}},
		"servers":[{"id":"a","command":"a","extensions":[".a"],"install":{"group":"g","bin":"a"}},{"id":"b","command":"b","extensions":[".b"],"install":{"group":"s","bin":"a-ls-9"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if v := synthetic["a"].Version(); v != "1.2.3 + @scope/lib 4.5.6" {
		t.Errorf("npm group version %q", v)
	}
	if v := synthetic["b"].Version(); v != "a-ls-9" {
		t.Errorf("apt version %q", v)
	}
	if specs["typescript7"].Enabled || !specs["gopls"].Enabled {
		t.Error("default enablement")
	}
}

// TestPinnedOnce: every package@version appears in one install group only.
func TestPinnedOnce(t *testing.T) {
	groups, err := Groups()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for name, g := range groups {
		for _, p := range g.Packages {
			if other, ok := seen[p]; ok {
				t.Errorf("%s is pinned by %s and %s", p, other, name)
			}
			seen[p] = name
		}
	}
}

func TestParseErrors(t *testing.T) {
	for doc, want := range map[string]string{
		`{"installs":{},"servers":[{"id":"a","language":"x","command":"a"}]}`:                                        "incomplete server",
		`{"installs":{},"servers":[{"id":"a","command":"a","extensions":[".a"],"install":{"group":"g","bin":"a"}}]}`: "unknown install group g",
		`{"installs":{"g":{"kind":"npm","packages":[],"requires":["h"]}},"servers":[]}`:                              "requires unknown group h",
		`{"installs":{},"servers":[],"extra":1}`:                                                                     "unknown",
	} {
		if _, err := parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}

// TestServers: the configuration overrides built-ins by id and adds servers.
func TestServers(t *testing.T) {
	cfg, err := config.Parse([]byte(`{"lsp": {"servers": {"eslint": {"enabled": false},
		"gopls": {"command": "/opt/gopls"},
		"luau": {"command": "luau-lsp", "args": ["lsp"], "extensions": [".LUAU"], "env": {"A": "b"}, "settings": {"y": 2}},
		"mine": {"command": "my-ls", "extensions": [".my"]}}}}`), "lspkit.json")
	if err != nil {
		t.Fatal(err)
	}
	specs, err := Servers(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if specs["eslint"].Enabled {
		t.Error("eslint still enabled")
	}
	if g := specs["gopls"]; g.Command != "/opt/gopls" || g.Install != nil || !g.Enabled {
		t.Errorf("gopls: %+v", g)
	}
	luau := specs["luau"]
	if luau.Command != "luau-lsp" || strings.Join(luau.Args, " ") != "lsp" || luau.Env["A"] != "b" || string(luau.Settings) != `{"y":2}` || !luau.Serves("/x/a.luau") {
		t.Fatalf("luau: %+v", luau)
	}
	if m := specs["mine"]; m.Language != "mine" || !m.Enabled || !m.Serves("a.my") {
		t.Fatalf("mine: %+v", m)
	}
	builtins, _ := Builtins()
	if !builtins["eslint"].Enabled {
		t.Fatal("Servers changed the built-ins")
	}
}

// TestResolveHostEntries: LLxprt Code's server entries, which name its own
// ids and no file types: "ts" running typescript-language-server
// configures the built-in typescript, "python" the built-in pylsp (turned
// on: the host asked for it), an
// entry with neither a built-in's command nor a known id is left out with
// a note, and nothing else is added.
func TestResolveHostEntries(t *testing.T) {
	b, err := config.ParseBootstrap("LSP_BOOTSTRAP", `{"workspaceRoot": "/w", "config": {"servers": [
		{"id": "ts", "command": "/usr/local/bin/typescript-language-server", "args": ["--stdio", "--log-level", "4"]},
		{"id": "python", "command": "pylsp"},
		{"id": "odd", "command": "odd-ls"}]}}`)
	if err != nil {
		t.Fatal(err)
	}
	specs, notes, err := Resolve(b.Apply(config.Default()))
	if err != nil {
		t.Fatal(err)
	}
	builtins, _ := Builtins()
	if len(specs) != len(builtins) {
		t.Errorf("%d servers, want the %d built-ins", len(specs), len(builtins))
	}
	if ts := specs["typescript"]; ts.Command != "/usr/local/bin/typescript-language-server" || strings.Join(ts.Args, " ") != "--stdio --log-level 4" || !ts.Enabled || !ts.Serves("a.ts") {
		t.Errorf("typescript: %+v", ts)
	}
	if py := specs["pylsp"]; py == nil || py.Command != "pylsp" || !py.Serves("a.py") || !py.Enabled {
		t.Errorf("pylsp: %+v", py)
	}
	want := []string{
		"servers.odd: ignored: it names no file types (extensions), and neither its id nor its command odd-ls is a built-in server's",
		"servers.python: configures the built-in pylsp (the same command, pylsp)",
		"servers.ts: configures the built-in typescript (the same command, typescript-language-server)",
	}
	var got []string
	for _, n := range notes {
		got = append(got, n.Text)
		if n.Ignored != strings.Contains(n.Text, "ignored") {
			t.Errorf("%s: Ignored %v", n.Text, n.Ignored)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestStore: commands are found on PATH and in bin/; a group counts as
// installed when its marker names its pinned packages and its command is
// linked; ${servers} expands to the store.
func TestStore(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir, nil)
	specs, _ := Builtins()
	yaml := specs["yaml"]
	if _, ok := s.Find(yaml); ok && os.Getenv("PATH") == "" {
		t.Fatal("found without PATH")
	}
	if s.Installed(yaml) && !strings.Contains(os.Getenv("PATH"), "lspkit") {
		if _, ok := s.Find(yaml); !ok {
			t.Fatal("installed without its command")
		}
	}
	marker := filepath.Join(dir, "npm", "yaml", ".installed")
	os.MkdirAll(filepath.Dir(marker), 0o755)
	os.WriteFile(marker, []byte("yaml-language-server@0.0.1\n"), 0o644)
	if s.groupInstalled(yaml.Install.From) {
		t.Fatal("an old version's marker counts as installed")
	}
	os.WriteFile(marker, []byte(strings.Join(yaml.Install.From.Packages, " ")+"\n"), 0o644)
	if !s.groupInstalled(yaml.Install.From) {
		t.Fatal("the pinned marker does not count")
	}
	target := filepath.Join(dir, "npm", "yaml", "node_modules", ".bin", yaml.Install.Bin)
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("#!/bin/sh\n"), 0o755)
	if err := s.link(yaml.Install, yaml.Command); err != nil {
		t.Fatal(err)
	}
	if !s.Installed(yaml) {
		t.Fatal("linked and marked, not installed")
	}
	if p, ok := s.Find(yaml); !ok || (!strings.HasPrefix(p, dir) && !strings.Contains(p, "yaml-language-server")) {
		t.Fatalf("find: %s %v", p, ok)
	}
	quoted := strconv.Quote(dir) // a Windows path's backslashes are escaped in JSON
	if got := string(s.Expand([]byte(`{"p":"${servers}/x"}`))); got != `{"p":`+strings.TrimSuffix(quoted, `"`)+`/x"}` {
		t.Fatalf("expand: %s", got)
	}
}

// TestAlternatives: a command that is absent is found by its first
// alternative present (clangd-19 for clangd); a configured command drops
// the built-in's alternatives.
func TestAlternatives(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	present := "sh" // a command every system of the tests has
	if runtime.GOOS == "windows" {
		present = "cmd"
	}
	spec := &Spec{ID: "x", Command: "lspkit-no-such-command", Alternatives: []string{"lspkit-no-such-command-19", present}}
	p, ok := s.Find(spec)
	if !ok || !strings.EqualFold(strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), present) {
		t.Fatalf("Find = %q, %v; want %s", p, ok, present)
	}
	spec.Alternatives = nil
	if p, ok := s.Find(spec); ok {
		t.Fatalf("Find without alternatives = %q", p)
	}
	builtins, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	if clangd := builtins["clangd"]; !slices.Contains(clangd.Alternatives, "clangd-19") {
		t.Errorf("clangd alternatives %v lack clangd-19", clangd.Alternatives)
	}
	cfg, err := config.Parse([]byte(`{"lsp": {"servers": {"clangd": {"command": "my-clangd"}}}}`), "t")
	if err != nil {
		t.Fatal(err)
	}
	specs, err := Servers(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range specs {
		if sp.ID == "clangd" && (sp.Command != "my-clangd" || len(sp.Alternatives) != 0) {
			t.Errorf("configured clangd: command %q alternatives %v", sp.Command, sp.Alternatives)
		}
	}
}

// TestRojoSidecarDefault: luau with sourcemap autogeneration and a Rojo
// project gets the rojo sidecar (nested or dotted keys); an explicit
// sidecar wins; other servers get none.
func TestRojoSidecarDefault(t *testing.T) {
	for opts, want := range map[string]string{
		`{"luau-lsp": {"sourcemap": {"autogenerate": true, "rojoProjectFile": "game.project.json"}}}`: "rojo sourcemap game.project.json --watch -o sourcemap.json",
		`{"luau-lsp.sourcemap.autogenerate": true, "luau-lsp.sourcemap.rojoProjectFile": "a.json"}`:   "rojo sourcemap a.json --watch -o sourcemap.json",
		`{"luau-lsp": {"sourcemap": {"autogenerate": false, "rojoProjectFile": "a.json"}}}`:           "",
		`{"luau-lsp": {"sourcemap": {"autogenerate": true}}}`:                                         "",
	} {
		specs, err := Servers(config.Config{Servers: map[string]config.ServerConfig{"luau": {InitializationOptions: jsontext.Value(opts)}}})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if sc := specs["luau"].Sidecar; sc != nil {
			got = strings.Join(sc.Command, " ")
		}
		if got != want {
			t.Errorf("%s: sidecar %q, want %q", opts, got, want)
		}
	}
	specs, _ := Servers(config.Config{Servers: map[string]config.ServerConfig{"luau": {
		InitializationOptions: jsontext.Value(`{"luau-lsp": {"sourcemap": {"autogenerate": true, "rojoProjectFile": "a.json"}}}`),
		Sidecar:               &config.Sidecar{Command: []string{"my-rojo"}},
	}}})
	if sc := specs["luau"].Sidecar; sc == nil || sc.Command[0] != "my-rojo" {
		t.Errorf("explicit sidecar: %+v", sc)
	}
	if specs["gopls"].Sidecar != nil {
		t.Error("gopls got a sidecar")
	}
}

// TestPerOSNames: the names a command's executable has, and where a
// system's toolchain keeps clangd, per system — whatever system runs the
// test.
func TestPerOSNames(t *testing.T) {
	if got := strings.Join(executableNames("gopls", "windows"), " "); got != "gopls.exe gopls.cmd gopls.bat gopls" {
		t.Errorf("windows: %s", got)
	}
	for _, goos := range []string{"linux", "darwin", "freebsd"} {
		if got := executableNames("gopls", goos); len(got) != 1 || got[0] != "gopls" {
			t.Errorf("%s: %v", goos, got)
		}
	}
	if got := systemPaths("clangd", "darwin"); len(got) == 0 || !strings.Contains(got[1], "XcodeDefault.xctoolchain") {
		t.Errorf("darwin clangd: %v", got)
	}
	if got := systemPaths("clangd", "windows"); len(got) != 1 || got[0] != `C:\Program Files\LLVM\bin\clangd.exe` {
		t.Errorf("windows clangd: %v", got)
	}
	if systemPaths("clangd", "linux") != nil || systemPaths("gopls", "darwin") != nil {
		t.Error("system paths where there are none")
	}
}

// TestDiagnose: what the toolchain managers' stand-ins print when the real
// program is not there for the version in force, as they print it, maps
// to the command that fixes it; a stand-in's other failures and real
// binaries are not diagnosed.
func TestDiagnose(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rustup := write("cargo/bin/rustup", "\x7fELF not a script", 0o755)
	// rustup's proxies are symbolic links to rustup, hard links on
	// Windows (where both cases are hard links).
	hard := filepath.Join(filepath.Dir(rustup), "rust-analyzer-hard")
	if err := os.Link(rustup, hard); err != nil {
		t.Fatal(err)
	}
	proxy := filepath.Join(filepath.Dir(rustup), "rust-analyzer")
	if runtime.GOOS == "windows" {
		proxy = hard
	} else if err := os.Symlink("rustup", proxy); err != nil {
		t.Fatal(err)
	}
	// pyenv's shim as pyenv writes it (pyenv rehash).
	pyenv := write("pyenv/shims/pylsp", "#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set -x\n\nprogram=\"${0##*/}\"\n\nexport PYENV_ROOT=\"/home/u/.pyenv\"\nexec \"/home/u/.pyenv/libexec/pyenv\" exec \"$program\" \"$@\"\n", 0o755)
	asdf := write("asdf/shims/lua-language-server", "#!/usr/bin/env bash\n# asdf-plugin: lua-language-server 3.7.4\nexec asdf exec \"lua-language-server\" \"$@\" # asdf_allow: ' asdf '\n", 0o755)
	mise := write("mise/shims/zls", "\x7fELF", 0o755)
	plain := write("bin/gopls", "\x7fELF", 0o755)
	for _, tc := range []struct {
		name, path string
		stderr     []string
		want       Diagnosis
	}{
		{"rustup without the component", proxy, []string{"error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'.", "", "Stack backtrace:", "   0: anyhow::kind::Adhoc::new"},
			Diagnosis{Proxy: "rustup", Missing: true, Fix: "rustup component add rust-analyzer"}},
		{"rustup, older words", proxy, []string{"error: 'rust-analyzer' is not installed for the toolchain '1.70-x86_64-unknown-linux-gnu'"},
			Diagnosis{Proxy: "rustup", Missing: true, Fix: "rustup component add rust-analyzer --toolchain 1.70-x86_64-unknown-linux-gnu"}},
		{"rustup, a toolchain not installed", proxy, []string{"error: toolchain 'nightly-x86_64-unknown-linux-gnu' is not installed"},
			Diagnosis{Proxy: "rustup", Missing: true, Fix: "rustup toolchain install nightly-x86_64-unknown-linux-gnu"}},
		{"rustup's hard link without the component", hard, []string{"error: Unknown binary 'rust-analyzer.exe' in official toolchain 'stable-x86_64-pc-windows-msvc'."},
			Diagnosis{Proxy: "rustup", Missing: true, Fix: "rustup component add rust-analyzer"}},
		{"rustup, another failure", proxy, []string{"thread 'main' panicked"}, Diagnosis{Proxy: "rustup"}},
		{"pyenv, in another version", pyenv, []string{"pyenv: pylsp: command not found", "", "The `pylsp' command exists in these Python versions:", "  3.10.13", "", "Note: See 'pyenv help global' for tips on allowing multiple", "      Python versions to be found at the same time."},
			Diagnosis{Proxy: "pyenv", Missing: true, Fix: "pip install it into the active Python, or select one that has it: pyenv global 3.10.13"}},
		{"pyenv, in none", pyenv, []string{"pyenv: pylsp: command not found"},
			Diagnosis{Proxy: "pyenv", Missing: true, Fix: "pip install pylsp into the active Python (pyenv version names it)"}},
		{"asdf, no version", asdf, []string{"No version is set for command lua-language-server", "Consider adding one of the following versions in your config file at /home/u/.tool-versions"},
			Diagnosis{Proxy: "asdf", Missing: true, Fix: "asdf set <plugin> <version> in the project (asdf list all <plugin> names them)"}},
		{"mise, no version", mise, []string{"mise ERROR No version is set for shim: zls"},
			Diagnosis{Proxy: "mise", Missing: true, Fix: "mise use <tool>@<version> in the project (mise ls-remote <tool> names them)"}},
		{"a real binary", plain, []string{"error: Unknown binary 'gopls' in official toolchain 'x'"}, Diagnosis{}},
	} {
		if got := Diagnose(tc.path, tc.stderr); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
