package features

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// position converts an agent's position into the server's position in the
// file, with a note when a symbol occurs more than once on the line and no
// occurrence was given.
func position(op Held, p api.PositionParams) (protocol.Position, string, error) {
	lines := len(op.Lines)
	if lines > 0 && op.Lines[lines-1] == "" {
		lines-- // the text ends with a newline
	}
	if p.Line < 1 {
		return protocol.Position{}, "", api.InvalidParams("line must be ≥ 1")
	}
	if p.Line > max(lines, 1) {
		return protocol.Position{}, "", api.InvalidParams("line %d is past the end of %s (%d lines)", p.Line, op.File, lines)
	}
	text := ""
	if p.Line-1 < len(op.Lines) {
		text = op.Lines[p.Line-1]
	}
	col, note := p.Character-1, op.Note
	if p.Symbol != "" {
		at := symbolOffsets(text, p.Symbol)
		if len(at) == 0 {
			l, near, err := nearLine(op, p)
			if err != nil {
				return protocol.Position{}, "", err
			}
			p.Line, text, note = l, op.Lines[l-1], api.JoinNotes(note, near)
			at = symbolOffsets(text, p.Symbol)
		}
		switch {
		case p.Occurrence > len(at):
			return protocol.Position{}, "", api.InvalidParams("occurrence %d: %q appears %d times on line %d of %s", p.Occurrence, p.Symbol, len(at), p.Line, op.File)
		case p.Occurrence < 0:
			return protocol.Position{}, "", api.InvalidParams("occurrence must be ≥ 1")
		}
		i := at[0]
		if p.Occurrence > 0 {
			i = at[p.Occurrence-1]
		} else if len(at) > 1 {
			note = api.JoinNotes(note, fmt.Sprintf("%q appears %d times on line %d; used the first; pass occurrence", p.Symbol, len(at), p.Line))
		}
		col = utf8.RuneCountInString(text[:i])
	}
	if col < 0 {
		return protocol.Position{}, "", api.InvalidParams("character is required: give a character (1-based column) or a symbol on line %d", p.Line)
	}
	if n := utf8.RuneCountInString(text); col > n {
		return protocol.Position{}, "", api.InvalidParams("character %d is past the end of line %d (%d characters)", p.Character, p.Line, n)
	}
	return protocol.Position{Line: uint32(p.Line - 1), Character: op.Client.Mapper().Column(text, col)}, note, nil
}

