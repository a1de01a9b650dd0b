//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

// TestLSPOpencode: opencode as shipped (the pinned npm package) runs
// lspkit lsp as its language server for Go — its own gopls off, an "lsp"
// entry for lspkit in opencode.json, as docs/lsp-proxy.md's recipe writes
// it — and `opencode debug lsp diagnostics` reports the finding lspkit
// check reports, at the same place. lspkit reads the same opencode.json:
// it does not take its own entry as a server, nor opencode's gopls off as
// its own. No process is left in the project after either.
func TestLSPOpencode(t *testing.T) {
	hostsBin := os.Getenv("LSPKIT_HOSTS")
	if hostsBin == "" {
		t.Skip("LSPKIT_HOSTS (the hosts' node_modules/.bin) not set: scripts/test-hosts.sh runs this test")
	}
	serversEnv(t)
	home := t.TempDir()
	proj, err := os.MkdirTemp("", "opencodelsp")
	if err != nil {
		t.Fatal(err)
	}
	proj, _ = filepath.EvalSymlinks(proj)
	t.Cleanup(func() {
		noProcessesIn(t, proj)
		os.RemoveAll(proj)
	})
	writeFiles(t, proj, hostProject)
	writeFiles(t, proj, map[string]string{"opencode.json": `{
  "$schema": "https://opencode.ai/config.json",
  "lsp": {
    "gopls": {"disabled": true},
    "lspkit": {"command": ["lspkit", "lsp"], "extensions": [".go"]}
  }
}
`})
	env := hostEnv(t, home, hostsBin)
	main := filepath.Join(proj, "main.go")
	var got map[string][]struct {
		Range struct {
			Start struct {
				Line      int `json:"line"`
				Character int `json:"character"`
			} `json:"start"`
		} `json:"range"`
		Message string `json:"message"`
		Source  string `json:"source"`
	}
	// opencode waits a bounded time of its own for a file's diagnostics
	// after opening it (waitForDiagnostics): on a loaded machine a cold
	// gopls (started by lspkit lsp) can take longer, and opencode then
	// reports none. That is opencode's clock,
	// not lspkit's answer: a run that reports nothing is run again (gopls
	// starts warmer from its file cache), at most three times.
	var out string
	for attempt := 1; ; attempt++ {
		var err error
		out, err = host(t, env, proj, "", "opencode", "debug", "lsp", "diagnostics", main)
		if err != nil {
			t.Fatalf("opencode debug lsp diagnostics: %v\n%s", err, out)
		}
		got = nil
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &got); err != nil {
			t.Fatalf("opencode's answer: %v\n%s", err, out)
		}
		if len(got) > 0 || attempt == 3 {
			break
		}
		t.Logf("opencode reported no diagnostics within its own wait (run %d); running it again", attempt)
	}

	checked, err := host(t, env, proj, "", "lspkit", "check", "--json", "main.go")
	var want struct {
		Diagnostics []struct {
			Line      int    `json:"line"`
			Character int    `json:"character"`
			Message   string `json:"message"`
		} `json:"diagnostics"`
	}
	if i := strings.Index(checked, "\n{"); i >= 0 { // after the configuration's notes on stderr
		checked = checked[i+1:]
	}
	if jerr := json.Unmarshal([]byte(checked), &want); jerr != nil || len(want.Diagnostics) != 1 {
		t.Fatalf("lspkit check: %v %v\n%s", err, jerr, checked)
	}
	ds := got[main]
	if len(got) != 1 || len(ds) != 1 {
		t.Fatalf("opencode reports %s, want main.go's one finding", out)
	}
	w := want.Diagnostics[0]
	if ds[0].Message != w.Message || ds[0].Range.Start.Line != w.Line-1 || ds[0].Range.Start.Character != w.Character-1 {
		t.Errorf("opencode through lspkit lsp: %d:%d %q; lspkit check: %d:%d %q", ds[0].Range.Start.Line+1, ds[0].Range.Start.Character+1, ds[0].Message, w.Line, w.Character, w.Message)
	}
}
