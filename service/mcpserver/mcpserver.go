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
}

// New returns an MCP server whose tools use o: the contract's diagnostics,
// status and navigation tools. navigationTools: false leaves the navigation
// tools out; lsp: false leaves only lsp_status, which says so;
// opts.ReadOnly leaves out the tools that write.
func New(o *features.Service, opts Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "lspkit", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "Language-server diagnostics and code navigation for the files of " + o.Root() +
			". Paths are relative to that root (or absolute inside it); lines and columns are 1-based, columns count characters.",
	})
	m := &mcpTools{o: o}
	ts := toolSet{server: s, structured: o.Config().MCPStructuredContent, asks: map[string]asker{}}
	add(ts, "lsp_status", "Language server status", "Lists the language servers lspkit knows for this workspace and their state: "+
		"active (running, or ready to start on the first matching file), starting, broken (crashed too often; the reason says why), "+
		"disabled or unavailable (not installed; the reason says how to install it).", readOnly, m.status)
	if o.Config().Disabled {
		return s
	}
	add(ts, "lsp_check_file", "Check a file", "Checks one file with every language server for its type and returns its diagnostics "+
		"(errors by default) with 1-based positions. Give text to check unsaved content instead of the file on disk. "+
		"Each server's verdict says whether its answer is final (settled) or it ran out of time.", readOnly, m.checkFile)
	add(ts, "lsp_diagnostics", "Known diagnostics", "Returns the current diagnostics of every file the language servers have reported on, by file. "+
		"Files open in a server whose content changed on disk are re-checked first. Give file to check that file from disk first.", readOnly, m.diagnostics)
	add(ts, "lsp_workspace_diagnostics", "Check the whole project", "Checks every source file of the workspace (excluded paths left out) with its language servers, in batches, "+
		"and returns the diagnostics (errors by default) by file, with how many files were checked. Slower than lsp_diagnostics: use it to see whether the whole project builds.", readOnly, m.workspaceDiagnostics)
	if !o.Config().NavigationTools {
		return s
	}
	const where = " Position: file, line and character; or file, line and symbol (its name on or near that line); or symbol alone (a name or Type.method path; file optional)."
	applyWith := " to pass to lsp_apply_code_action"
	if opts.ReadOnly {
		applyWith = " (this channel applies none: it offers only tools that write nothing)"
	}
	add(ts, "lsp_goto_definition", "Go to definition", "Finds where the symbol at a position is defined."+where, readOnly, m.locations(o.Definition))
	add(ts, "lsp_goto_type_definition", "Go to type definition", "Finds where the type of the symbol at a position is defined (the type of a variable, field or expression)."+where, readOnly, m.locations(o.TypeDefinition))
	add(ts, "lsp_goto_implementation", "Find implementations", "Finds the implementations of the interface, abstract method or type at a position."+where, readOnly, m.locations(o.Implementation))
	add(ts, "lsp_find_references", "Find references", "Finds every reference to the symbol at a position, its declaration included, across the workspace."+where, readOnly, m.locations(o.References))
	add(ts, "lsp_call_hierarchy", "Call hierarchy", "Lists the callers (direction incoming: one entry per call site) or the callees (outgoing: where each is declared) "+
		"of the function or method at a position."+where, readOnly, m.callHierarchy)
	add(ts, "lsp_hover", "Hover", "Returns the language server's hover text for the symbol at a position: "+
		"its signature or type and its documentation, as markdown; null content when there is nothing there."+where, readOnly, m.hover)
	add(ts, "lsp_document_symbols", "Document symbols", "Lists the symbols a file declares (functions, types, methods, fields, …) as a tree with 1-based ranges.", readOnly, m.documentSymbols)
	add(ts, "lsp_workspace_symbols", "Workspace symbols", "Searches the workspace for symbols whose name matches query. "+
		"Servers whose project files are at the workspace root are started and their index loaded first.", readOnly, m.workspaceSymbols)
	add(ts, "lsp_code_actions", "Code actions", "Lists the fixes and refactorings the language servers offer at a position, over lines (endLine), on a whole line (line alone), "+
		"or for one finding (diagnostic, as lspkit returned it): quick fixes (add a missing import, remove an unused variable, …), organize imports, refactorings. "+
		"Each has an id"+applyWith+". kinds narrows them (\"quickfix\", \"source.organizeImports\", \"refactor\", …); "+
		"actions a server offers but not there are left out (counted) unless kinds asks for them, then listed with the reason.", readOnly, m.codeActions)
	m.addTypeInfo(ts, where)
	// After every read-only tool, which it asks.
	add(ts, "lsp_batch", "Several questions at once", "Asks up to 20 questions of the read-only lsp_ tools in one call, answered concurrently, in order, each with its own error: "+
		"e.g. the references of every export of a file.", readOnly, m.batch(ts.asks))
	if opts.ReadOnly {
		return s
	}
	add(ts, "lsp_rename", "Rename symbol", "Renames the symbol at a position everywhere the language server finds it, as a unified diff of every file touched. "+
		"Nothing is written unless apply is true; then each file is written atomically and the touched files' diagnostics are returned."+where, writes, m.rename)
	add(ts, "lsp_apply_code_action", "Apply a code action", "Shows (apply false) or applies (apply true) a code action listed by lsp_code_actions, by id: a unified diff of every file it touches; "+
		"applied, each file is written atomically and the touched files' diagnostics are returned. An action that runs a server command runs only when applied. "+
		"An id from before a change to any file it edits is refused as stale.", writes, m.applyCodeAction)
	add(ts, "lsp_fix_all", "Fix everything in a file", "Shows (apply false) or applies (apply true) every fix the language servers offer for a file at once — "+
		"their fix-all and organize-imports actions and the preferred quick fix of each finding — combined in one diff (fixes that overlap, or that only run a command, are left out and named); "+
		"remaining lists the findings left.", writes, m.fixAll)
	add(ts, "lsp_apply_edits", "Apply edits checked first", "Writes edits of one or more files — whole new texts, or changes by range — only after checking them together with every file they affect: "+
		"by default (when noNewErrors) nothing is written if any error appears that was not there before, and the answer lists the new errors; otherwise every file is written atomically, all or none. "+
		"Give each file's base (an earlier answer's sha256) to refuse the edits if the file changed since. The answer says what was written first, then the errors introduced and fixed.", writes, m.applyEdits)
	add(ts, "lsp_replace_symbol_body", "Replace a symbol's body", "Replaces the body of a function, method or class — braces included where the language has them, a Python definition's indented block — "+
		"found by the language server's document symbols, then writes it as lsp_apply_edits does: only if no new error appears, by default."+where, writes, m.symbolEdit(o.ReplaceSymbolBody))
	add(ts, "lsp_insert_before_symbol", "Insert before a symbol", "Inserts text on the lines before a symbol (before its doc comment and decorators), written as lsp_apply_edits does."+where, writes, m.symbolEdit(o.InsertBeforeSymbol))
	add(ts, "lsp_insert_after_symbol", "Insert after a symbol", "Inserts text on the lines after a symbol, written as lsp_apply_edits does."+where, writes, m.symbolEdit(o.InsertAfterSymbol))
	add(ts, "lsp_safe_delete", "Delete a symbol safely", "Deletes a symbol (with its doc comment) only if nothing references it: otherwise writes nothing and lists the references. "+
		"force deletes it all the same and reports what that breaks."+where, writes, m.symbolEdit(o.SafeDelete))
	add(ts, "lsp_format", "Format a file", "Formats a file (or lines startLine to endLine) as its language server does, with .editorconfig's indentation: "+
		"a unified diff; with apply true the file is written and checked.", writes, m.format)
	return s
}

