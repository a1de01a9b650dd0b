//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	lspskills "github.com/lspkit/lspkit/service/skills"
)

// The budgets of what lspkit's tool list costs every model request that
// carries it, in o200k_base tokens of tools/list as sent, and what the
// tools a host keeps loaded (anthropic/alwaysLoad) cost together.
const (
	toolListBudget         = 4000
	readOnlyToolListBudget = 2500
	alwaysLoadBudget       = 1500
	maxAlwaysLoad          = 5
	maxFirstSentence       = 80
	skillListBudget        = 300
)

// toolCount is count.mjs's answer.
type toolCount struct {
	Tokens int `json:"tokens"`
	Chars  int `json:"chars"`
	Tools  map[string]struct {
		Tokens      int    `json:"tokens"`
		Description string `json:"description"`
		SearchHint  string `json:"searchHint"`
		AlwaysLoad  bool   `json:"alwaysLoad"`
	} `json:"tools"`
}

// countTools runs testdata/tokens/count.mjs (js-tiktoken, installed by
// scripts/test.sh, which sets LSPKIT_TIKTOKEN to its node_modules) against
// `lspkit mcp args…` in root.
func countTools(t *testing.T, root string, args ...string) toolCount {
	t.Helper()
	modules := os.Getenv("LSPKIT_TIKTOKEN")
	if modules == "" {
		if os.Getenv("LSPKIT_REQUIRE_SERVERS") != "" {
			t.Fatal("LSPKIT_TIKTOKEN is not set: run scripts/test.sh, which installs js-tiktoken")
		}
		t.Skip("LSPKIT_TIKTOKEN is not set (scripts/test.sh installs js-tiktoken)")
	}
	script, _ := filepath.Abs(filepath.Join("testdata", "tokens", "count.mjs"))
	cmd := exec.Command("node", append([]string{script, lspkitBin}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "LSPKIT_TIKTOKEN="+modules, "LSPKIT_LOG=error")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("count.mjs: %v\n%s", err, out)
	}
	var c toolCount
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("count.mjs printed %q: %v", out, err)
	}
	return c
}

// TestToolListTokens: what lspkit's tool list costs each model request —
// every tool ≤ 4,000 o200k tokens as sent, the read-only list ≤ 2,500 —
// with each description opening on a sentence of at most 80 characters,
// every tool a search hint, and at most five tools kept loaded
// (anthropic/alwaysLoad), together ≤ 1,500 tokens: the next tool cannot
// quietly spend the budget.
func TestToolListTokens(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"lspkit.json": noInstall("")})
	all := countTools(t, root)
	readOnly := countTools(t, root, "--read-only")
	t.Logf("tools/list: %d tools, %d tokens (%d characters); --read-only: %d tools, %d tokens", len(all.Tools), all.Tokens, all.Chars, len(readOnly.Tools), readOnly.Tokens)
	if all.Tokens > toolListBudget {
		t.Errorf("tools/list is %d tokens, over its budget of %d", all.Tokens, toolListBudget)
	}
	if readOnly.Tokens > readOnlyToolListBudget {
		t.Errorf("tools/list --read-only is %d tokens, over its budget of %d", readOnly.Tokens, readOnlyToolListBudget)
	}
	loaded, loadedTokens := 0, 0
	for name, tool := range all.Tools {
		first := tool.Description
		if i := strings.IndexAny(first, ".?"); i >= 0 {
			first = first[:i]
		}
		if n := len([]rune(first)); n > maxFirstSentence {
			t.Errorf("%s: its first sentence is %d characters (at most %d): %q", name, n, maxFirstSentence, first)
		}
		if strings.TrimSpace(tool.SearchHint) == "" {
			t.Errorf("%s: no anthropic/searchHint", name)
		}
		if tool.AlwaysLoad {
			loaded++
			loadedTokens += tool.Tokens
		}
	}
	if loaded == 0 || loaded > maxAlwaysLoad || loadedTokens > alwaysLoadBudget {
		t.Errorf("%d tools kept loaded, %d tokens together: want 1 to %d, at most %d tokens", loaded, loadedTokens, maxAlwaysLoad, alwaysLoadBudget)
	}
	// The skills as a host lists them for the model: a name and a
	// description each.
	var list strings.Builder
	for _, s := range lspskills.All() {
		fmt.Fprintf(&list, "- %s: %s\n", s.Name, s.Description)
	}
	if n := tokens(t, list.String()); n > skillListBudget {
		t.Errorf("the skills' list is %d tokens, over %d", n, skillListBudget)
	} else {
		t.Logf("the skills' list: %d tokens", n)
	}
}
