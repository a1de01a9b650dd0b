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
func (m *mcpTools) addTypeInfo(ts toolSet) {
	o := m.o
	add(ts, spec{"lsp_goto_declaration", "Go to declaration", "Go to a symbol's declaration: a C prototype, a Python stub.",
		"declaration prototype header stub", false}, readOnly, m.locations(o.Declaration))
	add(ts, spec{"lsp_document_highlights", "Highlights in a file", "Mark where a symbol is read and written within its own file.",
		"read written in this file", false}, readOnly, m.highlights)
	add(ts, spec{"lsp_signature_help", "Signature help", "What arguments a function takes: the parameters of the call at a place.",
		"arguments parameters", false}, readOnly, m.signatureHelp)
	add(ts, spec{"lsp_inlay_hints", "Inferred types", "Show a file's lines with inferred types and parameter names written in.",
		"inferred types inlay hints", false}, readOnly, m.inlayHints)
	add(ts, spec{"lsp_type_hierarchy", "Type hierarchy", "What a class inherits from, or what inherits from it.",
		"what does it inherit from subclasses", false}, readOnly, m.typeHierarchy)
	add(ts, spec{"lsp_completion", "Completion", "What methods and fields an object has: completions at a place.",
		"autocomplete members", false}, readOnly, m.completion)
	add(ts, spec{"lsp_symbol_context", "Everything about a symbol", "Everything about a symbol: definition, hover, references, callers.",
		"everything about a symbol", false}, readOnly, m.symbolContext)
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
	places := make([]place, len(res.Highlights))
	for i, h := range res.Highlights {
		places[i] = place{file: h.File, line: h.Line, char: h.Character, source: h.Source}
		if h.Kind != "" && h.Kind != "text" {
			places[i].label, places[i].full = h.Kind, "["+h.Kind+"]"
		}
	}
	writePlaces(&b, places, m.long)
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
	File      string `json:"file" jsonschema:"path from the project root"`
	StartLine int    `json:"startLine,omitempty"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"inclusive; at most 300 lines"`
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
	places := make([]place, len(res.Types))
	for i, t := range res.Types {
		places[i] = place{file: t.File, line: t.Line, char: t.Character, label: t.Kind + " " + t.Name, full: t.Kind + " " + t.Name, source: t.Source}
	}
	writePlaces(&b, places, m.long)
	return text(b.String()), res, nil
}

// CompletionInput is lsp_completion's input.
type CompletionInput struct {
	PositionInput
	Prefix  string `json:"prefix,omitempty"`
	Limit   int    `json:"limit,omitempty" jsonschema:"default 20"`
	Resolve bool   `json:"resolve,omitempty" jsonschema:"with docs"`
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
		places := make([]place, len(res.Callers))
		for i, c := range res.Callers {
			places[i] = place{file: c.File, line: c.Line, char: c.Character, label: c.Name, full: c.Kind + " " + c.Name, source: c.Source}
		}
		writePlaces(&b, places, m.long)
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
