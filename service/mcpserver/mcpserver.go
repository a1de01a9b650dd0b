// Package mcpserver is the daemon's MCP surface: the lsp_* tools, each a
// typed handler over the orchestrator's Go API with a model-facing schema,
// structured content and a compact text rendering. It holds no
// orchestration of its own; the orchestrator's errors become tool errors
// with the same messages the JSON-RPC surface sends.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/transport"
)

// Caps on what one MCP tool result carries; the rest is counted in Omitted.
const (
	maxMCPLocations = 100
	maxMCPSymbols   = 200
)

// New returns an MCP server whose tools use o: the contract's diagnostics,
// status and navigation tools. navigationTools: false leaves the navigation
// tools out; lsp: false leaves only lsp_status, which says so.
func New(o *orchestrator.Orchestrator, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "lspkit", Version: version}, &mcp.ServerOptions{
		Instructions: "Language-server diagnostics and code navigation for the files of " + o.Root() +
			". Paths are relative to that root (or absolute inside it); lines and columns are 1-based, columns count characters.",
	})
	m := &mcpTools{o: o}
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_status", Description: "Lists the language servers lspkit knows for this workspace and their state: " +
		"active (running, or ready to start on the first matching file), starting, broken (crashed too often; the reason says why), " +
		"disabled or unavailable (not installed; the reason says how to install it)."}, tool(m.status))
	if o.Config().Disabled {
		return s
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_check_file", Description: "Checks one file with every language server for its type and returns its diagnostics " +
		"(errors by default) with 1-based positions. Give text to check unsaved content instead of the file on disk. " +
		"Each server's verdict says whether its answer is final (settled) or it ran out of time."}, tool(m.checkFile))
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_diagnostics", Description: "Returns the current diagnostics of every file the language servers have reported on, by file. " +
		"Files open in a server whose content changed on disk are re-checked first. Give file to check that file from disk first."}, tool(m.diagnostics))
	if !o.Config().NavigationTools {
		return s
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_goto_definition", Description: "Finds where the symbol at a position is defined. " +
		"Give the file, the 1-based line, and either the 1-based column (character) or the symbol's name as it appears on that line."}, tool(m.locations(o.Definition)))
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_find_references", Description: "Finds every reference to the symbol at a position, its declaration included, across the workspace. " +
		"Give the file, the 1-based line, and either the 1-based column (character) or the symbol's name on that line."}, tool(m.locations(o.References)))
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_hover", Description: "Returns the language server's hover text for the symbol at a position: " +
		"its signature or type and its documentation, as markdown; null content when there is nothing there."}, tool(m.hover))
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_document_symbols", Description: "Lists the symbols a file declares (functions, types, methods, fields, …) as a tree with 1-based ranges.",
		OutputSchema: symbolsSchema}, tool(m.documentSymbols))
	mcp.AddTool(s, &mcp.Tool{Name: "lsp_workspace_symbols", Description: "Searches the workspace for symbols whose name matches query, in the language servers already running " +
		"(check or open a file of the language first)."}, tool(m.workspaceSymbols))
	return s
}

type mcpTools struct{ o *orchestrator.Orchestrator }

// tool wraps a handler so that its errors reach the model as tool errors
// with the message alone: the orchestrator's *transport.Error carries the
// same message the JSON-RPC surface sends, its code is for programs.
func tool[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		if e, ok := errors.AsType[*transport.Error](err); ok {
			err = errors.New(e.Message)
		}
		return res, out, err
	}
}

// PositionInput is where a navigation tool looks.
type PositionInput struct {
	File       string `json:"file" jsonschema:"the file: a path relative to the workspace root, or absolute inside it"`
	Line       int    `json:"line" jsonschema:"1-based line number"`
	Character  int    `json:"character,omitempty" jsonschema:"1-based column, counted in characters; may be left out when symbol is given"`
	Symbol     string `json:"symbol,omitempty" jsonschema:"instead of character: the symbol's name as written on that line, matched as a whole identifier"`
	Occurrence int    `json:"occurrence,omitempty" jsonschema:"which occurrence of symbol on the line, 1-based (default: the first, and the answer says when there are several)"`
}

