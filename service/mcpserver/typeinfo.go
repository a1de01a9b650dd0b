package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/service/api"
)

// addTypeInfo registers the type-information tools: declaration,
// highlights, signature help, inlay hints, type hierarchy, completion and
// the symbol's context.
func (m *mcpTools) addTypeInfo(ts toolSet, where string) {
	o := m.o
	add(ts, "lsp_goto_declaration", "Go to declaration", "Finds where the symbol at a position is declared, as opposed to defined: a C prototype in its header, a Python stub."+where, readOnly, m.locations(o.Declaration))
	add(ts, "lsp_document_highlights", "Highlights in a file", "Lists where the symbol at a position occurs in its own file, each marked read or write: cheaper than lsp_find_references for one file."+where, readOnly, m.highlights)
	add(ts, "lsp_signature_help", "Signature help", "Shows the signature of the call around a position (inside its parentheses) with the parameter there marked: what to pass."+where, readOnly, m.signatureHelp)
	add(ts, "lsp_inlay_hints", "Inferred types", "Shows lines of a file with the server's inlay hints written in between « and »: the inferred types of variables and the parameter names of calls.", readOnly, m.inlayHints)
	add(ts, "lsp_type_hierarchy", "Type hierarchy", "Lists the supertypes (what the type at a position extends or implements) or the subtypes (what extends or implements it), with where each is declared."+where, readOnly, m.typeHierarchy)
	add(ts, "lsp_completion", "Completion", "Lists the completions the server offers at a position (character may be one past the line's end): members after a dot, names in scope; prefix filters them."+where, readOnly, m.completion)
	add(ts, "lsp_symbol_context", "Everything about a symbol", "One call for what you ask about a symbol first: its definition with its source lines, its hover, its references by file (tests last) and its callers."+where, readOnly, m.symbolContext)
}

// HighlightsOutput is lsp_document_highlights' answer.
type HighlightsOutput = api.HighlightsResult

func (m *mcpTools) highlights(ctx context.Context, _ *mcp.CallToolRequest, in PositionInput) (*mcp.CallToolResult, HighlightsOutput, error) {
	res, err := m.o.DocumentHighlights(ctx, in.params())
	if err != nil {
		return nil, HighlightsOutput{}, err
	}
	var b strings.Builder
	note(&b, res.Note)
	if len(res.Highlights) == 0 {
		b.WriteString("nothing found\n")
	}
	for _, h := range res.Highlights {
		kind := ""
		if h.Kind != "" && h.Kind != "text" {
			kind = " [" + h.Kind + "]"
		}
		fmt.Fprintf(&b, "%s:%d:%d%s: %s\n", h.File, h.Line, h.Character, kind, h.Source)
	}
	return text(b.String()), res, nil
}

func note(b *strings.Builder, n string) {
	if n != "" {
		b.WriteString(n + "\n")
	}
}

func (m *mcpTools) signatureHelp(ctx context.Context, _ *mcp.CallToolRequest, in PositionInput) (*mcp.CallToolResult, api.SignatureHelpResult, error) {
	res, err := m.o.SignatureHelp(ctx, in.params())
	if err != nil {
		return nil, api.SignatureHelpResult{}, err
	}
	var b strings.Builder
	note(&b, res.Note)
	for i, s := range res.Signatures {
		if i == 1 {
			b.WriteString("other signatures:\n")
		}
		b.WriteString(s.Label + "\n")
		if s.ActiveParameter != nil {
			fmt.Fprintf(&b, "  at parameter %d: %s\n", *s.ActiveParameter+1, s.Parameters[*s.ActiveParameter])
		}
		if i == 0 && s.Documentation != "" {
			b.WriteString(strings.TrimSpace(s.Documentation) + "\n")
		}
	}
	return text(b.String()), res, nil
}

// InlayHintsInput is lsp_inlay_hints' input.
type InlayHintsInput struct {
	File      string `json:"file" jsonschema:"the file: a path relative to the workspace root, or absolute inside it"`
	StartLine int    `json:"startLine,omitempty" jsonschema:"first line (1-based; default 1)"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"last line (1-based, inclusive; default the end, at most 300 lines)"`
}

func (m *mcpTools) inlayHints(ctx context.Context, _ *mcp.CallToolRequest, in InlayHintsInput) (*mcp.CallToolResult, api.InlayHintsResult, error) {
	res, err := m.o.InlayHints(ctx, api.InlayHintsParams{File: in.File, StartLine: in.StartLine, EndLine: in.EndLine})
	if err != nil {
		return nil, api.InlayHintsResult{}, err
	}
	var b strings.Builder
	note(&b, res.Note)
	b.WriteString(res.Text)
	return text(b.String()), res, nil
}

// TypeHierarchyInput is lsp_type_hierarchy's input.
type TypeHierarchyInput struct {
	PositionInput
	Direction string `json:"direction" jsonschema:"supertypes or subtypes"`
}

