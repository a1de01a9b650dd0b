// Package mcpserver is the daemon's MCP surface: the lsp_* tools, each a
// typed handler over the orchestrator's Go API with a model-facing schema
// and a compact text rendering — the model's answer — and, when the
// configuration asks (mcpStructuredContent), an output schema and
// structured content. It holds no
// orchestration of its own; the orchestrator's errors become tool errors
// with the same messages the JSON-RPC surface sends.
package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/features"
)

// Caps on what one MCP tool result carries; the rest is counted in Omitted.
const (
	maxMCPLocations = 100
	maxMCPSymbols   = 200
)

// Options configures New.
type Options struct {
	// Version is lspkit's version, said in initialize.
	Version string
	// ReadOnly leaves out the tools that write files (lsp_rename,
	// lsp_apply_code_action, lsp_fix_all, lsp_apply_edits, lsp_format): for a channel whose
	// host calls every tool without asking (lspkit serve --mcp-fds, unless
	// fdWriteTools).
	ReadOnly bool
	// Format is the answers' text: FormatCompact (the default, for the
	// model) or FormatLong (a line per place, for programs that parse it).
	Format string
}

// New returns an MCP server whose tools use o: the contract's diagnostics,
// status and navigation tools. navigationTools: false leaves the navigation
// tools out; lsp: false leaves only lsp_status, which says so;
// opts.ReadOnly leaves out the tools that write.
func New(o *features.Service, opts Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "lspkit", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "Language-server diagnostics, navigation and checked edits for the files of " + o.Root() +
			". Paths are relative to that root (or absolute inside it); lines and columns are 1-based, columns count characters. " +
			"A place is file, line and character; or file, line and symbol (a name on or near that line); or symbol alone (a name or Type.method; file optional).",
	})
	format := opts.Format
	if format == "" {
		format = o.Config().MCPFormat
	}
	m := &mcpTools{o: o, long: format == FormatLong}
	ts := toolSet{server: s, structured: o.Config().MCPStructuredContent, asks: map[string]asker{}}
	add(ts, spec{"lsp_status", "Language server status", "Show which language servers run for this project, and why any cannot.",
		"language server status setup missing", false}, readOnly, m.status)
	if o.Config().Disabled {
		return s
	}
	addPrompts(s)
	add(ts, spec{"lsp_check_file", "Check a file", "Did an edit break anything? Check a file, and the files a change to it broke. text, files: proposed content.",
		"did my edit break anything errors typecheck", true}, readOnly, m.checkFile)
	add(ts, spec{"lsp_diagnostics", "Known diagnostics", "List the errors the language servers report now, by file.",
		"current errors problems list", false}, readOnly, m.diagnostics)
	add(ts, spec{"lsp_workspace_diagnostics", "Check the whole project", "Check every file of the project: does it all build?",
		"does the whole project build", false}, readOnly, m.workspaceDiagnostics)
	if !o.Config().NavigationTools {
		return s
	}
	applyWith := " Ids for lsp_apply_code_action."
	if opts.ReadOnly {
		applyWith = " (This channel applies none.)"
	}
	add(ts, spec{"lsp_goto_definition", "Go to definition", "Go to where a function, type or variable is defined.",
		"where is it defined jump to source", true}, readOnly, m.locations(o.Definition))
	add(ts, spec{"lsp_goto_type_definition", "Go to type definition", "Go to the definition of the type of a variable or expression.",
		"type of a variable definition", false}, readOnly, m.locations(o.TypeDefinition))
	add(ts, spec{"lsp_goto_implementation", "Find implementations", "Find the implementations of an interface, abstract method or type.",
		"who implements this interface", false}, readOnly, m.locations(o.Implementation))
	add(ts, spec{"lsp_find_references", "Find references", "Find every use of a symbol across the project, its declaration included.",
		"usages where is it used references", true}, readOnly, m.locations(o.References))
	add(ts, spec{"lsp_call_hierarchy", "Call hierarchy", "Who calls this function (incoming), or what it calls (outgoing).",
		"who calls this function callers callees", false}, readOnly, m.callHierarchy)
	add(ts, spec{"lsp_hover", "Hover", "What type is this? The type, signature and docs of the symbol at a place.",
		"what type is this docs signature", true}, readOnly, m.hover)
	add(ts, spec{"lsp_document_symbols", "Document symbols", "Outline a file: its functions, types, methods and fields, with lines.",
		"file outline functions classes", false}, readOnly, m.documentSymbols)
	add(ts, spec{"lsp_workspace_symbols", "Workspace symbols", "Search the whole project's functions, types and variables by name.",
		"find a symbol by name search", false}, readOnly, m.workspaceSymbols)
	add(ts, spec{"lsp_code_actions", "Code actions", "Quick fixes for an error, and refactorings, at a place or for a finding." + applyWith,
		"quick fix refactor organize imports", false}, readOnly, m.codeActions)
	m.addTypeInfo(ts)
	// After every read-only tool, which it asks.
	add(ts, spec{"lsp_batch", "Several questions at once", "Ask up to 20 read-only lsp_ tools in one call, answered in order.",
		"many questions at once batch", false}, readOnly, m.batch(ts.asks))
	if opts.ReadOnly {
		return s
	}
	add(ts, spec{"lsp_rename", "Rename symbol", "Rename a symbol across the project, not strings or comments. A diff unless apply.",
		"rename this across the project", false}, writes, m.rename)
	add(ts, spec{"lsp_apply_code_action", "Apply a code action", "Apply a fix or refactoring lsp_code_actions listed, by id. A diff unless apply.",
		"apply a quick fix", false}, writes, m.applyCodeAction)
	add(ts, spec{"lsp_fix_all", "Fix everything in a file", "Apply every fix the servers offer for a file, and organize its imports. A diff unless apply.",
		"fix everything auto fix cleanup", false}, writes, m.fixAll)
	add(ts, spec{"lsp_apply_edits", "Apply edits checked first", "Write edits only if they break nothing, checked with every file they affect.",
		"safe edit without breaking the build", false}, writes, m.applyEdits)
	add(ts, spec{"lsp_replace_symbol_body", "Replace a symbol's body", "Replace a function's, method's or class's body, checked as lsp_apply_edits does.",
		"rewrite a function body", false}, writes, m.replaceBody)
	add(ts, spec{"lsp_insert_before_symbol", "Insert before a symbol", "Insert code before a function, type or method, checked as lsp_apply_edits does.",
		"add code above a function", false}, writes, m.insert(o.InsertBeforeSymbol))
	add(ts, spec{"lsp_insert_after_symbol", "Insert after a symbol", "Insert code after a function, type or method, checked as lsp_apply_edits does.",
		"add code below a function", false}, writes, m.insert(o.InsertAfterSymbol))
	add(ts, spec{"lsp_safe_delete", "Delete a symbol safely", "Delete a symbol only if nothing uses it; else list its uses. force deletes anyway.",
		"delete unused code safely", false}, writes, m.safeDelete)
	add(ts, spec{"lsp_format", "Format a file", "Format a file, or some lines, as the project's formatter does. A diff unless apply.",
		"format code gofmt prettier black", false}, writes, m.format)
	return s
}

