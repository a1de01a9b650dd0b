package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/service"
	"github.com/lspkit/lspkit/transport"
)

// mcpFixture is a Go module for the MCP tests.
func mcpFixture(t *testing.T, config string) string {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":      goMod,
		"lib.go":      "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n",
		"use.go":      "package demo\n\nfunc Use() string { return Greeting(\"x\") }\n",
		"notes.xyz":   "not code\n",
		"lspkit.json": config,
	})
	return root
}

// connect runs `lspkit mcp` in root with the SDK's client.
func connect(t *testing.T, root string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.Command(lspkitBin, "mcp", "--root", root)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "lspkit-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session
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

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
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

func TestMCPTools(t *testing.T) {
	serversEnv(t)
	root := mcpFixture(t, noInstall(""))
	s := connect(t, root)

	tools := toolNames(t, s)
	want := []string{"lsp_check_file", "lsp_diagnostics", "lsp_document_symbols", "lsp_find_references", "lsp_goto_definition", "lsp_hover", "lsp_status", "lsp_workspace_symbols"}
	var got []string
	for name := range tools {
		got = append(got, name)
	}
	slices.Sort(got)
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
	if sch.Properties["line"].Type != "integer" || !strings.Contains(sch.Properties["line"].Description, "1-based") ||
		sch.Properties["symbol"].Description == "" || !slices.Equal(sch.Required, []string{"file", "line"}) || tools["lsp_goto_definition"].Description == "" {
		t.Fatalf("lsp_goto_definition schema: %s", schema)
	}

	// Definition across files, by symbol name instead of a column.
	var locs service.LocationsOutput
	res := call(t, s, "lsp_goto_definition", map[string]any{"file": "use.go", "line": 3, "symbol": "Greeting"}, &locs)
	if res.IsError || len(locs.Locations) != 1 || locs.Locations[0].File != "lib.go" || locs.Locations[0].Line != 4 || locs.Locations[0].Character != 6 || !strings.Contains(textOf(res), "lib.go:4:6") {
		t.Fatalf("definition: %+v %q", locs, textOf(res))
	}
	res = call(t, s, "lsp_find_references", map[string]any{"file": "lib.go", "line": 4, "character": 6}, &locs)
	if res.IsError || len(locs.Locations) != 2 {
		t.Fatalf("references: %+v %q", locs, textOf(res))
	}
	var hover service.HoverOutput
	res = call(t, s, "lsp_hover", map[string]any{"file": "use.go", "line": 3, "symbol": "Greeting"}, &hover)
	if res.IsError || hover.Content == nil || !strings.Contains(*hover.Content, "func Greeting(name string) string") {
		t.Fatalf("hover: %+v %q", hover, textOf(res))
	}
	var syms service.SymbolsOutput
	res = call(t, s, "lsp_document_symbols", map[string]any{"file": "lib.go"}, &syms)
	if res.IsError || len(syms.Symbols) != 1 || syms.Symbols[0].Name != "Greeting" || syms.Symbols[0].Kind != "function" {
		t.Fatalf("document symbols: %+v %q", syms, textOf(res))
	}
	var ws service.WorkspaceSymbolsOutput
	res = call(t, s, "lsp_workspace_symbols", map[string]any{"query": "Greeting"}, &ws)
	if res.IsError || !slices.ContainsFunc(ws.Symbols, func(s service.WorkspaceSymbol) bool { return s.Name == "Greeting" && s.File == "lib.go" }) {
		t.Fatalf("workspace symbols: %+v %q", ws, textOf(res))
	}

	// use.go is open in gopls; it changes on disk, and lsp_diagnostics sees it.
	var diags service.DiagnosticsOutput
	call(t, s, "lsp_diagnostics", nil, &diags)
	if len(diags.Files) != 0 {
		t.Fatalf("diagnostics before the change: %+v", diags)
	}
	writeFiles(t, root, map[string]string{"use.go": "package demo\n\nfunc Use() int { return Greeting(\"x\") }\n"})
	res = call(t, s, "lsp_diagnostics", nil, &diags)
	if d := diags.Files["use.go"]; len(d) != 1 || d[0].Line != 3 || !strings.Contains(textOf(res), "use.go:3:") {
		t.Fatalf("diagnostics after the change on disk: %+v %q", diags, textOf(res))
	}
	var check service.CheckResult
	res = call(t, s, "lsp_check_file", map[string]any{"filePath": "use.go", "text": "package demo\n\nfunc Use() string { return Greeting(\"x\") }\n"}, &check)
	if res.IsError || len(check.Diagnostics) != 0 || len(check.Servers) != 1 || check.Servers[0].Verdict != service.VerdictSettled {
		t.Fatalf("check_file: %+v %q", check, textOf(res))
	}
	// Text given by the caller stands: lsp_diagnostics does not re-read the
	// file (which still has the error) over it.
	diags = service.DiagnosticsOutput{}
	call(t, s, "lsp_diagnostics", nil, &diags)
	if len(diags.Files["use.go"]) != 0 {
		t.Fatalf("lsp_diagnostics replaced the caller's text with the disk's: %+v", diags)
	}

	// Errors the model can act on.
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"lsp_goto_definition", map[string]any{"file": "../elsewhere.go", "line": 1, "character": 1}, "outside the workspace root"},
		{"lsp_hover", map[string]any{"file": "notes.xyz", "line": 1, "character": 1}, "no language server for .xyz files; configured servers: "},
		{"lsp_check_file", map[string]any{"filePath": "notes.xyz"}, "no language server for .xyz files"},
		{"lsp_hover", map[string]any{"file": "lib.go", "line": 40, "character": 1}, "line 40 is past the end of lib.go (4 lines)"},
		{"lsp_hover", map[string]any{"file": "lib.go", "line": 4, "symbol": "Nope"}, `"Nope" does not occur on line 4`},
		{"lsp_goto_definition", map[string]any{"file": "lib.go"}, "line"},
	} {
		res := call(t, s, tc.tool, tc.args, nil)
		if !res.IsError || !strings.Contains(textOf(res), tc.want) {
			t.Errorf("%s %v: error %v %q, want %q", tc.tool, tc.args, res.IsError, textOf(res), tc.want)
		}
	}
	var st service.StatusOutput
	call(t, s, "lsp_status", nil, &st)
	if !slices.ContainsFunc(st.Servers, func(s service.ServerStatus) bool { return s.ID == "gopls" && s.Status == "active" && s.ServerPID > 0 }) {
		t.Fatalf("status: %+v", st)
	}
}

