package hostconfig

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"
	"github.com/tailscale/hujson"
)

// TestNextHosts: each host's files hold lspkit's entries in the shape the
// host reads (hosts.md, observed with the hosts as shipped; Crush's and
// Antigravity's from their documentation), its MCP server and, where the
// host has an LSP client of its own, `lspkit lsp` for the extensions
// lspkit's servers serve; a second init changes nothing; and the step
// names what the host leaves to its user.
func TestNextHosts(t *testing.T) {
	languages := map[string]string{".go": "go", ".py": "python", ".ts": "typescript"}
	mcp := map[string]any{"command": "lspkit", "args": []any{"mcp", "--shared"}}
	with := func(m map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	lsp := []any{"lsp", "--shared"}
	// hook is a hook entry of Claude Code's shape running lspkit's hook
	// for host; matcher "" is none (a turn's end).
	hook := func(host, matcher string, timeout float64) []any {
		e := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "lspkit hook " + host, "timeout": timeout}}}
		if matcher != "" {
			e["matcher"] = matcher
		}
		return []any{e}
	}
	copilot := func(event string) []any {
		return []any{map[string]any{"type": "command", "bash": "lspkit hook copilot " + event, "powershell": "lspkit hook copilot " + event, "timeoutSec": 120.0}}
	}
	for _, tc := range []struct {
		host  string
		files map[string]map[string]any // file → JSON pointer-ish path ("a/b") → value
		step  string
	}{
		{"copilot", map[string]map[string]any{
			".github/mcp.json":          {"mcpServers/lspkit": with(mcp, "type", "local", "tools", []any{"*"})},
			".github/lsp.json":          {"lspServers/lspkit": map[string]any{"command": "lspkit", "args": lsp, "fileExtensions": map[string]any{".go": "go", ".py": "python", ".ts": "typescript"}}},
			".github/hooks/lspkit.json": {"version": 1.0, "hooks/preToolUse": copilot("preToolUse"), "hooks/postToolUse": copilot("postToolUse"), "hooks/agentStop": copilot("agentStop")},
		}, "--trust-folder"},
		{"qwen", map[string]map[string]any{
			".qwen/settings.json": {"mcpServers/lspkit": mcp, "hooks/PreToolUse": hook("qwen", "*", 120), "hooks/PostToolUse": hook("qwen", "*", 120), "hooks/Stop": hook("qwen", "", 120)},
			".lsp.json":           {"lspkit": map[string]any{"command": "lspkit", "args": lsp, "extensionToLanguage": map[string]any{".go": "go", ".py": "python", ".ts": "typescript"}}},
		}, "qwen mcp approve lspkit"},
		{"kilo", map[string]map[string]any{
			"kilo.json": {
				"mcp/lspkit": map[string]any{"type": "local", "command": []any{"lspkit", "mcp", "--shared", "--read-only"}, "enabled": true},
				"lsp":        nil, // lspkit's plugin tells the model what its edits broke, once (--no-hooks writes lspkit lsp instead)
			},
			".kilo/plugins/lspkit.js": {"": `const command = ["lspkit", "hook", "kilo"];`},
		}, "--read-only"},
		{"droid", map[string]map[string]any{
			".factory/mcp.json":      {"mcpServers/lspkit": with(mcp, "type", "stdio")},
			".factory/settings.json": {"hooks/PreToolUse": hook("droid", "*", 120), "hooks/PostToolUse": hook("droid", "*", 120), "hooks/Stop": hook("droid", "", 120)},
		}, "droid mcp list"},
		{"crush", map[string]map[string]any{
			"crush.json": {
				"$schema":    "https://charm.land/crush.json",
				"mcp/lspkit": with(mcp, "type", "stdio"),
				"lsp/lspkit": map[string]any{"command": "lspkit", "args": lsp, "filetypes": []any{"go", "py", "ts"}},
			},
		}, "--yolo"},
		{"antigravity", map[string]map[string]any{
			".agents/mcp_config.json": {"mcpServers/lspkit": mcp},
		}, filepath.Join(".gemini", "config", "mcp_config.json")},
	} {
		t.Run(tc.host, func(t *testing.T) {
			o := opts(t, tc.host)
			o.Languages = languages
			res, err := Init(o)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Changes) != len(tc.files) {
				t.Fatalf("changed %d files, want %d: %+v", len(res.Changes), len(tc.files), res.Changes)
			}
			for _, c := range res.Changes {
				if c.Action != "created" {
					t.Errorf("%s: %s, want created", c.File, c.Action)
				}
			}
			for file, want := range tc.files {
				text := read(t, filepath.Join(o.Root, filepath.FromSlash(file)))
				if line, ok := want[""].(string); ok { // a file of lspkit's own, whole
					if !strings.HasPrefix(text, pluginMarker) || !strings.Contains(text, line) {
						t.Errorf("%s:\n%s\nwant lspkit's plugin with %s", file, text, line)
					}
					continue
				}
				if filepath.Ext(file) == ".json" {
					// A file init created holds only lspkit's entries, every one indented: none on the line of another.
					if long := slices.IndexFunc(strings.Split(text, "\n"), func(l string) bool { return strings.Count(l, "\":") > 1 }); long >= 0 {
						t.Errorf("%s: line %d holds more than one member:\n%s", file, long+1, text)
					}
				}
				std, err := hujson.Standardize([]byte(text))
				if err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				var doc map[string]any
				if err := json.Unmarshal(std, &doc); err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				for path, v := range want {
					var got any = doc
					for _, k := range strings.Split(path, "/") {
						m, _ := got.(map[string]any)
						got = m[k]
					}
					if d := cmp.Diff(v, got); d != "" {
						t.Errorf("%s %s:\n%s", file, path, d)
					}
				}
			}
			if !strings.Contains(res.Step, tc.step) {
				t.Errorf("step %q does not say %q", res.Step, tc.step)
			}
			again, err := Init(o)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range again.Changes {
				if c.Action != "unchanged" {
					t.Errorf("second init: %s %s", c.File, c.Action)
				}
			}
		})
	}
}

