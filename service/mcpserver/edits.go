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
	Edits   []EditInput `json:"edits,omitempty" jsonschema:"the edits, one per file"`
	Preview string      `json:"preview,omitempty" jsonschema:"instead of edits: the preview id of an edit shown and not written (lsp_rename, lsp_apply_code_action, lsp_fix_all or lsp_format without apply): exactly those files, refused if any changed since"`
	When    string      `json:"when,omitempty" jsonschema:"noNewErrors (the default): write only if no error appears that was not there before, in the edited files and the files they affect; always: write, and report the same"`
}

// EditInput is one file's edit.
type EditInput struct {
	File    string        `json:"file" jsonschema:"path relative to the workspace root, or absolute inside it; a path that does not exist is a new file (give text)"`
	Text    *string       `json:"text,omitempty" jsonschema:"the file's whole new text (instead of changes)"`
	Changes []ChangeInput `json:"changes,omitempty" jsonschema:"changes by range, made to the file as it is on disk (instead of text)"`
	Base    string        `json:"base,omitempty" jsonschema:"sha256:HEX of the file as the edit was made from it (an earlier answer's hashes): a file changed since refuses every edit, nothing written"`
}

// ChangeInput replaces a range of a file.
type ChangeInput struct {
	StartLine      int    `json:"startLine" jsonschema:"1-based line where the replaced text starts"`
	StartCharacter int    `json:"startCharacter" jsonschema:"1-based column (characters) where it starts"`
	EndLine        int    `json:"endLine" jsonschema:"1-based line where it ends"`
	EndCharacter   int    `json:"endCharacter" jsonschema:"1-based column just after its last character (equal to the start: an insert)"`
	NewText        string `json:"newText" jsonschema:"the text put in its place"`
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

// SymbolEditInput is a symbol edit tool's input.
type SymbolEditInput struct {
	PositionInput
	Body  string `json:"body,omitempty" jsonschema:"lsp_replace_symbol_body: the new body as it stands in the source, braces included where the language has them (Go, TypeScript, C: { … }; Python: the indented block)"`
	Text  string `json:"text,omitempty" jsonschema:"lsp_insert_before_symbol, lsp_insert_after_symbol: the lines to insert"`
	Force bool   `json:"force,omitempty" jsonschema:"lsp_safe_delete: delete even while references remain (written whatever it breaks)"`
	When  string `json:"when,omitempty" jsonschema:"noNewErrors (the default): write only if no new error appears; always: write, and report"`
}

func (in SymbolEditInput) params() api.SymbolEditParams {
	return api.SymbolEditParams{PositionParams: in.PositionInput.params(), Body: in.Body, Text: in.Text, Force: in.Force, When: in.When}
}

// symbolEdit is a symbol edit tool over one of the features' symbol edits.
func (m *mcpTools) symbolEdit(edit func(context.Context, api.SymbolEditParams) (api.SymbolEditResult, error)) mcp.ToolHandlerFor[SymbolEditInput, api.SymbolEditResult] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in SymbolEditInput) (*mcp.CallToolResult, api.SymbolEditResult, error) {
		res, err := edit(ctx, in.params())
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