func (m *mcpTools) typeHierarchy(ctx context.Context, _ *mcp.CallToolRequest, in TypeHierarchyInput) (*mcp.CallToolResult, api.TypeHierarchyResult, error) {
	res, err := m.o.TypeHierarchy(ctx, api.TypeHierarchyParams{PositionParams: in.params(), Direction: in.Direction})
	if err != nil {
		return nil, api.TypeHierarchyResult{}, err
	}
	var b strings.Builder
	note(&b, res.Note)
	if res.Type != "" {
		fmt.Fprintf(&b, "%s of %s: %d\n", in.Direction, res.Type, len(res.Types))
	}
	for _, t := range res.Types {
		fmt.Fprintf(&b, "%s:%d:%d: %s %s: %s\n", t.File, t.Line, t.Character, t.Kind, t.Name, t.Source)
	}
	return text(b.String()), res, nil
}

// CompletionInput is lsp_completion's input.
type CompletionInput struct {
	PositionInput
	Prefix  string `json:"prefix,omitempty" jsonschema:"only completions starting with this (case aside)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"how many (default 20, at most 100)"`
	Resolve bool   `json:"resolve,omitempty" jsonschema:"also fetch each one's documentation (slower)"`
}

func (m *mcpTools) completion(ctx context.Context, _ *mcp.CallToolRequest, in CompletionInput) (*mcp.CallToolResult, api.CompletionResult, error) {
	res, err := m.o.Completion(ctx, api.CompletionParams{PositionParams: in.params(), Prefix: in.Prefix, Limit: in.Limit, Resolve: in.Resolve})
	if err != nil {
		return nil, api.CompletionResult{}, err
	}
	var b strings.Builder
	note(&b, res.Note)
	if res.Total == 0 {
		b.WriteString("no completions\n")
	}
	for _, c := range res.Items {
		b.WriteString(c.Label)
		if c.Kind != "" {
			b.WriteString(" (" + c.Kind + ")")
		}
		if c.Detail != "" {
			b.WriteString(" " + c.Detail)
		}
		if c.Insert != "" {
			b.WriteString(" inserts " + c.Insert)
		}
		if c.Deprecated {
			b.WriteString(" [deprecated]")
		}
		b.WriteString("\n")
		if c.Documentation != "" {
			b.WriteString("  " + strings.ReplaceAll(strings.TrimSpace(c.Documentation), "\n", "\n  ") + "\n")
		}
	}
	if res.Total > len(res.Items) {
		fmt.Fprintf(&b, "… %d of %d shown", len(res.Items), res.Total)
		if res.Incomplete {
			b.WriteString(" (the server has more: narrow with prefix)")
		}
		b.WriteString("\n")
	}
	return text(b.String()), res, nil
}

func (m *mcpTools) symbolContext(ctx context.Context, _ *mcp.CallToolRequest, in PositionInput) (*mcp.CallToolResult, api.SymbolContextResult, error) {
	res, err := m.o.SymbolContext(ctx, in.params())
	if err != nil {
		return nil, api.SymbolContextResult{}, err
	}
	var b strings.Builder
	note(&b, res.Note)
	name := res.Symbol
	if res.Kind != "" {
		name = res.Kind + " " + name
	}
	fmt.Fprintf(&b, "# %s\n", name)
	if d := res.Definition; d != nil {
		fmt.Fprintf(&b, "defined at %s:%d:%d\n", d.File, d.Line, d.Character)
		if res.Source != "" {
			b.WriteString("```\n" + res.Source + "\n")
			if res.Truncated {
				b.WriteString("…\n")
			}
			b.WriteString("```\n")
		}
	}
	if res.Hover != "" {
		b.WriteString("## hover\n" + strings.TrimSpace(res.Hover) + "\n")
	}
	fmt.Fprintf(&b, "## references: %d\n", res.ReferencesTotal)
	listed := 0
	for _, f := range res.References {
		test := ""
		if f.Test {
			test = " (test)"
		}
		lines := make([]string, len(f.Lines))
		for i, l := range f.Lines {
			lines[i] = fmt.Sprint(l)
		}
		listed += len(f.Lines)
		fmt.Fprintf(&b, "%s%s: %s\n", f.File, test, strings.Join(lines, ", "))
	}
	if res.ReferencesTotal > listed {
		fmt.Fprintf(&b, "… %d more\n", res.ReferencesTotal-listed)
	}
	if _, missing := res.Missing["callers"]; !missing {
		fmt.Fprintf(&b, "## callers: %d\n", res.CallersTotal)
		for _, c := range res.Callers {
			fmt.Fprintf(&b, "%s:%d:%d: %s %s: %s\n", c.File, c.Line, c.Character, c.Kind, c.Name, c.Source)
		}
		if res.CallersTotal > len(res.Callers) {
			fmt.Fprintf(&b, "… %d more\n", res.CallersTotal-len(res.Callers))
		}
	}
	for _, part := range []string{"definition", "hover", "references", "callers"} {
		if why, ok := res.Missing[part]; ok {
			fmt.Fprintf(&b, "(no %s: %s)\n", part, why)
		}
	}
	return text(b.String()), res, nil
}
