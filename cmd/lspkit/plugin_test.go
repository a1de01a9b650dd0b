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
// server shared, the after-edit hook and the Grep hint as lspkit init
// --shared writes them, and
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
	want := map[string]any{
		"name":        "lspkit",
		"description": "Language servers' findings after every edit, navigation by symbol, renames and fixes, fresh after each edit, through lspkit (it runs lspkit from PATH)",
		"homepage":    "https://github.com/lspkit/lspkit",
		"repository":  "https://github.com/lspkit/lspkit",
		"mcpServers":  map[string]any{"lspkit": map[string]any{"command": "lspkit", "args": []any{"mcp", "--shared"}}},
		"hooks": map[string]any{"PostToolUse": []any{map[string]any{
			"matcher": "Edit|MultiEdit|Write|NotebookEdit",
			"hooks":   []any{map[string]any{"type": "command", "command": "lspkit hook claude-code --shared"}},
		}}, "PreToolUse": []any{map[string]any{
			"matcher": "Grep",
			"hooks":   []any{map[string]any{"type": "command", "command": "lspkit hook claude-code --shared"}},
		}}},
		"lspServers": map[string]any{"lspkit": map[string]any{"command": "lspkit", "args": []any{"lsp", "--shared"}, "extensionToLanguage": languages}},
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
