package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/mcpserver/jsonl"
	"github.com/lspkit/lspkit/service/orchestrator"
)

// TestCapSymbols: the tree is cut depth first at the budget, and what was
// cut is counted.
func TestCapSymbols(t *testing.T) {
	var tree []api.Symbol
	for i := range 3 {
		s := api.Symbol{Name: fmt.Sprint("t", i)}
		for j := range 4 {
			s.Children = append(s.Children, api.Symbol{Name: fmt.Sprint("c", i, j)})
		}
		tree = append(tree, s)
	}
	budget := 7
	got := capSymbols(tree, &budget)
	if countSymbols(tree) != 15 || countSymbols(got) != 7 || len(got) != 2 || len(got[1].Children) != 1 || len(tree[1].Children) != 4 {
		t.Fatalf("capped: %+v (input %+v)", got, tree)
	}
}

// connect serves the tools of an orchestrator over root (configuration
// doc, fake servers for .fk and .hang files) to an in-memory MCP client.
func connect(t *testing.T, files map[string]string, doc string) *mcp.ClientSession {
	t.Helper()
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"ok": {}, "hang": {HangOn: "initialize"}}}
	return connectWith(t, files, doc, l.Launch)
}

// connectWith is connect with the servers launch starts (nil: real ones).
func connectWith(t *testing.T, files map[string]string, doc string, launch client.Launch) *mcp.ClientSession {
	t.Helper()
	return connectOpts(t, files, doc, launch, Options{Version: "test"})
}

// connectOpts is connectWith with the server's options.
func connectOpts(t *testing.T, files map[string]string, doc string, launch client.Launch, opts Options) *mcp.ClientSession {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Parse([]byte(doc), "test")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc, "mcpStructuredContent") {
		// These tests read the structured content; TestTextOnly checks
		// the default, text alone.
		cfg.MCPStructuredContent = true
	}
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg, Launch: launch})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := New(features.NewService(o), opts).Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lspkit-test", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
		o.Shutdown(context.Background())
		cancel()
	})
	return cs
}

// call calls a tool; the structured output is decoded into out.
func call(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res
}

