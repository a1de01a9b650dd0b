package service

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/protocol"
)

// Caps on what one MCP tool result carries; the rest is counted in Omitted.
const (
	maxMCPLocations = 100
	maxMCPSymbols   = 200
)

// NewMCPServer returns an MCP server whose tools use o: the contract's
// diagnostics, status and navigation tools. navigationTools: false leaves
// the navigation tools out; lsp: false leaves only lsp_status, which says
// so.
func NewMCPServer(o *Orchestrator, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "lspkit", Version: version}, &mcp.ServerOptions{
		Instructions: "Language-server diagnostics and code navigation for the files of " + o.Root() +
			". Paths are relative to that root (or absolute inside it); lines and columns are 1-based, columns count characters.",
	})
	m := &mcpTools{o: o}
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_status", Description: "Lists the language servers lspkit knows for this workspace and their state: " +
		"active (running, or ready to start on the first matching file), starting, broken (crashed too often; the reason says why), " +
		"disabled or unavailable (not installed; the reason says how to install it)."}, m.status)
	if o.cfg.Disabled {
		return s
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_check_file", Description: "Checks one file with every language server for its type and returns its diagnostics " +
		"(errors by default) with 1-based positions. Give text to check unsaved content instead of the file on disk. " +
		"Each server's verdict says whether its answer is final (settled) or it ran out of time."}, m.checkFile)
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_diagnostics", Description: "Returns the current diagnostics of every file the language servers have reported on, by file. " +
		"Files open in a server whose content changed on disk are re-checked first. Give file to check that file from disk first."}, m.diagnostics)
	if !o.cfg.NavigationTools {
		return s
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_goto_definition", Description: "Finds where the symbol at a position is defined. " +
		"Give the file, the 1-based line, and either the 1-based column (character) or the symbol's name as it appears on that line."}, m.locations(protocol.MethodTextDocumentDefinition))
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_find_references", Description: "Finds every reference to the symbol at a position, its declaration included, across the workspace. " +
		"Give the file, the 1-based line, and either the 1-based column (character) or the symbol's name on that line."}, m.locations(protocol.MethodTextDocumentReferences))
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_hover", Description: "Returns the language server's hover text for the symbol at a position: " +
		"its signature or type and its documentation, as markdown; null content when there is nothing there."}, m.hover)
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_document_symbols", Description: "Lists the symbols a file declares (functions, types, methods, fields, …) as a tree with 1-based ranges.",
		OutputSchema: symbolsSchema}, m.documentSymbols)
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_workspace_symbols", Description: "Searches the workspace for symbols whose name matches query, in the language servers already running " +
		"(check or open a file of the language first)."}, m.workspaceSymbols)
	return s
}

type mcpTools struct{ o *Orchestrator }

// PositionInput is where a navigation tool looks.
type PositionInput struct {
	File      string `json:"file" jsonschema:"the file: a path relative to the workspace root, or absolute inside it"`
	Line      int    `json:"line" jsonschema:"1-based line number"`
	Character int    `json:"character,omitempty" jsonschema:"1-based column, counted in characters; may be left out when symbol is given"`
	Symbol    string `json:"symbol,omitempty" jsonschema:"instead of character: the symbol's name as written on that line (its first occurrence is used)"`
}

func (in PositionInput) pos() Pos {
	return Pos{Line: in.Line, Character: in.Character, Symbol: in.Symbol}
}