// TestMCPStarting: a server that has not finished starting is a tool error
// that says to retry.
func TestMCPStarting(t *testing.T) {
	exe, _ := os.Executable()
	cfg := fmt.Sprintf(`{"lsp":{"autoInstall":false,"firstTouchTimeout":300,"servers":{"hangs":{"command":%q,"extensions":[".hang"],"env":{"LSPKIT_FAKE":"hang-initialize"}}}}}`, exe)
	root := mcpFixture(t, cfg)
	writeFiles(t, root, map[string]string{"a.hang": "x\n"})
	s := connect(t, root)
	res := call(t, s, "lsp_hover", map[string]any{"file": "a.hang", "line": 1, "character": 1}, nil)
	if !res.IsError || !strings.Contains(textOf(res), "hangs is still starting; retry in a moment") {
		t.Fatalf("hover: %v %q", res.IsError, textOf(res))
	}
}

func TestMCPDisabled(t *testing.T) {
	s := connect(t, mcpFixture(t, `{"lsp": false}`))
	tools := toolNames(t, s)
	if len(tools) != 1 || tools["lsp_status"] == nil {
		t.Fatalf("tools with lsp: false: %v", tools)
	}
	var st service.StatusOutput
	res := call(t, s, "lsp_status", nil, &st)
	if !st.Disabled || !strings.Contains(textOf(res), "LSP is disabled by configuration") {
		t.Fatalf("status: %+v %q", st, textOf(res))
	}
	s = connect(t, mcpFixture(t, noInstall(`,"navigationTools":false`)))
	tools = toolNames(t, s)
	if len(tools) != 3 || tools["lsp_check_file"] == nil || tools["lsp_diagnostics"] == nil || tools["lsp_hover"] != nil {
		t.Fatalf("tools with navigationTools: false: %v", tools)
	}
}

// TestMCPFDs: `lspkit serve --mcp-fds 3,4`: the control channel on stdio and
// MCP on fds 3 and 4 share one orchestrator and one gopls.
func TestMCPFDs(t *testing.T) {
	serversEnv(t)
	root := mcpFixture(t, noInstall(""))
	mcpIn, toDaemon, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromDaemon, mcpOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(lspkitBin, "serve", "--root", root, "--mcp-fds", "3,4")
	cmd.ExtraFiles = []*os.File{mcpIn, mcpOut}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	mcpIn.Close()
	mcpOut.Close()
	ready := make(chan struct{}, 1)
	conn := transport.NewConn(pipes{stdout, stdin}, transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == "lsp/ready" {
			ready <- struct{}{}
		}
		return nil, nil
	})})
	t.Cleanup(func() {
		conn.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("no lsp/ready")
	}
	d := &daemon{t: t, conn: conn}
	var diags []service.Diagnostic
	d.must("lsp/checkFile", map[string]any{"filePath": "use.go"}, &diags)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "lspkit-test", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: fromDaemon, Writer: toDaemon}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	var hover service.HoverOutput
	res := call(t, session, "lsp_hover", map[string]any{"file": "use.go", "line": 3, "symbol": "Greeting"}, &hover)
	if res.IsError || hover.Content == nil || !strings.Contains(*hover.Content, "func Greeting") {
		t.Fatalf("hover: %q", textOf(res))
	}
	var sts []service.ServerStatus
	d.must("lsp/status", nil, &sts)
	var pids []int
	for _, s := range sts {
		if s.ID == "gopls" {
			pids = append(pids, s.ServerPID)
		}
	}
	var st service.StatusOutput
	call(t, session, "lsp_status", nil, &st)
	var mcpPids []int
	for _, s := range st.Servers {
		if s.ID == "gopls" {
			mcpPids = append(mcpPids, s.ServerPID)
		}
	}
	if len(pids) != 1 || pids[0] <= 0 || !slices.Equal(pids, mcpPids) {
		t.Fatalf("gopls pids: control %v, mcp %v", pids, mcpPids)
	}
	n := 0
	for _, pid := range processesIn(root) {
		if exe, _ := os.Readlink("/proc/" + pid + "/exe"); filepath.Base(exe) == "gopls" {
			n++
			if pid != fmt.Sprint(pids[0]) {
				t.Errorf("another gopls: %s", pid)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d gopls processes", n)
	}
}

// pipes joins a child's stdout and stdin into one stream.
type pipes struct {
	r interface{ Read([]byte) (int, error) }
	w interface {
		Write([]byte) (int, error)
		Close() error
	}
}

func (p pipes) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error                { return p.w.Close() }