func toolNames(t *testing.T, s *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

func fakeConfig(extra string) string {
	exe, _ := os.Executable()
	return fmt.Sprintf(`{"lsp":{"autoInstall":false%s,"servers":{"fake":{"command":%q,"args":["ok"],"extensions":[".fk"]},"hangs":{"command":%q,"args":["hang"],"extensions":[".hang"]}}}}`, extra, exe, exe)
}

// TestTools: the tools and their schemas; errors reach the model as tool
// errors with the orchestrator's message; a file no server checks is said
// so, not called clean.
func TestTools(t *testing.T) {
	s := connect(t, map[string]string{"a.fk": "one\nx ERROR\n", "notes.xyz": "x\n"}, fakeConfig(""))
	// Before anything was checked, lsp_diagnostics says so, not "clean".
	var diags DiagnosticsOutput
	if res := call(t, s, "lsp_diagnostics", nil, &diags); len(diags.Diagnostics) != 0 || !strings.HasPrefix(textOf(res), "no file has been checked yet") {
		t.Fatalf("lsp_diagnostics before any check: %+v %q", diags, textOf(res))
	}
	tools := toolNames(t, s)
	want := []string{"lsp_apply_code_action", "lsp_apply_edits", "lsp_batch", "lsp_call_hierarchy", "lsp_check_file", "lsp_code_actions", "lsp_completion", "lsp_diagnostics",
		"lsp_document_highlights", "lsp_document_symbols", "lsp_find_references", "lsp_fix_all", "lsp_format", "lsp_goto_declaration", "lsp_goto_definition",
		"lsp_goto_implementation", "lsp_goto_type_definition", "lsp_hover", "lsp_inlay_hints", "lsp_insert_after_symbol", "lsp_insert_before_symbol", "lsp_rename",
		"lsp_replace_symbol_body", "lsp_safe_delete", "lsp_signature_help", "lsp_status",
		"lsp_symbol_context", "lsp_type_hierarchy", "lsp_workspace_diagnostics", "lsp_workspace_symbols"}
	got := slices.Sorted(maps.Keys(tools))
	if !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	schema, _ := json.Marshal(tools["lsp_goto_definition"].InputSchema)
	var sch struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	json.Unmarshal(schema, &sch)
	// The position's properties are typed; what they mean is said once,
	// in the server's instructions.
	if sch.Properties["line"].Type != "integer" || sch.Properties["symbol"].Type != "string" || sch.Properties["kind"].Type != "string" || len(sch.Required) != 0 {
		t.Fatalf("lsp_goto_definition schema: %s", schema)
	}
	writing := map[string]bool{"lsp_rename": true, "lsp_apply_code_action": true, "lsp_format": true, "lsp_fix_all": true, "lsp_apply_edits": true,
		"lsp_replace_symbol_body": true, "lsp_insert_before_symbol": true, "lsp_insert_after_symbol": true, "lsp_safe_delete": true}
	for name, tool := range tools {
		if tool.Title == "" || tool.Annotations == nil || tool.Meta[metaSearchHint] == "" {
			t.Errorf("%s: title %q, annotations %+v, _meta %v", name, tool.Title, tool.Annotations, tool.Meta)
		} else if tool.Annotations.ReadOnlyHint != !writing[name] || writing[name] && (tool.Annotations.DestructiveHint == nil || !*tool.Annotations.DestructiveHint) {
			t.Errorf("%s: readOnlyHint %v", name, tool.Annotations.ReadOnlyHint)
		}
		for what, sch := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			for _, problem := range StrictSchemaProblems(sch) {
				t.Errorf("%s %s schema: %s", name, what, problem)
			}
		}
	}
	var check api.CheckResult
	res := call(t, s, "lsp_check_file", map[string]any{"file": "a.fk"}, &check)
	if res.IsError || !check.Checked || len(check.Diagnostics) != 1 || !strings.Contains(textOf(res), "a.fk:2:3 error: error on line 2") {
		t.Fatalf("check_file: %+v %q", check, textOf(res))
	}
	res = call(t, s, "lsp_check_file", map[string]any{"file": "notes.xyz"}, &check)
	if res.IsError || check.Checked || !strings.Contains(textOf(res), "not checked: no language server handles .xyz files") {
		t.Fatalf("check_file on an unknown type: %+v %q", check, textOf(res))
	}
	var locs LocationsOutput
	res = call(t, s, "lsp_goto_definition", map[string]any{"file": "a.fk", "line": 2, "symbol": "ERROR"}, &locs)
	if res.IsError || len(locs.Locations) != 1 || locs.Locations[0].Character != 3 || !strings.Contains(textOf(res), "a.fk:2:3") {
		t.Fatalf("definition: %+v %q", locs, textOf(res))
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"lsp_goto_definition", map[string]any{"file": "../elsewhere.fk", "line": 1, "character": 1}, "outside the workspace root"},
		{"lsp_hover", map[string]any{"file": "notes.xyz", "line": 1, "character": 1}, "no language server handles .xyz files (configured: "},
		{"lsp_hover", map[string]any{"file": "a.fk", "line": 40, "character": 1}, "line 40 is past the end of a.fk (2 lines)"},
		{"lsp_hover", map[string]any{"file": "a.fk", "line": 1, "symbol": "Nope"}, `"Nope" does not occur on line 1`},
		{"lsp_goto_definition", map[string]any{"file": "a.fk"}, "line"},
	} {
		res := call(t, s, tc.tool, tc.args, nil)
		if !res.IsError || !strings.Contains(textOf(res), tc.want) || strings.Contains(textOf(res), "jsonrpc error") {
			t.Errorf("%s %v: error %v %q, want %q", tc.tool, tc.args, res.IsError, textOf(res), tc.want)
		}
	}
}

