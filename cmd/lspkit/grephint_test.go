package main

import (
	"strings"
	"testing"

	"github.com/lspkit/lspkit/service/api"
)

// TestGrepSymbol: the Grep patterns taken for a symbol's name, and those
// left alone.
func TestGrepSymbol(t *testing.T) {
	for pattern, want := range map[string]string{
		"Greet": "Greet", `\bGreet\b`: "Greet", "func Greet": "Greet", `func\s+Greet`: "Greet", `Greet\(`: "Greet",
		`class\s*Counter`: "Counter", "def parse_args": "parse_args", "_private": "_private",
		"hello, ": "", "Greet|Counter": "", "Gre.t": "", "TODO: fix": "", "ok": "", "": "", `"Greet"`: "", "a Greet": "",
	} {
		got := ""
		if m := grepSymbol.FindStringSubmatch(pattern); m != nil && len(m[1]) >= grepHintMinLength {
			got = m[1]
		}
		if got != want {
			t.Errorf("%q: %q, want %q", pattern, got, want)
		}
	}
}

// TestGrepHintText: the hint names the symbols of that very name (a
// method by its Type.name too) and the calls to make; none for a name no
// symbol has.
func TestGrepHintText(t *testing.T) {
	symbols := []api.WorkspaceSymbol{
		{Name: "Greet", Kind: "function", File: "lib.go", Range: api.Range{StartLine: 4}},
		{Name: "Greeter", Kind: "struct", File: "lib.go", Range: api.Range{StartLine: 9}},
		{Name: "Counter.Greet", Kind: "method", File: "count.go", Range: api.Range{StartLine: 12}},
	}
	text := grepHintText("Greet", symbols)
	for _, want := range []string{`function Greet (lib.go:4), method Counter.Greet (count.go:12).`, `mcp__lspkit__lsp_find_references {"symbol": "Greet"}`, "The Grep runs as asked."} {
		if !strings.Contains(text, want) {
			t.Errorf("the hint %q does not say %q", text, want)
		}
	}
	if strings.Contains(text, "Greeter") {
		t.Errorf("the hint names another symbol: %q", text)
	}
	if text := grepHintText("Nothing", symbols); text != "" {
		t.Errorf("a hint for a name no symbol has: %q", text)
	}
}