func (in PositionInput) params() api.PositionParams {
	return api.PositionParams{File: in.File, Line: in.Line, Character: in.Character, Symbol: in.Symbol, Occurrence: in.Occurrence}
}

// LocationsOutput is a navigation tool's answer.
type LocationsOutput struct {
	Locations []api.Location `json:"locations" jsonschema:"the places found, 1-based"`
	Omitted   int            `json:"omitted,omitempty" jsonschema:"how many more places were found than are listed"`
	Note      string         `json:"note,omitempty" jsonschema:"how the position was read when the request left a choice"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func (m *mcpTools) locations(find func(context.Context, api.PositionParams) (api.LocationsResult, error)) mcp.ToolHandlerFor[PositionInput, LocationsOutput] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in PositionInput) (*mcp.CallToolResult, LocationsOutput, error) {
		res, err := find(ctx, in.params())
		if err != nil {
			return nil, LocationsOutput{}, err
		}
		locs := res.Locations
		out := LocationsOutput{Locations: locs, Note: res.Note}
		if len(locs) > maxMCPLocations {
			out.Locations, out.Omitted = locs[:maxMCPLocations], len(locs)-maxMCPLocations
		}
		var b strings.Builder
		if out.Note != "" {
			b.WriteString(out.Note + "\n")
		}
		if len(out.Locations) == 0 {
			b.WriteString("nothing found\n")
		}
		for _, l := range out.Locations {
			fmt.Fprintf(&b, "%s:%d:%d: %s\n", l.File, l.Line, l.Character, l.Source)
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
	res, err := m.o.Hover(ctx, in.params())
	if err != nil {
		return nil, HoverOutput{}, err
	}
	if res.Content == nil {
		return text("nothing to show at this position"), HoverOutput{}, nil
	}
	return text(*res.Content), HoverOutput{Content: res.Content}, nil
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
	Symbols []api.Symbol `json:"symbols" jsonschema:"the file's symbols; children nest"`
	Omitted int          `json:"omitted,omitempty" jsonschema:"how many more symbols there are than are listed"`
}

func (m *mcpTools) documentSymbols(ctx context.Context, _ *mcp.CallToolRequest, in FileInput) (*mcp.CallToolResult, SymbolsOutput, error) {
	res, err := m.o.DocumentSymbols(ctx, api.FileParams{File: in.File})
	if err != nil {
		return nil, SymbolsOutput{}, err
	}
	syms := res.Symbols
	budget := maxMCPSymbols
	out := SymbolsOutput{Symbols: capSymbols(syms, &budget)}
	out.Omitted = countSymbols(syms) - countSymbols(out.Symbols)
	var b strings.Builder
	var render func([]api.Symbol, string)
	render = func(ss []api.Symbol, indent string) {
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
func capSymbols(in []api.Symbol, budget *int) []api.Symbol {
	var out []api.Symbol
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

func countSymbols(ss []api.Symbol) int {
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
	Symbols []api.WorkspaceSymbol `json:"symbols" jsonschema:"the matching symbols with their files and 1-based ranges"`
	Omitted int                   `json:"omitted,omitempty" jsonschema:"how many more matched than are listed"`
}

func (m *mcpTools) workspaceSymbols(ctx context.Context, _ *mcp.CallToolRequest, in QueryInput) (*mcp.CallToolResult, WorkspaceSymbolsOutput, error) {
	res, err := m.o.WorkspaceSymbols(ctx, api.QueryParams{Query: in.Query})
	if err != nil {
		return nil, WorkspaceSymbolsOutput{}, err
	}
	syms := res.Symbols
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
	Delta     bool   `json:"delta,omitempty" jsonschema:"list only findings the previous check of this file did not show (same range and message); the others are counted"`
}

func (m *mcpTools) checkFile(ctx context.Context, _ *mcp.CallToolRequest, in CheckInput) (*mcp.CallToolResult, api.CheckResult, error) {
	var t *string
	if in.Text != "" {
		t = &in.Text
	}
	res, err := m.o.Check(ctx, api.CheckParams{FilePath: in.FilePath, Text: t, TimeoutMs: in.TimeoutMs, Delta: in.Delta})
	if err != nil {
		return nil, api.CheckResult{}, err
	}
	var b strings.Builder
	renderDiagnostics(&b, res.Diagnostics)
	severities := strings.Join(m.o.Config().IncludeSeverities, " or ")
	switch {
	case !res.Checked && len(res.Servers) == 0:
		fmt.Fprintf(&b, "not checked: %s\n", res.Reason)
	case len(res.Diagnostics) == 0 && res.Checked && res.Repeated == 0:
		fmt.Fprintf(&b, "no %s in %s\n", severities, in.FilePath)
	case len(res.Diagnostics) == 0 && res.Checked:
		fmt.Fprintf(&b, "no new %s in %s\n", severities, in.FilePath)
	case !res.Checked:
		fmt.Fprintf(&b, "not fully checked: %s\n", res.Reason)
	}
	if res.Repeated > 0 {
		fmt.Fprintf(&b, "(%d %s shown before %s still there)\n", res.Repeated, plural(res.Repeated, "finding", "findings"), plural(res.Repeated, "is", "are"))
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

func renderDiagnostics(b *strings.Builder, ds []api.Diagnostic) {
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
	Diagnostics api.FileDiagnostics `json:"diagnostics" jsonschema:"diagnostics by file (relative to the root); files without any are left out"`
}

func (m *mcpTools) diagnostics(ctx context.Context, _ *mcp.CallToolRequest, in DiagnosticsInput) (*mcp.CallToolResult, DiagnosticsOutput, error) {
	before := m.o.Epoch()
	if in.File != "" {
		if _, err := m.o.Check(ctx, api.CheckParams{FilePath: in.File}); err != nil {
			return nil, DiagnosticsOutput{}, err
		}
	}
	m.o.RefreshFromDisk(ctx)
	files, err := m.o.DiagnosticsAfter(ctx, api.DiagnosticsAfterParams{AfterEpoch: before})
	if err != nil {
		return nil, DiagnosticsOutput{}, err
	}
	var b strings.Builder
	for _, f := range slices.Sorted(maps.Keys(files)) {
		renderDiagnostics(&b, files[f])
	}
	switch {
	case len(files) > 0:
	case !slices.ContainsFunc(m.o.Status(), func(s api.ServerStatus) bool { return s.Root != "" }):
		b.WriteString("no file has been checked yet, so nothing is known: check a file (lsp_check_file, or give file here) first\n")
	default:
		fmt.Fprintf(&b, "no %s reported in the files checked so far\n", strings.Join(m.o.Config().IncludeSeverities, " or "))
	}
	return text(b.String()), DiagnosticsOutput{Diagnostics: files}, nil
}

// StatusOutput is lsp_status' answer.
type StatusOutput struct {
	Disabled bool               `json:"disabled,omitempty" jsonschema:"true when the configuration turns LSP off"`
	Servers  []api.ServerStatus `json:"servers" jsonschema:"every known server, by id"`
}

func (m *mcpTools) status(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, StatusOutput, error) {
	out := StatusOutput{Disabled: m.o.Config().Disabled, Servers: m.o.Status()}
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
		if s.Watching != "" {
			fmt.Fprintf(&b, " (file watching: %s)", s.Watching)
		}
		if sc := s.Sidecar; sc != nil {
			fmt.Fprintf(&b, " (sidecar: %s%s%s)", sc.Status, pidPart(sc.PID), prefixed(sc.Reason))
		}
		b.WriteString("\n")
	}
	return text(b.String()), out, nil
}

// plural picks the singular for n == 1.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func pidPart(pid int) string {
	if pid <= 0 {
		return ""
	}
	return fmt.Sprintf(" pid %d", pid)
}