// PositionInput is where a navigation tool looks.
type PositionInput struct {
	File       string `json:"file,omitempty" jsonschema:"path relative to the workspace root, or absolute inside it"`
	Line       int    `json:"line,omitempty" jsonschema:"1-based line"`
	Character  int    `json:"character,omitempty" jsonschema:"1-based column in characters"`
	Symbol     string `json:"symbol,omitempty" jsonschema:"a name on (or near) line; without line a name or dotted path (Type.method) to look up"`
	Occurrence int    `json:"occurrence,omitempty" jsonschema:"which occurrence of symbol on the line (1-based)"`
	Kind       string `json:"kind,omitempty" jsonschema:"without line: only symbols of this kind (function, method, class, …)"`
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
		for _, l := range out.Locations {
			fmt.Fprintf(&b, "%s:%d:%d: %s\n", l.File, l.Line, l.Character, l.Source)
		}
		if out.Omitted > 0 {
			fmt.Fprintf(&b, "… and %d more\n", out.Omitted)
		}
		return text(b.String()), out, nil
	}
}

// CallHierarchyInput is lsp_call_hierarchy's input.
type CallHierarchyInput struct {
	PositionInput
	Direction string `json:"direction" jsonschema:"incoming: who calls the function at the position; outgoing: what it calls"`
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
	for _, c := range res.Calls[:min(len(res.Calls), maxMCPLocations)] {
		fmt.Fprintf(&b, "%s:%d:%d: %s %s: %s\n", c.File, c.Line, c.Character, c.Kind, c.Name, c.Source)
	}
	return text(b.String()), res, nil
}