// TestReadOnly: a channel whose host calls every tool without asking
// (serve --mcp-fds) offers the tools that write nothing — code
// actions listed, not applied — and lsp_code_actions does not point at a
// tool it lacks.
func TestReadOnly(t *testing.T) {
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"ok": {}}}
	s := connectOpts(t, map[string]string{"a.fk": "x\n"}, fakeConfig(""), l.Launch, Options{Version: "test", ReadOnly: true})
	tools := toolNames(t, s)
	want := []string{"lsp_batch", "lsp_call_hierarchy", "lsp_check_file", "lsp_code_actions", "lsp_completion", "lsp_diagnostics",
		"lsp_document_highlights", "lsp_document_symbols", "lsp_find_references", "lsp_goto_declaration", "lsp_goto_definition",
		"lsp_goto_implementation", "lsp_goto_type_definition", "lsp_hover", "lsp_inlay_hints", "lsp_signature_help", "lsp_status",
		"lsp_symbol_context", "lsp_type_hierarchy", "lsp_workspace_diagnostics", "lsp_workspace_symbols"}
	if got := slices.Sorted(maps.Keys(tools)); !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}
	for name, tool := range tools {
		if !tool.Annotations.ReadOnlyHint || strings.Contains(tool.Description, "lsp_apply_code_action") {
			t.Errorf("%s: readOnlyHint %v; %s", name, tool.Annotations.ReadOnlyHint, tool.Description)
		}
	}
	_, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "lsp_rename", Arguments: map[string]any{"file": "a.fk", "line": 1, "character": 1, "newName": "y", "apply": true}})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "lsp_rename"`) {
		t.Fatalf("lsp_rename on a read-only channel: %v", err)
	}
}

// TestCheckTextCutsMessages: the check's text for the model shows a
// message's first 200 characters and "…"; its structured content keeps
// the message whole.
func TestCheckTextCutsMessages(t *testing.T) {
	long := strings.Repeat("m", 250)
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"ok": {Diagnose: func(text string) []protocol.Diagnostic {
		ds := lsptest.ErrorLines(text)
		for i := range ds {
			ds[i].Message = protocol.NewStringOrMarkupContentString(long)
		}
		return ds
	}}}}
	s := connectOpts(t, map[string]string{"a.fk": "x ERROR\n"}, fakeConfig(""), l.Launch, Options{Version: "test"})
	var check api.CheckResult
	res := call(t, s, "lsp_check_file", map[string]any{"file": "a.fk"}, &check)
	if !strings.Contains(textOf(res), "a.fk:1:3 error: "+long[:200]+"… [fake]") || len(check.Diagnostics) != 1 || check.Diagnostics[0].Message != long {
		t.Fatalf("text %q, structured %+v", textOf(res), check.Diagnostics)
	}
}

// TestStarting: a server that has not finished starting is a tool error
// that says to retry.
func TestStarting(t *testing.T) {
	s := connect(t, map[string]string{"a.hang": "x\n"}, fakeConfig(`,"firstTouchTimeout":300`))
	res := call(t, s, "lsp_hover", map[string]any{"file": "a.hang", "line": 1, "character": 1}, nil)
	if !res.IsError || !strings.Contains(textOf(res), "hangs is still starting; retry in a moment") {
		t.Fatalf("hover: %v %q", res.IsError, textOf(res))
	}
}

// TestDisabled: lsp false leaves lsp_status, which says so;
// navigationTools false leaves the diagnostics tools.
func TestDisabled(t *testing.T) {
	s := connect(t, nil, `{"lsp": false}`)
	tools := toolNames(t, s)
	if len(tools) != 1 || tools["lsp_status"] == nil {
		t.Fatalf("tools with lsp: false: %v", tools)
	}
	var st StatusOutput
	res := call(t, s, "lsp_status", nil, &st)
	if !st.Disabled || !strings.Contains(textOf(res), "LSP is disabled by configuration") {
		t.Fatalf("status: %+v %q", st, textOf(res))
	}
	s = connect(t, nil, fakeConfig(`,"navigationTools":false`))
	tools = toolNames(t, s)
	if len(tools) != 4 || tools["lsp_check_file"] == nil || tools["lsp_workspace_diagnostics"] == nil || tools["lsp_diagnostics"] == nil || tools["lsp_hover"] != nil {
		t.Fatalf("tools with navigationTools: false: %v", tools)
	}
}

// TestToolsGopls: the navigation tools against gopls; lsp_diagnostics
// sees a file changed on disk, and text given by the caller stands.
func TestToolsGopls(t *testing.T) {
	servertest.Binary(t, "gopls")
	s := connectWith(t, map[string]string{
		"go.mod": "module example.com/demo\n\ngo 1.22\n",
		"lib.go": "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n",
		"use.go": "package demo\n\nfunc Use() string { return Greeting(\"x\") }\n",
	}, `{"lsp":{"autoInstall":false}}`, nil)
	var locs LocationsOutput
	res := call(t, s, "lsp_goto_definition", map[string]any{"file": "use.go", "line": 3, "symbol": "Greeting"}, &locs)
	if res.IsError || len(locs.Locations) != 1 || locs.Locations[0].File != "lib.go" || locs.Locations[0].Line != 4 || locs.Locations[0].Character != 6 || !strings.Contains(textOf(res), "lib.go:4:6: func Greeting(name string) string") {
		t.Fatalf("definition: %+v %q", locs, textOf(res))
	}
	res = call(t, s, "lsp_find_references", map[string]any{"file": "lib.go", "line": 4, "character": 6}, &locs)
	if res.IsError || len(locs.Locations) != 2 {
		t.Fatalf("references: %+v %q", locs, textOf(res))
	}
	var hover HoverOutput
	res = call(t, s, "lsp_hover", map[string]any{"file": "use.go", "line": 3, "symbol": "Greeting"}, &hover)
	if res.IsError || hover.Content == nil || !strings.Contains(*hover.Content, "func Greeting(name string) string") {
		t.Fatalf("hover: %+v %q", hover, textOf(res))
	}
	var syms SymbolsOutput
	res = call(t, s, "lsp_document_symbols", map[string]any{"file": "lib.go"}, &syms)
	if res.IsError || len(syms.Symbols) != 1 || syms.Symbols[0].Name != "Greeting" || syms.Symbols[0].Kind != "function" {
		t.Fatalf("document symbols: %+v %q", syms, textOf(res))
	}
	var ws WorkspaceSymbolsOutput
	res = call(t, s, "lsp_workspace_symbols", map[string]any{"query": "Greeting"}, &ws)
	if res.IsError || !slices.ContainsFunc(ws.Symbols, func(s api.WorkspaceSymbol) bool { return s.Name == "Greeting" && s.File == "lib.go" }) {
		t.Fatalf("workspace symbols: %+v %q", ws, textOf(res))
	}
	var diags DiagnosticsOutput
	res = call(t, s, "lsp_diagnostics", nil, &diags)
	if len(diags.Diagnostics) != 0 || !strings.HasPrefix(textOf(res), "no error reported in the files checked so far") {
		t.Fatalf("diagnostics before the change: %+v %q", diags, textOf(res))
	}
	root := rootOf(t, s)
	if err := os.WriteFile(filepath.Join(root, "use.go"), []byte("package demo\n\nfunc Use() int { return Greeting(\"x\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = call(t, s, "lsp_diagnostics", nil, &diags)
	if d := diags.Diagnostics["use.go"]; len(d) != 1 || d[0].Line != 3 || !strings.Contains(textOf(res), "use.go:3:") {
		t.Fatalf("diagnostics after the change on disk: %+v %q", diags, textOf(res))
	}
	var check api.CheckResult
	res = call(t, s, "lsp_check_file", map[string]any{"file": "use.go", "text": "package demo\n\nfunc Use() string { return Greeting(\"x\") }\n"}, &check)
	if res.IsError || len(check.Diagnostics) != 0 || len(check.Servers) != 1 || check.Servers[0].Verdict != api.VerdictSettled {
		t.Fatalf("check_file: %+v %q", check, textOf(res))
	}
	// The given text was that check's alone: what follows is answered
	// from the disk again.
	diags = DiagnosticsOutput{}
	call(t, s, "lsp_diagnostics", nil, &diags)
	if d := diags.Diagnostics["use.go"]; len(d) != 1 || d[0].Line != 3 {
		t.Fatalf("lsp_diagnostics after a check of given text: %+v; want the disk's finding", diags)
	}
	var st StatusOutput
	call(t, s, "lsp_status", nil, &st)
	if !slices.ContainsFunc(st.Servers, func(s api.ServerStatus) bool { return s.ID == "gopls" && s.Status == "active" && s.ServerPID > 0 }) {
		t.Fatalf("status: %+v", st)
	}
}

// rootOf reads the workspace root from the server's instructions.
func rootOf(t *testing.T, s *mcp.ClientSession) string {
	t.Helper()
	instr := s.InitializeResult().Instructions
	const prefix = "the files of "
	i := strings.Index(instr, prefix)
	j := strings.Index(instr, ". Paths")
	if i < 0 || j < i {
		t.Fatalf("instructions: %q", instr)
	}
	return instr[i+len(prefix) : j]
}

// TestAnswersBeforeEOF: a client that writes its requests and closes its
// input at once still gets every answer (the check takes a while: its
// server waits before answering), and the session then ends.
func TestAnswersBeforeEOF(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.fk"), []byte("x ERROR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte(fakeConfig("")), "test")
	if err != nil {
		t.Fatal(err)
	}
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"ok": {Delay: 100 * time.Millisecond}}}
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg, Launch: l.Launch})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Shutdown(context.Background())
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"lsp_check_file","arguments":{"file":"a.fk"}}}
`)
	var out strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := New(features.NewService(o), Options{Version: "test"}).Run(ctx, StdioTransport(in, &out)); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Fatal(err)
	}
	var answered bool
	for line := range strings.Lines(out.String()) {
		answered = answered || strings.Contains(line, `"id":"last"`) && strings.Contains(line, "error on line 1")
	}
	if !answered {
		t.Fatalf("the last request was not answered:\n%s", out.String())
	}
}

