//go:build linux

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

// TestClaudePlugin: the repo's Claude Code plugin (.claude-plugin's
// marketplace, plugins/claude-code) runs lspkit from PATH — its MCP
// server shared, the hooks as lspkit init writes them, and
// lspkit lsp for every file type a built-in server handles (the map
// below; -update rewrites it from servers.json).
func TestClaudePlugin(t *testing.T) {
	builtin, err := builtinLanguages()
	if err != nil {
		t.Fatal(err)
	}
	languages := map[string]any{}
	for ext, id := range builtin {
		languages[ext] = id
	}
	// The hooks as lspkit init writes them: before and after every tool,
	// and at the end of the turn.
	hook := func(matcher bool) map[string]any {
		e := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "lspkit hook claude-code", "timeout": 120.0}}}
		if matcher {
			e["matcher"] = "*"
		}
		return e
	}
	want := map[string]any{
		"name":        "lspkit",
		"description": "Language servers' findings after every edit, navigation by symbol, renames and fixes, fresh after each edit, through lspkit (it runs lspkit from PATH)",
		"homepage":    "https://github.com/lspkit/lspkit",
		"repository":  "https://github.com/lspkit/lspkit",
		"mcpServers":  map[string]any{"lspkit": map[string]any{"command": "lspkit", "args": []any{"mcp", "--shared"}}},
		"hooks":       map[string]any{"PreToolUse": []any{hook(true)}, "PostToolUse": []any{hook(true)}, "Stop": []any{hook(false)}},
		"lspServers":  map[string]any{"lspkit": map[string]any{"command": "lspkit", "args": []any{"lsp", "--shared"}, "extensionToLanguage": languages}},
	}
	path := filepath.Join("..", "..", "plugins", "claude-code", ".claude-plugin", "plugin.json")
	if *update {
		out, err := json.Marshal(want, jsontext.WithIndent("  "), json.Deterministic(true))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s differs from what lspkit wants it to be (go test ./cmd/lspkit -run TestClaudePlugin -update rewrites it):\n%s", path, d)
	}
	var market struct {
		Plugins []struct {
			Name   string `json:"name"`
			Source string `json:"source"`
		} `json:"plugins"`
	}
	data, err = os.ReadFile(filepath.Join("..", "..", ".claude-plugin", "marketplace.json"))
	if err != nil || json.Unmarshal(data, &market) != nil || len(market.Plugins) != 1 || market.Plugins[0].Source != "./plugins/claude-code" {
		t.Errorf("marketplace.json: %+v %v", market, err)
	}
}