// RenameInput is lsp_rename's input.
type RenameInput struct {
	PositionInput
	NewName string `json:"newName" jsonschema:"the symbol's new name"`
	Apply   bool   `json:"apply,omitempty" jsonschema:"write the edit to the files (default false: only show the diff)"`
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
	File         string          `json:"file,omitempty" jsonschema:"the file: a path relative to the workspace root, or absolute inside it (may be left out with diagnostic)"`
	Line         int             `json:"line,omitempty" jsonschema:"1-based line; alone, the whole line (may be left out with diagnostic)"`
	Character    int             `json:"character,omitempty" jsonschema:"1-based column, counted in characters"`
	Symbol       string          `json:"symbol,omitempty" jsonschema:"instead of character: a name as written on that line"`
	EndLine      int             `json:"endLine,omitempty" jsonschema:"with line: the last line of a range (1-based)"`
	EndCharacter int             `json:"endCharacter,omitempty" jsonschema:"with endLine: the column the range ends before (1-based)"`
	Kinds        []string        `json:"kinds,omitempty" jsonschema:"only actions of these kinds (or their sub-kinds): quickfix, refactor, source.organizeImports, source.fixAll, …"`
	Diagnostic   *api.Diagnostic `json:"diagnostic,omitempty" jsonschema:"a finding as lspkit returned it: the actions that fix it"`
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
	ID    string `json:"id" jsonschema:"the action's id from lsp_code_actions"`
	Apply bool   `json:"apply,omitempty" jsonschema:"write the edit to the files (default false: only show the diff)"`
}

func (m *mcpTools) applyCodeAction(ctx context.Context, _ *mcp.CallToolRequest, in ApplyCodeActionInput) (*mcp.CallToolResult, api.RenameResult, error) {
	return m.edited(m.o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: in.ID, Apply: in.Apply}))
}

// FixAllInput is lsp_fix_all's input.
type FixAllInput struct {
	File  string `json:"file" jsonschema:"the file: a path relative to the workspace root, or absolute inside it"`
	Apply bool   `json:"apply,omitempty" jsonschema:"write the fixes (default false: only show the diff)"`
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
		renderDiagnostics(&b, res.Remaining)
	case len(res.Remaining) == 0:
		fmt.Fprintf(&b, "nothing remains at %s\n", strings.Join(m.o.Config().IncludeSeverities, " or "))
	default:
		b.WriteString("remaining:\n")
		renderDiagnostics(&b, res.Remaining)
	}
	return text(b.String()), res, nil
}

// FormatInput is lsp_format's input.
type FormatInput struct {
	File      string `json:"file" jsonschema:"the file: a path relative to the workspace root, or absolute inside it"`
	StartLine int    `json:"startLine,omitempty" jsonschema:"format from this line (1-based; with endLine)"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"to this line (1-based, inclusive)"`
	Apply     bool   `json:"apply,omitempty" jsonschema:"write the formatted file (default false: only show the diff)"`
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
			renderDiagnostics(&b, res.Diagnostics[f])
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
	File string `json:"file" jsonschema:"the file: a path relative to the workspace root, or absolute inside it"`
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
	for _, s := range out.Symbols {
		fmt.Fprintf(&b, "%s %s %s:%d:%d\n", s.Kind, s.Name, s.File, s.Range.StartLine, s.Range.StartChar)
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