// PositionInput is where a navigation tool looks.
type PositionInput struct {
	File       string `json:"file,omitempty"`
	Line       int    `json:"line,omitempty"`
	Character  int    `json:"character,omitempty"`
	Symbol     string `json:"symbol,omitempty"`
	Occurrence int    `json:"occurrence,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

func (in PositionInput) params() api.PositionParams {
	return api.PositionParams{File: in.File, Line: in.Line, Character: in.Character, Symbol: in.Symbol, Occurrence: in.Occurrence, Kind: in.Kind}
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
		locs := nonNil(res.Locations)
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
		places := make([]place, len(out.Locations))
		for i, l := range out.Locations {
			places[i] = place{file: l.File, line: l.Line, char: l.Character, source: l.Source}
		}
		writePlaces(&b, places, m.long)
		if out.Omitted > 0 {
			fmt.Fprintf(&b, "… and %d more\n", out.Omitted)
		}
		return text(b.String()), out, nil
	}
}

// CallHierarchyInput is lsp_call_hierarchy's input.
type CallHierarchyInput struct {
	PositionInput
	Direction string `json:"direction" jsonschema:"incoming (callers) or outgoing (callees)"`
}

func (m *mcpTools) callHierarchy(ctx context.Context, _ *mcp.CallToolRequest, in CallHierarchyInput) (*mcp.CallToolResult, api.CallHierarchyResult, error) {
	res, err := m.o.CallHierarchy(ctx, api.CallHierarchyParams{PositionParams: in.params(), Direction: in.Direction})
	if err != nil {
		return nil, api.CallHierarchyResult{}, err
	}
	var b strings.Builder
	if res.Note != "" {
		b.WriteString(res.Note + "\n")
	}
	if res.Function != "" {
		verb := map[string]string{api.DirectionIncoming: "calls to", api.DirectionOutgoing: "calls from"}[in.Direction]
		fmt.Fprintf(&b, "%s %s: %d\n", verb, res.Function, len(res.Calls))
	}
	if len(res.Calls) > maxMCPLocations {
		fmt.Fprintf(&b, "(the first %d listed)\n", maxMCPLocations)
	}
	calls := res.Calls[:min(len(res.Calls), maxMCPLocations)]
	places := make([]place, len(calls))
	for i, c := range calls {
		places[i] = place{file: c.File, line: c.Line, char: c.Character, label: c.Name, full: c.Kind + " " + c.Name, source: c.Source}
	}
	writePlaces(&b, places, m.long)
	return text(b.String()), res, nil
}

// RenameInput is lsp_rename's input.
type RenameInput struct {
	PositionInput
	NewName string `json:"newName" jsonschema:"the new name"`
	Apply   bool   `json:"apply,omitempty" jsonschema:"write it, not just show the diff"`
}

// maxDiffLines bounds the diff in lsp_rename's text; the structured
// content has all of it.
const maxDiffLines = 400

func (m *mcpTools) rename(ctx context.Context, _ *mcp.CallToolRequest, in RenameInput) (*mcp.CallToolResult, api.RenameResult, error) {
	return m.edited(m.o.Rename(ctx, api.RenameParams{PositionParams: in.params(), NewName: in.NewName, Apply: in.Apply}))
}

// edited is an edit tool's answer (rename, code action, format): its
// rendering and structured content, or its error.
func (m *mcpTools) edited(res api.RenameResult, err error) (*mcp.CallToolResult, api.RenameResult, error) {
	if err != nil {
		return nil, api.RenameResult{}, err
	}
	return text(m.editText(res)), res, nil
}

// CodeActionsInput is lsp_code_actions's input.
type CodeActionsInput struct {
	File         string          `json:"file,omitempty"`
	Line         int             `json:"line,omitempty"`
	Character    int             `json:"character,omitempty"`
	Symbol       string          `json:"symbol,omitempty"`
	EndLine      int             `json:"endLine,omitempty"`
	EndCharacter int             `json:"endCharacter,omitempty"`
	Kinds        []string        `json:"kinds,omitempty" jsonschema:"quickfix, refactor, source.organizeImports, …"`
	Diagnostic   *api.Diagnostic `json:"diagnostic,omitempty" jsonschema:"a finding lspkit returned: its fixes"`
}

func (m *mcpTools) codeActions(ctx context.Context, _ *mcp.CallToolRequest, in CodeActionsInput) (*mcp.CallToolResult, api.CodeActionsResult, error) {
	res, err := m.o.CodeActions(ctx, api.CodeActionsParams{PositionParams: api.PositionParams{File: in.File, Line: in.Line, Character: in.Character, Symbol: in.Symbol},
		EndLine: in.EndLine, EndCharacter: in.EndCharacter, Kinds: in.Kinds, Diagnostic: in.Diagnostic})
	if err != nil {
		return nil, api.CodeActionsResult{}, err
	}
	var b strings.Builder
	if res.Note != "" {
		b.WriteString(res.Note + "\n")
	}
	for _, a := range res.Actions {
		fmt.Fprintf(&b, "%s: %s", a.ID, a.Title)
		var tags []string
		if a.Kind != "" {
			tags = append(tags, a.Kind)
		}
		tags = append(tags, a.Server)
		if a.Preferred {
			tags = append(tags, "preferred")
		}
		if a.Command != "" {
			tags = append(tags, "runs "+a.Command)
		}
		fmt.Fprintf(&b, " [%s]", strings.Join(tags, ", "))
		if a.Disabled != "" {
			fmt.Fprintf(&b, " (not here: %s)", a.Disabled)
		}
		b.WriteString("\n")
	}
	return text(b.String()), res, nil
}

// ApplyCodeActionInput is lsp_apply_code_action's input.
type ApplyCodeActionInput struct {
	ID    string `json:"id" jsonschema:"from lsp_code_actions"`
	Apply bool   `json:"apply,omitempty" jsonschema:"write it, not just show the diff"`
}

func (m *mcpTools) applyCodeAction(ctx context.Context, _ *mcp.CallToolRequest, in ApplyCodeActionInput) (*mcp.CallToolResult, api.RenameResult, error) {
	return m.edited(m.o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: in.ID, Apply: in.Apply}))
}

// FixAllInput is lsp_fix_all's input.
type FixAllInput struct {
	File  string `json:"file" jsonschema:"path from the project root"`
	Apply bool   `json:"apply,omitempty" jsonschema:"write them, not just show the diff"`
}

func (m *mcpTools) fixAll(ctx context.Context, _ *mcp.CallToolRequest, in FixAllInput) (*mcp.CallToolResult, api.FixAllResult, error) {
	res, err := m.o.FixAll(ctx, api.FixAllParams{File: in.File, Apply: in.Apply})
	if err != nil {
		return nil, api.FixAllResult{}, err
	}
	var b strings.Builder
	b.WriteString(m.editText(res.RenameResult))
	switch {
	case !res.Checked:
		b.WriteString("not known what remains: the file was not fully checked (see above)\n")
		m.renderDiagnostics(&b, res.Remaining)
	case len(res.Remaining) == 0:
		fmt.Fprintf(&b, "nothing remains at %s\n", strings.Join(m.o.Config().IncludeSeverities, " or "))
	default:
		b.WriteString("remaining:\n")
		m.renderDiagnostics(&b, res.Remaining)
	}
	return text(b.String()), res, nil
}

// FormatInput is lsp_format's input.
type FormatInput struct {
	File      string `json:"file" jsonschema:"path from the project root"`
	StartLine int    `json:"startLine,omitempty"`
	EndLine   int    `json:"endLine,omitempty"`
	Apply     bool   `json:"apply,omitempty" jsonschema:"write it, not just show the diff"`
}

func (m *mcpTools) format(ctx context.Context, _ *mcp.CallToolRequest, in FormatInput) (*mcp.CallToolResult, api.RenameResult, error) {
	return m.edited(m.o.Format(ctx, api.FormatParams{File: in.File, StartLine: in.StartLine, EndLine: in.EndLine, Apply: in.Apply}))
}

// editText renders an edit's answer (rename, code action, format): the
// note, the counts and state, the diff (capped) and, applied, the
// findings in the files changed.
func (m *mcpTools) editText(res api.RenameResult) string {
	var b strings.Builder
	if res.Note != "" {
		b.WriteString(res.Note + "\n")
	}
	state := "not applied (pass apply: true to write it)"
	switch {
	case res.Applied:
		state = "applied"
	case res.Preview != "":
		state = fmt.Sprintf("not applied (pass apply: true to write it, or lsp_apply_edits with preview %q to write it only if no new error appears)", res.Preview)
	}
	fmt.Fprintf(&b, "%d %s in %d %s, %s\n", res.Edits, api.Plural(res.Edits, "edit", "edits"), res.Files, api.Plural(res.Files, "file", "files"), state)
	lines := strings.SplitAfter(res.Diff, "\n")
	if len(lines) > maxDiffLines {
		b.WriteString(strings.Join(lines[:maxDiffLines], ""))
		fmt.Fprintf(&b, "… %d more diff lines\n", len(lines)-maxDiffLines)
	} else {
		b.WriteString(res.Diff)
	}
	if res.Applied {
		if len(res.Diagnostics) == 0 {
			fmt.Fprintf(&b, "no %s in the files changed\n", strings.Join(m.o.Config().IncludeSeverities, " or "))
		}
		for _, f := range slices.Sorted(maps.Keys(res.Diagnostics)) {
			m.renderDiagnostics(&b, res.Diagnostics[f])
		}
	}
	return b.String()
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
	File string `json:"file" jsonschema:"path from the project root"`
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
	out := SymbolsOutput{Symbols: nonNil(capSymbols(syms, &budget))}
	out.Omitted = countSymbols(syms) - countSymbols(out.Symbols)
	var b strings.Builder
	var render func([]api.Symbol, string)
	render = func(ss []api.Symbol, indent string) {
		for _, s := range ss {
			fmt.Fprintf(&b, "%s%s %s %d:%d-%d:%d\n", indent, s.Kind, s.Name, s.Range.StartLine, s.Range.StartChar, s.Range.EndLine, s.Range.EndChar)
			render(s.Children, indent+"  ")
		}
	}
	if m.long {
		render(out.Symbols, "")
	} else {
		writeOutline(&b, out.Symbols, "")
	}
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
	Query string `json:"query" jsonschema:"a name or part of one"`
}

// WorkspaceSymbolsOutput is lsp_workspace_symbols' answer.
type WorkspaceSymbolsOutput struct {
	Symbols []api.WorkspaceSymbol `json:"symbols" jsonschema:"the matching symbols with their files and 1-based ranges"`
	Omitted int                   `json:"omitted,omitempty" jsonschema:"how many more matched than are listed"`
	Note    string                `json:"note,omitempty" jsonschema:"which servers were still loading their project when they answered"`
}

func (m *mcpTools) workspaceSymbols(ctx context.Context, _ *mcp.CallToolRequest, in QueryInput) (*mcp.CallToolResult, WorkspaceSymbolsOutput, error) {
	res, err := m.o.WorkspaceSymbols(ctx, api.QueryParams{Query: in.Query})
	if err != nil {
		return nil, WorkspaceSymbolsOutput{}, err
	}
	syms := res.Symbols
	out := WorkspaceSymbolsOutput{Symbols: syms, Note: res.Note}
	if len(syms) > maxMCPSymbols {
		out.Symbols, out.Omitted = syms[:maxMCPSymbols], len(syms)-maxMCPSymbols
	}
	var b strings.Builder
	if out.Note != "" {
		b.WriteString(out.Note + "\n")
	}
	if m.long {
		for _, s := range out.Symbols {
			fmt.Fprintf(&b, "%s %s %s:%d:%d\n", s.Kind, s.Name, s.File, s.Range.StartLine, s.Range.StartChar)
		}
	} else {
		writeSymbolsByFile(&b, out.Symbols)
	}
	if out.Omitted > 0 {
		fmt.Fprintf(&b, "… and %d more\n", out.Omitted)
	}
	if len(out.Symbols) == 0 {
		b.WriteString("no symbols found\n")
	}
	return text(b.String()), out, nil
}

// StatusOutput is lsp_status' answer.
type StatusOutput struct {
	Disabled bool               `json:"disabled,omitempty" jsonschema:"true when the configuration turns LSP off"`
	Servers  []api.ServerStatus `json:"servers" jsonschema:"every known server, by id"`
}

func (m *mcpTools) status(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, StatusOutput, error) {
	out := StatusOutput{Disabled: m.o.Config().Disabled, Servers: nonNil(m.o.StatusOf(ctx))}
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

// nonNil returns s, or an empty slice for nil: the output schemas say
// array, not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func pidPart(pid int) string {
	if pid <= 0 {
		return ""
	}
	return fmt.Sprintf(" pid %d", pid)
}