// TestHostileLines: every line that is not a JSON-RPC 2.0 message is
// answered with the spec's error under its top-level id whenever that can
// be read (invalid UTF-8 in a string, nesting past the limit, oversize;
// "id": null only when it cannot), the SDK's code-0 errors get JSON-RPC codes, and the session goes
// on to answer the request after them.
func TestHostileLines(t *testing.T) {
	cfg, err := config.Parse([]byte(fakeConfig("")), "test")
	if err != nil {
		t.Fatal(err)
	}
	o, err := orchestrator.New(orchestrator.Options{Root: t.TempDir(), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Shutdown(context.Background())
	init := `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	cases := []struct {
		name, lines, want string
	}{
		{"before initialize", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"lsp_status","arguments":{}}}` + "\n" + init, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,`},
		{"unknown method", init + `{"jsonrpc":"2.0","id":5,"method":"foo/bar"}` + "\n", `{"jsonrpc":"2.0","id":5,"error":{"code":-32601,`},
		{"not JSON", init + "hello\n", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: `},
		{"raw NUL", init + "{\"jsonrpc\":\"2.0\",\x00\"id\":1}\n", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{"invalid UTF-8", init + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"x\xff\"}\n", `{"jsonrpc":"2.0","id":3,"error":{"code":-32700,`},
		{"deep", init + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{"invalid UTF-8 in a tool argument", init + "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"lsp_hover\",\"arguments\":{\"file\":\"a\xff.go\",\"line\":1}}}\n", `{"jsonrpc":"2.0","id":4,"error":{"code":-32700,`},
		{"invalid UTF-8 in a string id", init + "{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"tools/list\"}\n", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{"deep params", init + `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}\n", `{"jsonrpc":"2.0","id":6,"error":{"code":-32700,`},
		{"id after deep params", init + `{"jsonrpc":"2.0","method":"tools/list","params":` + strings.Repeat(`{"a":[`, 50000) + strings.Repeat("]}", 50000) + `,"id":"late"}` + "\n", `{"jsonrpc":"2.0","id":"late","error":{"code":-32700,`},
		{"id after invalid UTF-8", init + "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"lsp_hover\",\"arguments\":{\"file\":\"\xc3(\"}},\"id\":9}\n", `{"jsonrpc":"2.0","id":9,"error":{"code":-32700,`},
		{"oversize", init + `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"lsp_check_file","arguments":{"file":"a.go","text":"` + strings.Repeat("x", jsonl.MaxLineBytes) + `"}}}` + "\n", `{"jsonrpc":"2.0","id":10,"error":{"code":-32600,"message":"message longer than`},
		{"batch", init + `[{"jsonrpc":"2.0","id":8,"method":"tools/list"}]` + "\n", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches are not supported: send one message per line"}}`},
		{"jsonrpc 1.0", init + `{"jsonrpc":"1.0","id":7,"method":"tools/list"}` + "\n", `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"\"jsonrpc\" must be \"2.0\""}}`},
		{"object id", init + `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}` + "\n", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"an id must be a string, an integer or null"}}`},
		{"fractional id", init + `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}` + "\n", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.NewReader(tc.lines + `{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"lsp_status","arguments":{}}}` + "\n")
			var out strings.Builder
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			New(features.NewService(o), Options{Version: "test"}).Run(ctx, StdioTransport(in, &out))
			var answered, replied bool
			for line := range strings.Lines(out.String()) {
				if !json.Valid([]byte(line)) {
					t.Errorf("invalid JSON written: %q", line)
				}
				answered = answered || strings.Contains(line, `"id":"after","result"`)
				replied = replied || strings.HasPrefix(line, tc.want)
			}
			if !answered || !replied {
				t.Errorf("want a line starting %s and the request after it answered; got:\n%s", tc.want, out.String())
			}
		})
	}
}

// TestStrictSchemaProblems: what strict validators reject is found.
func TestStrictSchemaProblems(t *testing.T) {
	bad := map[string]any{"type": "object", "required": []any{"gone"}, "properties": map[string]any{
		"code": true, "any": map[string]any{}, "list": map[string]any{"type": "array"},
		"ref": map[string]any{"$ref": "#/$defs/missing"}, "odd": map[string]any{"type": "text"},
		"ok": map[string]any{"type": []any{"string", "integer"}},
	}}
	got := StrictSchemaProblems(bad)
	for _, want := range []string{"#/properties/code: true is not a schema object", "#/properties/any: no concrete type", "#/properties/list: an array without items",
		`#/properties/ref: $ref "#/$defs/missing" is not defined`, `#/properties/odd: unknown type "text"`, `#: required "gone" is not a property`,
		"#/properties/ok: a list of types [string integer]"} {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, want) }) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
	if len(got) != 7 {
		t.Errorf("problems: %q", got)
	}
	if p := StrictSchemaProblems(schemaOf[SymbolsOutput]()); len(p) != 0 {
		t.Errorf("lsp_document_symbols output: %q", p)
	}
}

// TestNewToolsGopls: implementations, type definitions, call hierarchy and
// rename (preview, then applied) against gopls.
func TestNewToolsGopls(t *testing.T) {
	servertest.Binary(t, "gopls")
	s := connectWith(t, map[string]string{
		"go.mod":   "module example.com/demo\n\ngo 1.22\n",
		"shape.go": "package demo\n\ntype Shape interface{ Area() int }\n\ntype Square struct{ side int }\n\nfunc (s Square) Area() int { return s.side * s.side }\n",
		"use.go":   "package demo\n\nfunc Total(shapes []Shape) int {\n\tn := 0\n\tfor _, s := range shapes {\n\t\tn += s.Area()\n\t}\n\treturn n\n}\n\nfunc One() int {\n\tsq := Square{side: 2}\n\treturn Total([]Shape{sq}) + sq.Area()\n}\n",
	}, `{"lsp":{"autoInstall":false}}`, nil)
	root := rootOf(t, s)
	// A fresh daemon: workspace symbols start gopls (go.mod is at the
	// root) and find Square in a file nobody opened.
	var ws WorkspaceSymbolsOutput
	res := call(t, s, "lsp_workspace_symbols", map[string]any{"query": "Square"}, &ws)
	if res.IsError || !slices.ContainsFunc(ws.Symbols, func(s api.WorkspaceSymbol) bool {
		return s.Name == "Square" && s.File == "shape.go" && s.Range.StartLine == 5
	}) {
		t.Fatalf("workspace symbols on a fresh daemon: %+v %q", ws, textOf(res))
	}
	var locs LocationsOutput
	res = call(t, s, "lsp_goto_implementation", map[string]any{"file": "shape.go", "line": 3, "symbol": "Shape"}, &locs)
	if res.IsError || len(locs.Locations) != 1 || locs.Locations[0].File != "shape.go" || locs.Locations[0].Line != 5 || locs.Locations[0].Source != "type Square struct{ side int }" {
		t.Fatalf("implementation: %+v %q", locs, textOf(res))
	}
	res = call(t, s, "lsp_goto_type_definition", map[string]any{"file": "use.go", "line": 12, "symbol": "sq"}, &locs)
	if res.IsError || len(locs.Locations) != 1 || locs.Locations[0].File != "shape.go" || locs.Locations[0].Line != 5 {
		t.Fatalf("type definition: %+v %q", locs, textOf(res))
	}
	var calls api.CallHierarchyResult
	res = call(t, s, "lsp_call_hierarchy", map[string]any{"file": "use.go", "line": 3, "symbol": "Total", "direction": "incoming"}, &calls)
	if res.IsError || calls.Function != "Total" || len(calls.Calls) != 1 || calls.Calls[0] != (api.Call{Name: "One", Kind: "function", Detail: calls.Calls[0].Detail, File: "use.go", Line: 13, Character: 9, Source: "return Total([]Shape{sq}) + sq.Area()"}) ||
		!strings.Contains(textOf(res), "use.go:13:9: function One: return Total([]Shape{sq}) + sq.Area()") {
		t.Fatalf("incoming calls: %+v %q", calls, textOf(res))
	}
	res = call(t, s, "lsp_call_hierarchy", map[string]any{"file": "use.go", "line": 11, "symbol": "One", "direction": "outgoing"}, &calls)
	if res.IsError || !slices.ContainsFunc(calls.Calls, func(c api.Call) bool { return c.Name == "Total" && c.File == "use.go" && c.Line == 3 }) ||
		!slices.ContainsFunc(calls.Calls, func(c api.Call) bool { return strings.Contains(c.Name, "Area") && c.File == "shape.go" && c.Line == 7 }) {
		t.Fatalf("outgoing calls: %+v %q", calls, textOf(res))
	}
	res = call(t, s, "lsp_call_hierarchy", map[string]any{"file": "use.go", "line": 3, "symbol": "Total", "direction": "sideways"}, nil)
	if !res.IsError || !strings.Contains(textOf(res), `direction must be "incoming" or "outgoing"`) {
		t.Fatalf("bad direction: %q", textOf(res))
	}
	before, _ := os.ReadFile(filepath.Join(root, "shape.go"))
	var ren api.RenameResult
	res = call(t, s, "lsp_rename", map[string]any{"file": "shape.go", "line": 3, "symbol": "Area", "newName": "Size"}, &ren)
	if res.IsError || ren.Applied || ren.Files != 2 || ren.Edits != 4 || !strings.Contains(ren.Diff, "--- a/shape.go\n+++ b/shape.go\n") ||
		!strings.Contains(ren.Diff, "-\t\tn += s.Area()\n+\t\tn += s.Size()\n") || !strings.Contains(textOf(res), "4 edits in 2 files, not applied") {
		t.Fatalf("rename preview: %+v %q", ren, textOf(res))
	}
	if after, _ := os.ReadFile(filepath.Join(root, "shape.go")); string(after) != string(before) {
		t.Fatalf("a preview wrote shape.go:\n%s", after)
	}
	res = call(t, s, "lsp_rename", map[string]any{"file": "shape.go", "line": 3, "symbol": "Area", "newName": "Size", "apply": true}, &ren)
	if res.IsError || !ren.Applied || ren.Files != 2 || len(ren.Diagnostics) != 0 || !strings.Contains(textOf(res), "no error in the files changed") {
		t.Fatalf("rename: %+v %q", ren, textOf(res))
	}
	if after, _ := os.ReadFile(filepath.Join(root, "use.go")); !strings.Contains(string(after), "n += s.Size()") || strings.Contains(string(after), "Area") {
		t.Fatalf("use.go after the rename:\n%s", after)
	}
	// The servers see the renamed files: Size resolves, Area is gone.
	res = call(t, s, "lsp_goto_definition", map[string]any{"file": "use.go", "line": 6, "symbol": "Size"}, &locs)
	if res.IsError || len(locs.Locations) != 1 || locs.Locations[0].Source != "type Shape interface{ Size() int }" {
		t.Fatalf("definition after the rename: %+v %q", locs, textOf(res))
	}
	var check api.CheckResult
	if res := call(t, s, "lsp_check_file", map[string]any{"file": "use.go"}, &check); res.IsError || !check.Checked || len(check.Diagnostics) != 0 {
		t.Fatalf("check after the rename: %+v %q", check, textOf(res))
	}
	// A rename to a name gopls refuses is its error, and nothing is written.
	res = call(t, s, "lsp_rename", map[string]any{"file": "shape.go", "line": 7, "symbol": "Size", "newName": "not valid", "apply": true}, nil)
	if !res.IsError {
		t.Fatalf("invalid name: %q", textOf(res))
	}
}

// TestDefinitionFollowsDiskGopls: the MCP case. lsp_goto_definition
// of F answers a.go:3; another process inserts three lines above F in a.go
// (never opened through lspkit), and the same question asked at once
// answers a.go:6; and back, ten times.
func TestDefinitionFollowsDiskGopls(t *testing.T) {
	servertest.Binary(t, "gopls")
	s := connectWith(t, map[string]string{
		"go.mod":  "module example.com/demo\n\ngo 1.22\n",
		"a.go":    "package demo\n\nfunc F() int { return 1 }\n",
		"main.go": "package demo\n\nfunc G() int { return F() }\n",
	}, `{"lsp":{"autoInstall":false}}`, nil)
	root := rootOf(t, s)
	for i := range 10 {
		pad := 3 * (i % 2)
		text := "package demo\n" + strings.Repeat("// pad\n", pad) + "\nfunc F() int { return 1 }\n"
		if i > 0 {
			if err := os.WriteFile(filepath.Join(root, "a.go"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var locs LocationsOutput
		res := call(t, s, "lsp_goto_definition", map[string]any{"file": "main.go", "line": 3, "symbol": "F"}, &locs)
		if res.IsError || len(locs.Locations) != 1 || locs.Locations[0].File != "a.go" || locs.Locations[0].Line != 3+pad {
			t.Fatalf("round %d: definition of F: %+v %q; want a.go:%d", i, locs, textOf(res), 3+pad)
		}
	}
}

// TestTextOnly: by default no tool declares an output schema and no result
// carries structured content — a host that shows the model a result's
// structuredContent (Claude Code) shows it the text — and the text is the
// same as with mcpStructuredContent.
func TestTextOnly(t *testing.T) {
	files := map[string]string{"a.fk": "fine\nERROR here\n"}
	var texts []string
	for _, structured := range []bool{false, true} {
		cs := connect(t, files, fakeConfig(fmt.Sprintf(`,"mcpStructuredContent":%v`, structured)))
		ctx := context.Background()
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools.Tools {
			if (tool.OutputSchema != nil) != structured {
				t.Errorf("structured %v: %s output schema %v", structured, tool.Name, tool.OutputSchema)
			}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lsp_check_file", Arguments: map[string]any{"file": "a.fk"}})
		if err != nil || res.IsError {
			t.Fatalf("check: %v %+v", err, res)
		}
		if (res.StructuredContent != nil) != structured {
			t.Errorf("structured %v: structured content %v", structured, res.StructuredContent)
		}
		texts = append(texts, regexp.MustCompile(`settled in \d+ ms`).ReplaceAllString(res.Content[0].(*mcp.TextContent).Text, "settled"))
	}
	if texts[0] != texts[1] || !strings.Contains(texts[0], "a.fk:2:1 error") {
		t.Errorf("texts differ or miss the finding: %q", texts)
	}
}

// maxToolsList is the budget of tools/list as a host sends it to the
// model: every tool's name, description and schemas, as JSON. It was
// 35,000; go-sdk 1.7 writes the false hints (readOnlyHint,
// idempotentHint) it used to leave out: 396 more characters, which tell a
// host which tools write.
const maxToolsList = 35500

// TestToolsListSize: tools/list, with the default configuration (text
// results, no output schemas) and with structured content, stays within
// its budget of characters.
func TestToolsListSize(t *testing.T) {
	for _, doc := range []string{fakeConfig(`,"mcpStructuredContent":false`), fakeConfig(`,"mcpStructuredContent":true`)} {
		s := connect(t, map[string]string{"a.fk": "x\n"}, doc)
		res, err := s.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Tools)
		structured := strings.Contains(doc, `"mcpStructuredContent":true`)
		t.Logf("tools/list: %d tools, %d characters (structured content %v)", len(res.Tools), len([]rune(string(b))), structured)
		if n := len([]rune(string(b))); n > maxToolsList && !structured {
			t.Errorf("tools/list is %d characters, over %d", n, maxToolsList)
		}
	}
}

// TestTypeInfoToolsGopls: the type-information tools, addressing by name
// and lsp_batch through MCP on gopls, as the model reads them.
func TestTypeInfoToolsGopls(t *testing.T) {
	servertest.Binary(t, "gopls")
	s := connectWith(t, map[string]string{
		"go.mod":      "module example.com/demo\n\ngo 1.22\n",
		"shape.go":    "package demo\n\n// Shape has an area.\ntype Shape interface{ Area() int }\n\n// Square is a Shape.\ntype Square struct{ side int }\n\n// Area is the square's area.\nfunc (s Square) Area() int { return s.side * s.side }\n",
		"use.go":      "package demo\n\n// Total sums the areas.\nfunc Total(shapes []Shape, scale int) int {\n\tn := 0\n\tfor _, s := range shapes {\n\t\tn += s.Area() * scale\n\t}\n\treturn n\n}\n\nfunc One() int {\n\tsq := Square{side: 2}\n\tsum := Total([]Shape{sq}, 2)\n\treturn sum + sq.Area()\n}\n",
		"use_test.go": "package demo\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif Total(nil, 1) != 0 {\n\t\tt.Fatal(\"not 0\")\n\t}\n}\n",
	}, `{"lsp":{"autoInstall":false}}`, nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"lsp_symbol_context", map[string]any{"symbol": "Total"}, []string{"`Total` resolved to function", "# function Total", "defined at use.go:4:6",
			"func Total(shapes []Shape, scale int) int {", "## hover", "Total sums the areas.", "## references: 3", "use.go: 4, 14\nuse_test.go (test): 6", "## callers: 2", "use.go: 14:9 One"}},
		{"lsp_signature_help", map[string]any{"file": "use.go", "line": 14, "character": 27}, []string{"Total(shapes []Shape, scale int) int\n  at parameter 2: scale int\nTotal sums the areas."}},
		{"lsp_inlay_hints", map[string]any{"file": "use.go", "startLine": 13, "endLine": 14}, []string{"13| \tsq «Square» := Square{side: 2}", "14| \tsum «int» := Total(«shapes:» []Shape{sq}, «scale:» 2)"}},
		{"lsp_document_highlights", map[string]any{"file": "use.go", "symbol": "Total"}, []string{"use.go: 4:6", "14:9"}},
		{"lsp_type_hierarchy", map[string]any{"symbol": "Square", "direction": "supertypes"}, []string{"supertypes of Square: 1", "shape.go:4:6: interface Shape"}},
		{"lsp_completion", map[string]any{"file": "use.go", "line": 15, "character": 18, "prefix": "Ar", "resolve": true}, []string{"Area (method) func() int", "Area is the square's area."}},
		{"lsp_goto_definition", map[string]any{"symbol": "Square.Area"}, []string{"shape.go:10:17: func (s Square) Area() int"}},
		{"lsp_hover", map[string]any{"symbol": "Area"}, []string{`symbol "Area" is ambiguous in the workspace: 2 matches`, "shape.go:4:", "shape.go:10:17 method"}},
		{"lsp_batch", map[string]any{"questions": []map[string]any{
			{"tool": "lsp_find_references", "args": map[string]any{"symbol": "One"}},
			{"tool": "lsp_hover", "args": map[string]any{"file": "use.go", "line": 99, "character": 1}},
			{"tool": "lsp_rename", "args": map[string]any{"symbol": "One", "newName": "Two"}},
			{"tool": "lsp_goto_declaration", "args": map[string]any{"symbol": "One"}},
		}}, []string{"[1] lsp_find_references {\"symbol\":\"One\"}\n`One` resolved to function", "use.go:12:6: func One() int",
			"[2] lsp_hover", "error: line 99 is past the end of use.go", "[3] lsp_rename", `error: "lsp_rename" cannot be asked in a batch`,
			"[4] lsp_goto_declaration", "error: use.go: gopls does not offer textDocument/declaration"}},
	} {
		res := call(t, s, tc.tool, tc.args, nil)
		got := textOf(res)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %v: no %q in\n%s", tc.tool, tc.args, w, got)
			}
		}
	}
}

// TestLongFormat: mcpFormat "long" (lspkit mcp --format long) keeps a line
// per place with its path, for programs that parse the text; compact
// groups a file's findings under its path.
func TestLongFormat(t *testing.T) {
	for format, want := range map[string]string{"long": "a.fk:2:3: error: error on line 2 [fake]\na.fk:3:1: error: error on line 3 [fake]\n",
		"compact": "a.fk:\n  2:3 error: error on line 2 [fake]\n  3:1 error: error on line 3 [fake]\n"} {
		s := connect(t, map[string]string{"a.fk": "one\nx ERROR\nERROR too\n"}, fakeConfig(`,"mcpFormat":"`+format+`"`))
		if got := textOf(call(t, s, "lsp_check_file", map[string]any{"file": "a.fk"}, nil)); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %q, want it to begin %q", format, got, want)
		}
	}
}
