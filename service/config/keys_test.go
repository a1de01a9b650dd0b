package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// document places value at a key's path in an lspkit.json document (a
// server key under a server "mine" that has a command).
func document(path, value string) string {
	parts := strings.Split(strings.TrimPrefix(path, "lsp."), ".")
	if parts[0] == "servers" && len(parts) > 2 {
		server := `"command": "x"`
		switch {
		case len(parts) == 4 && parts[3] == "command":
			server += `, "sidecar": {"command": ` + value + `}`
		case len(parts) == 4:
			server += `, "sidecar": {"command": ["y"], "` + parts[3] + `": ` + value + `}`
		case parts[2] != "command":
			server += `, "` + parts[2] + `": ` + value
		default:
			server = `"command": ` + value
		}
		return `{"lsp": {"servers": {"mine": {` + server + `}}}}`
	}
	if len(parts) == 2 {
		return `{"lsp": {"` + parts[0] + `": {"` + parts[1] + `": ` + value + `}}}`
	}
	return `{"lsp": {"` + parts[0] + `": ` + value + `}}`
}

// TestKeysParse: every key Keys lists is one Parse accepts, with its
// example, and UnknownKeys finds nothing in such a document.
func TestKeysParse(t *testing.T) {
	for _, k := range Keys() {
		doc := document(k.Path, k.Example)
		if _, err := Parse([]byte(doc), "lspkit.json"); err != nil {
			t.Errorf("%s: example %s: %v", k.Path, doc, err)
		}
		if u := UnknownKeys([]byte(doc)); len(u) > 0 {
			t.Errorf("%s: UnknownKeys(%s) = %v", k.Path, doc, u)
		}
		if k.Type == "" || k.Meaning == "" {
			t.Errorf("%s: no type or meaning", k.Path)
		}
	}
}

// TestKeysDefaults: every default Keys states is the real one — a
// document setting each key to its stated default parses to Default().
func TestKeysDefaults(t *testing.T) {
	for _, k := range Keys() {
		if k.Default == "" {
			continue
		}
		cfg, err := Parse([]byte(document(k.Path, k.Default)), "lspkit.json")
		if err != nil {
			t.Errorf("%s: default %s: %v", k.Path, k.Default, err)
			continue
		}
		if d := cmp.Diff(Default(), cfg, cmpopts.IgnoreFields(Config{}, "Source")); d != "" {
			t.Errorf("%s: stated default %s is not the default (-real +stated):\n%s", k.Path, k.Default, d)
		}
	}
}

// TestUnknownKeys: every key lspkit does not know is named, at every
// level; Parse refuses the same keys.
func TestUnknownKeys(t *testing.T) {
	doc := `{"$schema": "x", "lps": 1, "lsp": {"diagnosticTimout": 5, "restart": {"max": 1},
		"servers": {"gopls": {"cmd": "gopls", "env": {"ANY": "thing"}, "sidecar": {"command": ["a"], "cwd": "/"}}}}}`
	want := []string{"lps", "lsp.diagnosticTimout", "lsp.restart.max", "lsp.servers.gopls.cmd", "lsp.servers.gopls.sidecar.cwd"}
	got := UnknownKeys([]byte(doc))
	slices.Sort(got)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("UnknownKeys (-want +got):\n%s", d)
	}
	for _, bad := range []string{
		`{"lsp": {"diagnosticTimout": 5}}`,
		`{"lsp": {"restart": {"max": 1}}}`,
		`{"lsp": {"servers": {"gopls": {"cmd": "gopls"}}}}`,
		`{"lsp": {"servers": {"gopls": {"sidecar": {"command": ["a"], "cwd": "/"}}}}}`,
	} {
		if _, err := Parse([]byte(bad), "lspkit.json"); err == nil || !strings.Contains(err.Error(), "unknown key") {
			t.Errorf("Parse(%s) = %v, want an unknown key error", bad, err)
		}
	}
	if u := UnknownKeys([]byte(`{"lsp": false}`)); len(u) != 0 {
		t.Errorf("UnknownKeys of lsp false = %v", u)
	}
}
