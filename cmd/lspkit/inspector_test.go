//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/lspkit/lspkit/service/mcpserver"
)

// inspector returns the official MCP Inspector's command
// (@modelcontextprotocol/inspector, installed by scripts/test.sh, which
// sets LSPKIT_INSPECTOR); it skips without it, or fails where servers are
// required.
func inspector(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("LSPKIT_INSPECTOR")
	if bin == "" {
		if os.Getenv("LSPKIT_REQUIRE_SERVERS") != "" {
			t.Fatal("LSPKIT_INSPECTOR is not set: run scripts/test.sh, which installs the MCP Inspector")
		}
		t.Skip("LSPKIT_INSPECTOR is not set (scripts/test.sh installs the MCP Inspector)")
	}
	return bin
}

// inspect runs the Inspector's CLI against `lspkit mcp` in root and
// returns its standard output and error.
func inspect(t *testing.T, bin, root string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append([]string{"--cli"}, args...), "--cwd", root, lspkitBin, "mcp")...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// inspectorTool is a tool as the Inspector lists it.
type inspectorTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  struct {
		Title        string `json:"title"`
		ReadOnlyHint *bool  `json:"readOnlyHint"`
	} `json:"annotations"`
}

// TestInspector lists and calls every tool through the official MCP
// Inspector CLI: its strict schema report is empty, every schema property
// has a concrete type, every tool has a title and annotations, and every
// call's structured content validates against the tool's output schema.
func TestInspector(t *testing.T) {
	bin := inspector(t)
	root := mcpFixture(t, `{"lsp":{"autoInstall":false,"mcpStructuredContent":true}}`)
	writeFiles(t, root, map[string]string{
		"shape.go": "package demo\n\ntype Shape interface{ Area() int }\n\ntype Square struct{ side int }\n\nfunc (s Square) Area() int { return s.side * s.side }\n\nfunc One() int {\n\tsq := Square{side: 2}\n\treturn sq.Area() + len(Use())\n}\n",
	})
	out, stderr, err := inspect(t, bin, root, "--strict", "--method", "tools/list")
	if err != nil || strings.Contains(stderr, "Warning") || strings.Contains(stderr, "Error") {
		t.Fatalf("tools/list --strict: %v\n%s", err, stderr)
	}
	var list struct {
		Tools []inspectorTool `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	calls := map[string][]string{
		"lsp_status":                nil,
		"lsp_check_file":            {"file=use.go"},
		"lsp_diagnostics":           {"file=use.go"},
		"lsp_workspace_diagnostics": nil,
		"lsp_goto_definition":       {"file=use.go", "line=3", "symbol=Greeting"},
		"lsp_goto_type_definition":  {"file=shape.go", "line=10", "symbol=sq"},
		"lsp_goto_implementation":   {"file=shape.go", "line=3", "symbol=Shape"},
		"lsp_find_references":       {"file=lib.go", "line=4", "symbol=Greeting"},
		"lsp_call_hierarchy":        {"file=use.go", "line=3", "symbol=Use", "direction=incoming"},
		"lsp_hover":                 {"file=use.go", "line=3", "symbol=Greeting"},
		"lsp_document_symbols":      {"file=shape.go"},
		"lsp_workspace_symbols":     {"query=Greeting"},
		"lsp_rename":                {"file=lib.go", "line=4", "symbol=Greeting", "newName=Welcome"},
		"lsp_code_actions":          {"file=use.go", "line=3"},
		"lsp_apply_code_action":     {"id=a999"}, // each call is a session of its own: no id listed, a tool error
		"lsp_format":                {"file=use.go"},
		"lsp_fix_all":               {"file=use.go"},
		"lsp_replace_symbol_body":   {"symbol=Greeting", `body={ return 1 }`},                                                       // a new error: nothing written
		"lsp_insert_before_symbol":  {"symbol=Greeting", `text=var broken int = "s"`},                                               // a new error: nothing written
		"lsp_insert_after_symbol":   {"symbol=Greeting", `text=var broken2 int = "s"`},                                              // a new error: nothing written
		"lsp_safe_delete":           {"symbol=Greeting"},                                                                            // referenced: nothing written
		"lsp_apply_edits":           {`edits=[{"file":"use.go","text":"package demo\n\nfunc Use() int { return Greeting(1) }\n"}]`}, // a new error: nothing written
		"lsp_goto_declaration":      {"symbol=Greeting"},                                                                            // gopls offers none: a tool error
		"lsp_document_highlights":   {"file=use.go", "line=3", "symbol=Greeting"},
		"lsp_signature_help":        {"file=use.go", "line=3", "character=38"},
		"lsp_inlay_hints":           {"file=shape.go"},
		"lsp_type_hierarchy":        {"file=shape.go", "line=5", "symbol=Square", "direction=supertypes"},
		"lsp_completion":            {"file=shape.go", "line=11", "character=12"},
		"lsp_symbol_context":        {"symbol=Greeting"},
		"lsp_batch":                 {`questions=[{"tool":"lsp_hover","args":{"symbol":"Greeting"}},{"tool":"lsp_find_references","args":{"symbol":"Greeting"}}]`},
	}
	failing := map[string]string{"lsp_apply_code_action": "no code action", "lsp_goto_declaration": "gopls does not offer textDocument/declaration"}
	writing := map[string]bool{"lsp_rename": true, "lsp_apply_code_action": true, "lsp_format": true, "lsp_fix_all": true, "lsp_apply_edits": true,
		"lsp_replace_symbol_body": true, "lsp_insert_before_symbol": true, "lsp_insert_after_symbol": true, "lsp_safe_delete": true}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		writes := writing[tool.Name]
		// The title is said once, at the top (MCP reads it before
		// annotations.title); a second copy would only cost tokens.
		if tool.Title == "" || tool.Annotations.Title != "" && tool.Annotations.Title != tool.Title || tool.Annotations.ReadOnlyHint == nil && !writes {
			t.Errorf("%s: title %q, annotations %+v", tool.Name, tool.Title, tool.Annotations)
		}
		for what, sch := range map[string]json.RawMessage{"input": tool.InputSchema, "output": tool.OutputSchema} {
			for _, p := range mcpserver.StrictSchemaProblems(sch) {
				t.Errorf("%s %s schema: %s", tool.Name, what, p)
			}
		}
	}
	if want := slices.Sorted(func(yield func(string) bool) {
		for n := range calls {
			if !yield(n) {
				return
			}
		}
	}); !slices.Equal(slices.Sorted(slices.Values(names)), want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	for _, tool := range list.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			t.Parallel()
			args := []string{"--method", "tools/call", "--tool-name", tool.Name}
			if a := calls[tool.Name]; len(a) > 0 {
				args = append(append(args, "--tool-arg"), a...)
			}
			out, stderr, err := inspect(t, bin, root, args...)
			if want, ok := failing[tool.Name]; ok {
				// The inspector exits non-zero on a tool error.
				if !strings.Contains(out, `"isError": true`) || !strings.Contains(out, want) {
					t.Fatalf("tools/call: %v: %s\n%s (want a tool error saying %q)", err, out, stderr, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("tools/call: %v\n%s\n%s", err, out, stderr)
			}
			var res struct {
				Content []struct {
					Type, Text string
				} `json:"content"`
				StructuredContent json.RawMessage `json:"structuredContent"`
				IsError           bool            `json:"isError"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("tools/call: %v\n%s", err, out)
			}
			if res.IsError || len(res.Content) == 0 || res.Content[0].Text == "" || len(res.StructuredContent) == 0 {
				t.Fatalf("tools/call: %s", out)
			}
			var schema jsonschema.Schema
			if err := json.Unmarshal(tool.OutputSchema, &schema); err != nil {
				t.Fatalf("output schema: %v", err)
			}
			resolved, err := schema.Resolve(nil)
			if err != nil {
				t.Fatalf("output schema: %v", err)
			}
			var value any
			json.Unmarshal(res.StructuredContent, &value)
			if err := resolved.Validate(value); err != nil {
				t.Fatalf("structured content does not validate against the output schema: %v\n%s", err, res.StructuredContent)
			}
		})
	}
}