// TestGeminiSaysWhich: --host gemini names the Gemini CLI and where most
// of its users went.
func TestGeminiSaysWhich(t *testing.T) {
	res, err := Init(opts(t, "gemini"))
	if err != nil || !strings.Contains(res.Step, "Gemini CLI (@google/gemini-cli)") || !strings.Contains(res.Step, "--host antigravity") {
		t.Fatalf("%q %v", res.Step, err)
	}
}

// TestRemoteEntries: with URL, each host that takes an HTTP server gets
// its own shape of entry — the token by LSPKIT_TOKEN, in the host's way of
// naming a variable — in the file it reads; a host lspkit writes no HTTP
// entry for is refused, naming those it does.
func TestRemoteEntries(t *testing.T) {
	const url = "http://127.0.0.1:7777/mcp"
	for _, tc := range []struct {
		host, file, path string
		want             any
	}{
		{"claude-code", ".mcp.json", "mcpServers/lspkit", map[string]any{"type": "http", "url": url, "headers": map[string]any{"Authorization": "Bearer ${LSPKIT_TOKEN}"}}},
		{"gemini", ".gemini/settings.json", "mcpServers/lspkit", map[string]any{"httpUrl": url, "headers": map[string]any{"Authorization": "Bearer $LSPKIT_TOKEN"}}},
		{"opencode", "opencode.json", "mcp/lspkit", map[string]any{"type": "remote", "url": url, "headers": map[string]any{"Authorization": "Bearer {env:LSPKIT_TOKEN}"}, "enabled": true}},
		{"cursor", ".cursor/mcp.json", "mcpServers/lspkit", map[string]any{"url": url, "headers": map[string]any{"Authorization": "Bearer ${env:LSPKIT_TOKEN}"}}},
	} {
		t.Run(tc.host, func(t *testing.T) {
			o := opts(t, tc.host)
			o.URL, o.Shared = url, false
			res, err := Init(o)
			if err != nil || len(res.Changes) != 1 || !strings.Contains(res.Step, "LSPKIT_TOKEN") {
				t.Fatalf("%+v %v", res, err)
			}
			var doc map[string]any
			std, _ := hujson.Standardize([]byte(read(t, filepath.Join(o.Root, tc.file))))
			if err := json.Unmarshal(std, &doc); err != nil {
				t.Fatal(err)
			}
			var got any = doc
			for _, k := range strings.Split(tc.path, "/") {
				m, _ := got.(map[string]any)
				got = m[k]
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s %s:\n%s", tc.file, tc.path, d)
			}
		})
	}
	o := opts(t, "codex")
	o.URL, o.Shared = url, false
	if _, err := Init(o); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(o.Root, ".codex", "config.toml")); got != "[mcp_servers.lspkit]\nbearer_token_env_var = 'LSPKIT_TOKEN'\nurl = '"+url+"'\n" {
		t.Errorf("codex:\n%s", got)
	}
	o = opts(t, "copilot")
	o.URL = url
	if _, err := Init(o); err == nil || !strings.Contains(err.Error(), "lspkit writes no HTTP entry for GitHub Copilot CLI yet (it does for claude-code, codex, gemini, opencode, cursor)") {
		t.Errorf("copilot --url: %v", err)
	}
}
