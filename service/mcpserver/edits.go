package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/service/api"
)

// ApplyEditsInput is lsp_apply_edits's input.
type ApplyEditsInput struct {
	Edits   []EditInput `json:"edits,omitempty" jsonschema:"one per file"`
	Preview string      `json:"preview,omitempty" jsonschema:"instead: another tool's preview id"`
	When    string      `json:"when,omitempty" jsonschema:"noNewErrors (default) or always"`
}

// EditInput is one file's edit.
type EditInput struct {
	File    string        `json:"file" jsonschema:"a new path is a new file"`
	Text    *string       `json:"text,omitempty" jsonschema:"the whole new text"`
	Changes []ChangeInput `json:"changes,omitempty" jsonschema:"or changes by range"`
	Base    string        `json:"base,omitempty" jsonschema:"its sha256 from an answer"`
}

// ChangeInput replaces a range of a file.
type ChangeInput struct {
	StartLine      int    `json:"startLine"`
	StartCharacter int    `json:"startCharacter"`
	EndLine        int    `json:"endLine"`
	EndCharacter   int    `json:"endCharacter" jsonschema:"just after the last character replaced"`
	NewText        string `json:"newText"`
}

func (in ApplyEditsInput) params() api.ApplyEditsParams {
	p := api.ApplyEditsParams{When: in.When, Preview: in.Preview}
	for _, e := range in.Edits {
		fe := api.FileEdit{File: e.File, Text: e.Text, Base: e.Base}
		for _, c := range e.Changes {
			fe.Changes = append(fe.Changes, api.TextChange{Range: api.Range{StartLine: c.StartLine, StartChar: c.StartCharacter, EndLine: c.EndLine, EndChar: c.EndCharacter}, NewText: c.NewText})
		}
		p.Edits = append(p.Edits, fe)
	}
	return p
}

func (m *mcpTools) applyEdits(ctx context.Context, _ *mcp.CallToolRequest, in ApplyEditsInput) (*mcp.CallToolResult, api.ApplyEditsResult, error) {
	res, err := m.o.ApplyEdits(ctx, in.params())
	if err != nil {
		return nil, api.ApplyEditsResult{}, err
	}
	return text(applyEditsText(res)), res, nil
}

// maxDeltaLines bounds each list of lsp_apply_edits's text.
const maxDeltaLines = 50

// applyEditsText says first what was written ("wrote N files" or "wrote
// nothing", and why), then the delta: the errors introduced and fixed.
func applyEditsText(res api.ApplyEditsResult) string {
	var b strings.Builder
	if res.Applied {
		fmt.Fprintf(&b, "wrote %d %s: %s\n", len(res.Files), api.Plural(len(res.Files), "file", "files"), strings.Join(res.Files, ", "))
	} else {
		fmt.Fprintf(&b, "wrote nothing: %s\n", res.Reason)
	}
	list := func(what string, diags []api.Diagnostic) {
		fmt.Fprintf(&b, "%d %s %s\n", len(diags), api.Plural(len(diags), "error", "errors"), what)
		for i, d := range diags {
			if i == maxDeltaLines {
				fmt.Fprintf(&b, "  … %d more\n", len(diags)-i)
				break
			}
			fmt.Fprintf(&b, "  %s:%d:%d: %s\n", d.File, d.Line, d.Character, d.Message)
		}
	}
	list("introduced", res.Introduced)
	list("fixed", res.Fixed)
	if res.Impact != nil {
		fmt.Fprintf(&b, "other files checked: %d", res.Impact.Checked)
		if !res.Impact.Complete {
			fmt.Fprintf(&b, " (not all: %s)", res.Impact.Reason)
		}
		b.WriteString("\n")
	}
	if res.Note != "" {
		b.WriteString(res.Note + "\n")
	}
	if len(res.Hashes) > 0 {
		b.WriteString("bases for the next edit:")
		for _, f := range res.Files {
			if h, ok := res.Hashes[f]; ok {
				fmt.Fprintf(&b, " %s %s", f, h)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ReplaceBodyInput is lsp_replace_symbol_body's input.
type ReplaceBodyInput struct {
	PositionInput
	Body string `json:"body" jsonschema:"the new body as in the source: braces included (Go, TS, C); Python's indented block"`
	When string `json:"when,omitempty" jsonschema:"noNewErrors (default) or always"`
}

// InsertInput is lsp_insert_before_symbol's and lsp_insert_after_symbol's
// input.
type InsertInput struct {
	PositionInput
	Text string `json:"text" jsonschema:"the lines to insert"`
	When string `json:"when,omitempty" jsonschema:"noNewErrors (default) or always"`
}

// DeleteInput is lsp_safe_delete's input.
type DeleteInput struct {
	PositionInput
	Force bool   `json:"force,omitempty" jsonschema:"delete even while it is used"`
	When  string `json:"when,omitempty" jsonschema:"noNewErrors (default) or always"`
}

func (m *mcpTools) replaceBody(ctx context.Context, req *mcp.CallToolRequest, in ReplaceBodyInput) (*mcp.CallToolResult, api.SymbolEditResult, error) {
	return m.symbolEdit(m.o.ReplaceSymbolBody)(ctx, req, api.SymbolEditParams{PositionParams: in.params(), Body: in.Body, When: in.When})
}

func (m *mcpTools) insert(edit func(context.Context, api.SymbolEditParams) (api.SymbolEditResult, error)) mcp.ToolHandlerFor[InsertInput, api.SymbolEditResult] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in InsertInput) (*mcp.CallToolResult, api.SymbolEditResult, error) {
		return m.symbolEdit(edit)(ctx, req, api.SymbolEditParams{PositionParams: in.params(), Text: in.Text, When: in.When})
	}
}

func (m *mcpTools) safeDelete(ctx context.Context, req *mcp.CallToolRequest, in DeleteInput) (*mcp.CallToolResult, api.SymbolEditResult, error) {
	return m.symbolEdit(m.o.SafeDelete)(ctx, req, api.SymbolEditParams{PositionParams: in.params(), Force: in.Force, When: in.When})
}

// symbolEdit is a symbol edit tool over one of the features' symbol edits.
func (m *mcpTools) symbolEdit(edit func(context.Context, api.SymbolEditParams) (api.SymbolEditResult, error)) mcp.ToolHandlerFor[api.SymbolEditParams, api.SymbolEditResult] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in api.SymbolEditParams) (*mcp.CallToolResult, api.SymbolEditResult, error) {
		res, err := edit(ctx, in)
		if err != nil {
			return nil, api.SymbolEditResult{}, err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n", res.Symbol)
		b.WriteString(applyEditsText(res.ApplyEditsResult))
		if len(res.References) > 0 {
			fmt.Fprintf(&b, "%d %s left:\n", len(res.References), api.Plural(len(res.References), "reference", "references"))
			for i, l := range res.References {
				if i == maxDeltaLines {
					fmt.Fprintf(&b, "  … %d more\n", len(res.References)-i)
					break
				}
				fmt.Fprintf(&b, "  %s:%d:%d: %s\n", l.File, l.Line, l.Character, l.Source)
			}
		}
		return text(b.String()), res, nil
	}
}