// symbolOffsets returns the byte offsets where symbol occurs on the line as
// a whole identifier (not inside a longer one: "id" is not in "idle"); a
// symbol that is no identifier ("+=", "a.b") matches anywhere.
func symbolOffsets(line, symbol string) []int {
	whole := strings.IndexFunc(symbol, func(r rune) bool { return !isIdent(r) }) < 0
	var out []int
	for from := 0; from <= len(line)-len(symbol); {
		i := strings.Index(line[from:], symbol)
		if i < 0 {
			break
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(line[:i])
		after, _ := utf8.DecodeRuneInString(line[i+len(symbol):])
		if !whole || (i == 0 || !isIdent(before)) && (i+len(symbol) == len(line) || !isIdent(after)) {
			out = append(out, i)
		}
		from = i + max(len(symbol), 1)
	}
	return out
}

// isIdent reports whether r can be part of an identifier in the languages
// servers serve (letters, digits, _ and $).
func isIdent(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// checkPosition rejects positions that cannot exist, before any file is
// looked at.
func checkPosition(p api.PositionParams) error {
	switch {
	case p.Line < 1:
		return api.InvalidParams("line must be ≥ 1 (or give the symbol alone, without a line)")
	case p.Character < 0:
		return api.InvalidParams("character must be ≥ 1")
	case p.Character == 0 && p.Symbol == "":
		return api.InvalidParams("character is required: give a character (1-based column) or a symbol on line %d", p.Line)
	}
	return nil
}

// at checks a position, opens its file in a server that offers method and
// returns the server's position with the note on how it was read.
func (f *Features) at(ctx context.Context, p api.PositionParams, method string) (Held, protocol.Position, string, error) {
	if p.Line == 0 && p.Symbol != "" {
		ctx = f.core.PastBarrier(ctx) // looked up, then asked
	}
	p, resolved, err := f.address(ctx, p)
	if err != nil {
		return Held{}, protocol.Position{}, "", err
	}
	if err := checkPosition(p); err != nil {
		return Held{}, protocol.Position{}, "", err
	}
	op, err := f.open(ctx, p.File, method)
	if err != nil {
		return Held{}, protocol.Position{}, "", err
	}
	pos, note, err := position(op, p)
	if err != nil {
		op.Release()
	}
	return op, pos, api.JoinNotes(resolved, note), err
}

// locate runs a definition-like request at a position and converts its
// locations.
func (f *Features) locate(ctx context.Context, p api.PositionParams, method string, call func(*client.Client, context.Context, protocol.DocumentURI, protocol.Position) ([]protocol.Location, error)) (api.LocationsResult, error) {
	op, pos, note, err := f.at(ctx, p, method)
	if err != nil {
		return api.LocationsResult{}, err
	}
	defer op.Release()
	locs, err := call(op.Client, ctx, op.URI, pos)
	if err != nil {
		return api.LocationsResult{}, err
	}
	f.log.Debug("navigate", "method", method, "uri", op.URI, "position", pos, "results", len(locs))
	out := make([]api.Location, 0, len(locs))
	texts := map[protocol.DocumentURI][]string{}
	m := op.Client.Mapper()
	var gone []string
	for _, l := range locs {
		path, err := l.URI.Path()
		if err != nil {
			continue
		}
		lines, ok := texts[l.URI]
		if !ok {
			lines = f.linesOf(op.Client, l.URI)
			texts[l.URI] = lines
		}
		if lines == nil && f.missing(op.Client, l.URI, path) {
			// The server still knows a file that is gone.
			if f := f.core.Rel(path); !slices.Contains(gone, f) {
				gone = append(gone, f)
			}
			continue
		}
		sl, sc := m.Place(lines, l.Range.Start)
		el, ec := m.Place(lines, l.Range.End)
		out = append(out, api.Location{File: f.core.Rel(path), Line: sl, Character: sc, EndLine: el, EndCharacter: ec, Source: sourceLine(lines, sl)})
	}
	if len(gone) > 0 {
		note = api.JoinNotes(note, fmt.Sprintf("left out locations in %s: no longer on disk", strings.Join(gone, ", ")))
	}
	return api.LocationsResult{Locations: out, Note: note}, nil
}

// missing reports whether the file at path is neither open in c nor on
// disk.
func (f *Features) missing(c *client.Client, uri protocol.DocumentURI, path string) bool {
	if _, open := c.DocumentText(uri); open {
		return false
	}
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// Definition returns where the symbol at a position is defined.
func (f *Features) Definition(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return bounded(f, ctx, api.MethodDefinition, func(ctx context.Context) (api.LocationsResult, error) {
		return f.locate(ctx, p, protocol.DefinitionRequest.Method(), (*client.Client).Definition)
	})
}

// TypeDefinition returns where the type of the symbol at a position is
// defined.
func (f *Features) TypeDefinition(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return bounded(f, ctx, api.MethodTypeDefinition, func(ctx context.Context) (api.LocationsResult, error) {
		return f.locate(ctx, p, protocol.TypeDefinitionRequest.Method(), (*client.Client).TypeDefinition)
	})
}

// Implementation returns the implementations of the symbol at a position.
func (f *Features) Implementation(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return bounded(f, ctx, api.MethodImplementation, func(ctx context.Context) (api.LocationsResult, error) {
		return f.locate(ctx, p, protocol.ImplementationRequest.Method(), (*client.Client).Implementation)
	})
}

// References returns every reference to the symbol at a position, its
// declaration included.
func (f *Features) References(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return bounded(f, ctx, api.MethodReferences, func(ctx context.Context) (api.LocationsResult, error) {
		return f.locate(ctx, p, protocol.ReferencesRequest.Method(), func(c *client.Client, ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.Location, error) {
			return c.References(ctx, uri, pos, true)
		})
	})
}

// linesOf returns a document's lines: the open text, else the disk's.
func (f *Features) linesOf(c *client.Client, uri protocol.DocumentURI) []string {
	if t, ok := c.DocumentText(uri); ok {
		return strings.Split(t, "\n")
	}
	if path, err := uri.Path(); err == nil {
		if data, err := os.ReadFile(path); err == nil {
			return strings.Split(string(data), "\n")
		}
	}
	return nil
}

// Hover returns the hover text at a position; Content is nil when the
// server has nothing there.
func (f *Features) Hover(ctx context.Context, p api.PositionParams) (api.HoverResult, error) {
	return bounded(f, ctx, api.MethodHover, func(ctx context.Context) (api.HoverResult, error) { return f.hover(ctx, p) })
}

// hover is Hover without its bound.
func (f *Features) hover(ctx context.Context, p api.PositionParams) (api.HoverResult, error) {
	op, pos, note, err := f.at(ctx, p, protocol.HoverRequest.Method())
	if err != nil {
		return api.HoverResult{}, err
	}
	defer op.Release()
	text, ok, err := op.Client.Hover(ctx, op.URI, pos)
	if err != nil || !ok {
		return api.HoverResult{Note: note}, err
	}
	return api.HoverResult{Content: &text, Note: note}, nil
}

// DocumentSymbols returns a file's symbols as a tree.
func (f *Features) DocumentSymbols(ctx context.Context, p api.FileParams) (api.SymbolsResult, error) {
	return bounded(f, ctx, api.MethodDocumentSymbols, func(ctx context.Context) (api.SymbolsResult, error) { return f.documentSymbols(ctx, p) })
}

// documentSymbols is DocumentSymbols without its bound.
func (f *Features) documentSymbols(ctx context.Context, p api.FileParams) (api.SymbolsResult, error) {
	op, err := f.open(ctx, p.File, protocol.DocumentSymbolRequest.Method())
	if err != nil {
		return api.SymbolsResult{}, err
	}
	defer op.Release()
	syms, err := op.Client.DocumentSymbols(ctx, op.URI)
	if err != nil {
		return api.SymbolsResult{}, err
	}
	m := op.Client.Mapper()
	var conv func([]client.Symbol) []api.Symbol
	conv = func(in []client.Symbol) []api.Symbol {
		out := make([]api.Symbol, 0, len(in))
		for _, s := range in {
			out = append(out, api.Symbol{Name: s.Name, Kind: kindName(s.Kind), Detail: s.Detail, Range: toRange(op.Lines, s.Range, m), Children: conv(s.Children)})
		}
		return out
	}
	return api.SymbolsResult{Symbols: conv(syms)}, nil
}

// WorkspaceSymbols asks every running server that offers workspace/symbol
// for the symbols matching the query. First it starts the servers whose
// root markers are at the workspace root and that run nowhere yet (one of
// their files opened, so that the project is loaded), and waits for each
// server's project load or index; a server still loading after the
// first-touch timeout answers for what it has, and the note says so.
func (f *Features) WorkspaceSymbols(ctx context.Context, p api.QueryParams) (api.WorkspaceSymbolsResult, error) {
	return bounded(f, ctx, api.MethodWorkspaceSymbols, func(ctx context.Context) (api.WorkspaceSymbolsResult, error) { return f.workspaceSymbols(ctx, p) })
}

// workspaceSymbols is WorkspaceSymbols without its bound.
func (f *Features) workspaceSymbols(ctx context.Context, p api.QueryParams) (api.WorkspaceSymbolsResult, error) {
	return f.workspaceSymbolsPlaced(ctx, p, nil)
}

// workspaceSymbolsPlaced is workspaceSymbols where only the symbols whose
// names placed is true of (nil: all) get their range, and their file is
// looked at; the others are names alone.
func (f *Features) workspaceSymbolsPlaced(ctx context.Context, p api.QueryParams, placed func(name string) bool) (api.WorkspaceSymbolsResult, error) {
	out := api.WorkspaceSymbolsResult{Symbols: []api.WorkspaceSymbol{}}
	if f.cfg.Disabled {
		return out, nil
	}
	held, note, err := f.core.HoldRunning(ctx, protocol.WorkspaceSymbolRequest.Method())
	out.Note = note
	if err != nil {
		return out, err
	}
	answers := make([][]api.WorkspaceSymbol, len(held))
	errs := make([]error, len(held))
	var wg conc.WaitGroup
	for i, h := range held {
		wg.Go(func() {
			defer h.Release()
			c := h.Client
			syms, err := c.WorkspaceSymbols(ctx, p.Query)
			if err != nil {
				errs[i] = err
				return
			}
			m := c.Mapper()
			texts := map[protocol.DocumentURI][]string{} // each file read once
			for _, sym := range syms {
				place := placed == nil || placed(sym.Name)
				path, err := sym.URI.Path()
				if err != nil || place && f.missing(c, sym.URI, path) {
					continue
				}
				ws := api.WorkspaceSymbol{Name: sym.Name, Kind: kindName(sym.Kind), Container: sym.Container, File: f.core.Rel(path)}
				if sym.Range != nil && place {
					lines, ok := texts[sym.URI]
					if !ok {
						lines = f.linesOf(c, sym.URI)
						texts[sym.URI] = lines
					}
					ws.Range = toRange(lines, *sym.Range, m)
				}
				answers[i] = append(answers[i], ws)
			}
		})
	}
	if panicked := wg.WaitAndRecover(); panicked != nil {
		f.log.Error("workspace symbols: panic", "panic", panicked.String())
		return out, transport.Errorf(transport.CodeInternalError, "workspace symbols: internal error: %v", panicked.Value)
	}
	for i, h := range held {
		out.Symbols = append(out.Symbols, answers[i]...)
		out.Note = api.JoinNotes(out.Note, h.Note)
	}
	if len(out.Symbols) == 0 && errors.Join(errs...) != nil {
		return out, errors.Join(errs...)
	}
	return out, nil
}

func toRange(lines []string, r protocol.Range, m client.Mapper) api.Range {
	sl, sc := m.Place(lines, r.Start)
	el, ec := m.Place(lines, r.End)
	return api.Range{StartLine: sl, StartChar: sc, EndLine: el, EndChar: ec}
}

// kindName is a symbol kind's lower-camel name ("function", "typeParameter").
func kindName(k protocol.SymbolKind) string {
	s := k.String()
	if s == "" || strings.Contains(s, "(") {
		return "unknown"
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// maxSourceChars bounds a location's source line.
const maxSourceChars = 200

// sourceLine is the 1-based line's text, trimmed, at most maxSourceChars
// characters ("" past the end).
func sourceLine(lines []string, line int) string {
	if line < 1 || line > len(lines) {
		return ""
	}
	s := strings.TrimSpace(lines[line-1])
	if utf8.RuneCountInString(s) > maxSourceChars {
		s = string([]rune(s)[:maxSourceChars])
	}
	return s
}