// LocationsOutput is a navigation tool's answer.
type LocationsOutput struct {
	Locations []Location `json:"locations" jsonschema:"the places found, 1-based"`
	Omitted   int        `json:"omitted,omitempty" jsonschema:"how many more places were found than are listed"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func (m *mcpTools) locations(method string) mcp.ToolHandlerFor[PositionInput, LocationsOutput] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in PositionInput) (*mcp.CallToolResult, LocationsOutput, error) {
		locs, err := m.o.Navigate(ctx, method, in.File, in.pos())
		if err != nil {
			return nil, LocationsOutput{}, err
		}
		out := LocationsOutput{Locations: locs}
		if len(locs) > maxMCPLocations {
			out.Locations, out.Omitted = locs[:maxMCPLocations], len(locs)-maxMCPLocations
		}
		var b strings.Builder
		if len(out.Locations) == 0 {
			b.WriteString("nothing found\n")
		}
		for _, l := range out.Locations {
			fmt.Fprintf(&b, "%s:%d:%d\n", l.File, l.Line, l.Character)
		}
		if out.Omitted > 0 {
			fmt.Fprintf(&b, "… and %d more\n", out.Omitted)
		}
		return text(b.String()), out, nil
	}
}

// HoverOutput is lsp_hover's answer.
type HoverOutput struct {
	Content *string `json:"content" jsonschema:"the hover text (markdown), or null when there is nothing at the position"`
}

func (m *mcpTools) hover(ctx context.Context, _ *mcp.CallToolRequest, in PositionInput) (*mcp.CallToolResult, HoverOutput, error) {
	s, ok, err := m.o.Hover(ctx, in.File, in.pos())
	if err != nil {
		return nil, HoverOutput{}, err
	}
	if !ok {
		return text("nothing to show at this position"), HoverOutput{}, nil
	}
	return text(s), HoverOutput{Content: &s}, nil
}

// FileInput names a file.
type FileInput struct {
	File string `json:"file" jsonschema:"the file: a path relative to the workspace root, or absolute inside it"`
}

// symbolsSchema is lsp_document_symbols' output schema, written out: the
// symbol tree is recursive, which schema inference cannot express.
var symbolsSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"symbols": map[string]any{
			"type":        "array",
			"description": "the file's symbols: name, kind, detail, range {startLine, startChar, endLine, endChar} (1-based) and children of the same shape",
			"items":       map[string]any{"type": "object", "required": []string{"name", "kind", "range"}},
		},
		"omitted": map[string]any{"type": "integer", "description": "how many more symbols there are than are listed"},
	},
	"required": []string{"symbols"},
}

// SymbolsOutput is lsp_document_symbols' answer.
type SymbolsOutput struct {
	Symbols []Symbol `json:"symbols" jsonschema:"the file's symbols; children nest"`
	Omitted int      `json:"omitted,omitempty" jsonschema:"how many more symbols there are than are listed"`
}

func (m *mcpTools) documentSymbols(ctx context.Context, _ *mcp.CallToolRequest, in FileInput) (*mcp.CallToolResult, SymbolsOutput, error) {
	syms, err := m.o.DocumentSymbols(ctx, in.File)
	if err != nil {
		return nil, SymbolsOutput{}, err
	}
	budget := maxMCPSymbols
	out := SymbolsOutput{Symbols: capSymbols(syms, &budget)}
	out.Omitted = countSymbols(syms) - countSymbols(out.Symbols)
	var b strings.Builder
	var render func([]Symbol, string)
	render = func(ss []Symbol, indent string) {
		for _, s := range ss {
			fmt.Fprintf(&b, "%s%s %s %d:%d-%d:%d\n", indent, s.Kind, s.Name, s.Range.StartLine, s.Range.StartChar, s.Range.EndLine, s.Range.EndChar)
			render(s.Children, indent+"  ")
		}
	}
	render(out.Symbols, "")
	if out.Omitted > 0 {
		fmt.Fprintf(&b, "… and %d more\n", out.Omitted)
	}
	if len(out.Symbols) == 0 {
		b.WriteString("no symbols\n")
	}
	return text(b.String()), out, nil
}

// capSymbols keeps the first *budget symbols of a tree, depth first.
func capSymbols(in []Symbol, budget *int) []Symbol {
	var out []Symbol
	for _, s := range in {
		if *budget <= 0 {
			break
		}
		*budget--
		s.Children = capSymbols(s.Children, budget)
		out = append(out, s)
	}
	return out
}

func countSymbols(ss []Symbol) int {
	n := len(ss)
	for _, s := range ss {
		n += countSymbols(s.Children)
	}
	return n
}

// QueryInput is lsp_workspace_symbols' input.
type QueryInput struct {
	Query string `json:"query" jsonschema:"the name, or part of it, to search for"`
}

// WorkspaceSymbolsOutput is lsp_workspace_symbols' answer.
type WorkspaceSymbolsOutput struct {
	Symbols []WorkspaceSymbol `json:"symbols" jsonschema:"the matching symbols with their files and 1-based ranges"`
	Omitted int               `json:"omitted,omitempty" jsonschema:"how many more matched than are listed"`
}

func (m *mcpTools) workspaceSymbols(ctx context.Context, _ *mcp.CallToolRequest, in QueryInput) (*mcp.CallToolResult, WorkspaceSymbolsOutput, error) {
	syms, err := m.o.WorkspaceSymbols(ctx, in.Query)
	if err != nil {
		return nil, WorkspaceSymbolsOutput{}, err
	}
	out := WorkspaceSymbolsOutput{Symbols: syms}
	if len(syms) > maxMCPSymbols {
		out.Symbols, out.Omitted = syms[:maxMCPSymbols], len(syms)-maxMCPSymbols
	}
	var b strings.Builder
	for _, s := range out.Symbols {
		fmt.Fprintf(&b, "%s %s %s:%d:%d\n", s.Kind, s.Name, s.File, s.Range.StartLine, s.Range.StartChar)
	}
	if out.Omitted > 0 {
		fmt.Fprintf(&b, "… and %d more\n", out.Omitted)
	}
	if len(out.Symbols) == 0 {
		b.WriteString("no symbols found (workspace search covers the servers already running: check a file of the language first)\n")
	}
	return text(b.String()), out, nil
}

// CheckInput is lsp_check_file's input.
type CheckInput struct {
	FilePath  string `json:"filePath" jsonschema:"the file: a path relative to the workspace root, or absolute inside it"`
	Text      string `json:"text,omitempty" jsonschema:"the file's content to check instead of what is on disk (unsaved edits)"`
	TimeoutMs int    `json:"timeoutMs,omitempty" jsonschema:"how long to wait for each server, in milliseconds (default: the configured timeouts)"`
}

func (m *mcpTools) checkFile(ctx context.Context, _ *mcp.CallToolRequest, in CheckInput) (*mcp.CallToolResult, CheckResult, error) {
	var t *string
	if in.Text != "" {
		t = &in.Text
	}
	abs, ok := m.o.resolve(in.FilePath)
	if !ok {
		return nil, CheckResult{}, &OutsideRootError{Path: in.FilePath}
	}
	if len(m.o.serversFor(abs)) == 0 {
		return nil, CheckResult{}, &NoServerError{File: m.o.rel(abs), Known: m.o.knownServers()}
	}
	res, err := m.o.CheckFile(ctx, abs, t, time.Duration(in.TimeoutMs)*time.Millisecond)
	if err != nil {
		return nil, CheckResult{}, err
	}
	var b strings.Builder
	renderDiagnostics(&b, res.Diagnostics)
	if len(res.Diagnostics) == 0 {
		fmt.Fprintf(&b, "no %s in %s\n", strings.Join(m.o.cfg.IncludeSeverities, " or "), m.o.rel(abs))
	}
	for _, s := range res.Servers {
		fmt.Fprintf(&b, "[%s: %s in %d ms%s]\n", s.ID, s.Verdict, s.MS, prefixed(s.Reason))
	}
	return text(b.String()), res, nil
}

func prefixed(reason string) string {
	if reason == "" {
		return ""
	}
	return "; " + reason
}

func renderDiagnostics(b *strings.Builder, ds []Diagnostic) {
	for _, d := range ds {
		fmt.Fprintf(b, "%s:%d:%d: %s: %s", d.File, d.Line, d.Character, d.Severity, d.Message)
		if d.Code != nil {
			fmt.Fprintf(b, " (%v)", d.Code)
		}
		fmt.Fprintf(b, " [%s]\n", d.Server)
	}
}

// DiagnosticsInput is lsp_diagnostics' input.
type DiagnosticsInput struct {
	File string `json:"file,omitempty" jsonschema:"a file to check from disk first (optional)"`
}

// DiagnosticsOutput is lsp_diagnostics' answer.
type DiagnosticsOutput struct {
	Files FileDiagnostics `json:"files" jsonschema:"diagnostics by file (relative to the root); files without any are left out"`
}

func (m *mcpTools) diagnostics(ctx context.Context, _ *mcp.CallToolRequest, in DiagnosticsInput) (*mcp.CallToolResult, DiagnosticsOutput, error) {
	before := m.o.Epoch()
	if in.File != "" {
		abs, ok := m.o.resolve(in.File)
		if !ok {
			return nil, DiagnosticsOutput{}, &OutsideRootError{Path: in.File}
		}
		if _, err := m.o.CheckFile(ctx, abs, nil, 0); err != nil {
			return nil, DiagnosticsOutput{}, err
		}
	}
	m.o.refreshFromDisk(ctx)
	files := m.o.DiagnosticsAfter(ctx, before, time.Second)
	var b strings.Builder
	for _, f := range sortedKeys(files) {
		renderDiagnostics(&b, files[f])
	}
	if len(files) == 0 {
		fmt.Fprintf(&b, "no %s reported\n", strings.Join(m.o.cfg.IncludeSeverities, " or "))
	}
	return text(b.String()), DiagnosticsOutput{Files: files}, nil
}

// refreshFromDisk re-checks the documents open in a server from their file
// on disk whose file now differs from what the server has (edited outside
// lspkit). Documents checked with text from the caller keep that text.
func (o *Orchestrator) refreshFromDisk(ctx context.Context) {
	seen := map[string]bool{}
	for _, s := range o.liveSessions() {
		c := s.current()
		if c == nil {
			continue
		}
		s.mu.Lock()
		var uris []protocol.DocumentURI
		for uri, ch := range s.changes {
			if ch.disk {
				uris = append(uris, uri)
			}
		}
		s.mu.Unlock()
		for _, uri := range uris {
			path, err := uri.Path()
			if err != nil || seen[path] {
				continue
			}
			have, open := c.DocumentText(uri)
			disk, err := os.ReadFile(path)
			if !open || err != nil || string(disk) == have {
				continue
			}
			seen[path] = true
			if _, err := o.CheckFile(ctx, path, nil, 0); err != nil {
				o.log.Warn("refresh from disk", "file", o.rel(path), "err", err)
			}
		}
	}
}

// StatusOutput is lsp_status' answer.
type StatusOutput struct {
	Disabled bool           `json:"disabled,omitempty" jsonschema:"true when the configuration turns LSP off"`
	Servers  []ServerStatus `json:"servers" jsonschema:"every known server, by id"`
}

func (m *mcpTools) status(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, StatusOutput, error) {
	out := StatusOutput{Disabled: m.o.cfg.Disabled, Servers: m.o.Status()}
	var b strings.Builder
	if out.Disabled {
		b.WriteString("LSP is disabled by configuration (lsp: false): no language server runs and only this tool is available.\n")
	}
	for _, s := range out.Servers {
		fmt.Fprintf(&b, "%s (%s): %s", s.ID, s.Language, s.Status)
		if s.ServerPID > 0 {
			fmt.Fprintf(&b, " pid %d", s.ServerPID)
		}
		if s.Reason != "" {
			fmt.Fprintf(&b, " — %s", s.Reason)
		}
		b.WriteString("\n")
	}
	return text(b.String()), out, nil
}
