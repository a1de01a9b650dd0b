package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
)

// OutsideRootError is returned for navigation on a path outside the root.
type OutsideRootError struct{ Path string }

func (e *OutsideRootError) Error() string {
	return fmt.Sprintf("path %q is outside the workspace root", e.Path)
}

// ErrNoServer is returned when no server that can answer serves the file.
var ErrNoServer = errors.New("no language server answers this for the file")

// NoServerError says why no server could answer for a file, in words a
// model can act on.
type NoServerError struct {
	File    string
	Reasons []string // per server tried: still starting, unavailable, does not offer …
	Known   string   // when no server serves the file type: the configured ones
}

func (e *NoServerError) Error() string {
	if len(e.Reasons) == 0 {
		ext := filepath.Ext(e.File)
		if ext == "" {
			ext = filepath.Base(e.File)
		}
		return fmt.Sprintf("no language server for %s files; configured servers: %s", ext, e.Known)
	}
	return e.File + ": " + strings.Join(e.Reasons, "; ")
}

// Unwrap makes a NoServerError an ErrNoServer.
func (e *NoServerError) Unwrap() error { return ErrNoServer }

// knownServers lists the enabled servers with their extensions.
func (o *Orchestrator) knownServers() string {
	var parts []string
	for _, id := range sortedKeys(o.specs) {
		s := o.specs[id]
		if s.Enabled && !o.cfg.Disabled {
			parts = append(parts, fmt.Sprintf("%s (%s)", id, strings.Join(append(slices.Clone(s.Extensions), s.FileNames...), " ")))
		}
	}
	if len(parts) == 0 {
		return "none (LSP is disabled by configuration)"
	}
	return strings.Join(parts, ", ")
}

// Location is a place in a file: 1-based lines and code-point columns.
type Location struct {
	File         string `json:"file"`
	Line         int    `json:"line"`
	Character    int    `json:"character"`
	EndLine      int    `json:"endLine"`
	EndCharacter int    `json:"endCharacter"`
}

// Range is a symbol's range: 1-based lines and code-point columns.
type Range struct {
	StartLine int `json:"startLine"`
	StartChar int `json:"startChar"`
	EndLine   int `json:"endLine"`
	EndChar   int `json:"endChar"`
}

// Symbol is a document symbol.
type Symbol struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Detail   string   `json:"detail,omitempty"`
	Range    Range    `json:"range"`
	Children []Symbol `json:"children,omitempty"`
}

// WorkspaceSymbol is a symbol found across the workspace.
type WorkspaceSymbol struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	File  string `json:"file"`
	Range Range  `json:"range"`
}

// capability reports whether the server offers a navigation method.
func capability(caps protocol.ServerCapabilities, method string) bool {
	type union interface{ IsZero() bool }
	var u union
	var b func() (bool, bool)
	switch method {
	case protocol.MethodTextDocumentDefinition:
		u, b = caps.DefinitionProvider, caps.DefinitionProvider.AsBoolean
	case protocol.MethodTextDocumentTypeDefinition:
		u, b = caps.TypeDefinitionProvider, caps.TypeDefinitionProvider.AsBoolean
	case protocol.MethodTextDocumentImplementation:
		u, b = caps.ImplementationProvider, caps.ImplementationProvider.AsBoolean
	case protocol.MethodTextDocumentReferences:
		u, b = caps.ReferencesProvider, caps.ReferencesProvider.AsBoolean
	case protocol.MethodTextDocumentHover:
		u, b = caps.HoverProvider, caps.HoverProvider.AsBoolean
	case protocol.MethodTextDocumentDocumentSymbol:
		u, b = caps.DocumentSymbolProvider, caps.DocumentSymbolProvider.AsBoolean
	case protocol.MethodWorkspaceSymbol:
		u, b = caps.WorkspaceSymbolProvider, caps.WorkspaceSymbolProvider.AsBoolean
	default:
		return false
	}
	if u.IsZero() {
		return false
	}
	if v, ok := b(); ok {
		return v
	}
	return true
}

// opened is a file open in a server that can answer a method.
type opened struct {
	c     *client.Client
	uri   protocol.DocumentURI
	lines []string
}

// open finds the first server for file that offers method, makes sure it
// has the file (the open text, else the disk's) and returns it.
func (o *Orchestrator) open(ctx context.Context, file, method string) (opened, error) {
	abs, ok := o.resolve(file)
	if !ok {
		return opened{}, &OutsideRootError{Path: file}
	}
	targets := o.serversFor(abs)
	if len(targets) == 0 {
		return opened{}, &NoServerError{File: o.rel(abs), Known: o.knownServers()}
	}
	var reasons []string
	for _, t := range targets {
		s, err := o.session(t)
		if err != nil {
			return opened{}, err
		}
		s.touch()
		wctx, cancel := context.WithTimeout(ctx, o.cfg.FirstTouchTimeout)
		c, verdict, why := s.await(wctx)
		cancel()
		switch {
		case c == nil && verdict == VerdictTimedOut:
			reasons = append(reasons, t.spec.ID+" is still starting; retry in a moment")
			continue
		case c == nil:
			reasons = append(reasons, fmt.Sprintf("%s is %s: %s", t.spec.ID, verdict, why))
			continue
		case !capability(c.ServerCapabilities(), method):
			reasons = append(reasons, fmt.Sprintf("%s does not offer %s", t.spec.ID, method))
			continue
		}
		uri, err := protocol.FileURI(abs)
		if err != nil {
			return opened{}, err
		}
		text, isOpen := c.DocumentText(uri)
		if !isOpen {
			data, err := os.ReadFile(abs)
			if err != nil {
				return opened{}, fmt.Errorf("%s: %w", o.rel(abs), err)
			}
			text = string(data)
			if _, _, err := s.sync(ctx, c, abs, t.spec.languageID(abs), text, true); err != nil {
				return opened{}, err
			}
		}
		return opened{c: c, uri: uri, lines: strings.Split(text, "\n")}, nil
	}
	return opened{}, &NoServerError{File: o.rel(abs), Reasons: reasons}
}

// PositionError is a position that does not exist in the file.
type PositionError struct{ Msg string }

func (e *PositionError) Error() string { return e.Msg }

// Pos is a position as agents give it: a 1-based line and a 1-based column
// in code points, or instead of the column a symbol name on that line (its
// first occurrence).
type Pos struct {
	Line      int
	Character int
	Symbol    string
}

// position converts a Pos into the server's position in the file.
func (op opened) position(file string, p Pos) (protocol.Position, error) {
	lines := len(op.lines)
	if lines > 0 && op.lines[lines-1] == "" {
		lines-- // the text ends with a newline
	}
	if p.Line < 1 || p.Line > max(lines, 1) {
		return protocol.Position{}, &PositionError{fmt.Sprintf("line %d is past the end of %s (%d lines)", p.Line, file, lines)}
	}
	text := ""
	if p.Line-1 < len(op.lines) {
		text = op.lines[p.Line-1]
	}
	col := p.Character - 1
	if p.Symbol != "" {
		i := strings.Index(text, p.Symbol)
		if i < 0 {
			return protocol.Position{}, &PositionError{fmt.Sprintf("%q does not occur on line %d of %s: %q", p.Symbol, p.Line, file, strings.TrimSpace(text))}
		}
		col = utf8.RuneCountInString(text[:i])
	}
	if col < 0 {
		return protocol.Position{}, &PositionError{fmt.Sprintf("give a character (1-based column) or a symbol on line %d", p.Line)}
	}
	return protocol.Position{Line: uint32(p.Line - 1), Character: op.c.Mapper().Column(text, col)}, nil
}

// Navigate runs definition, typeDefinition, implementation or references
// at a 1-based position.
func (o *Orchestrator) Navigate(ctx context.Context, method, file string, at Pos) ([]Location, error) {
	op, err := o.open(ctx, file, method)
	if err != nil {
		return nil, err
	}
	pos, err := op.position(file, at)
	if err != nil {
		return nil, err
	}
	var locs []protocol.Location
	switch method {
	case protocol.MethodTextDocumentDefinition:
		locs, err = op.c.Definition(ctx, op.uri, pos)
	case protocol.MethodTextDocumentTypeDefinition:
		locs, err = op.c.TypeDefinition(ctx, op.uri, pos)
	case protocol.MethodTextDocumentImplementation:
		locs, err = op.c.Implementation(ctx, op.uri, pos)
	case protocol.MethodTextDocumentReferences:
		locs, err = op.c.References(ctx, op.uri, pos, true)
	default:
		return nil, fmt.Errorf("not a navigation method: %s", method)
	}
	if err != nil {
		return nil, err
	}
	o.log.Debug("navigate", "method", method, "uri", op.uri, "position", pos, "results", len(locs))
	out := make([]Location, 0, len(locs))
	texts := map[protocol.DocumentURI][]string{}
	for _, l := range locs {
		lines, ok := texts[l.URI]
		if !ok {
			lines = o.linesOf(op.c, l.URI)
			texts[l.URI] = lines
		}
		path, err := l.URI.Path()
		if err != nil {
			continue
		}
		sl, sc := convertPosition(lines, l.Range.Start, op.c.PositionEncoding())
		el, ec := convertPosition(lines, l.Range.End, op.c.PositionEncoding())
		out = append(out, Location{File: o.rel(path), Line: sl, Character: sc, EndLine: el, EndCharacter: ec})
	}
	return out, nil
}

// linesOf returns a document's lines: the open text, else the disk's.
func (o *Orchestrator) linesOf(c *client.Client, uri protocol.DocumentURI) []string {
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

// Hover returns the hover text at a 1-based position; ok is false when the
// server has nothing there.
func (o *Orchestrator) Hover(ctx context.Context, file string, at Pos) (string, bool, error) {
	op, err := o.open(ctx, file, protocol.MethodTextDocumentHover)
	if err != nil {
		return "", false, err
	}
	pos, err := op.position(file, at)
	if err != nil {
		return "", false, err
	}
	return op.c.Hover(ctx, op.uri, pos)
}

// DocumentSymbols returns a file's symbols as a tree.
func (o *Orchestrator) DocumentSymbols(ctx context.Context, file string) ([]Symbol, error) {
	op, err := o.open(ctx, file, protocol.MethodTextDocumentDocumentSymbol)
	if err != nil {
		return nil, err
	}
	syms, err := op.c.DocumentSymbols(ctx, op.uri)
	if err != nil {
		return nil, err
	}
	enc := op.c.PositionEncoding()
	var conv func([]client.Symbol) []Symbol
	conv = func(in []client.Symbol) []Symbol {
		out := make([]Symbol, 0, len(in))
		for _, s := range in {
			out = append(out, Symbol{Name: s.Name, Kind: kindName(s.Kind), Detail: s.Detail, Range: toRange(op.lines, s.Range, enc), Children: conv(s.Children)})
		}
		return out
	}
	return conv(syms), nil
}

// WorkspaceSymbols asks the servers already running for symbols matching
// query (workspace/symbol needs a running server; it starts none).
func (o *Orchestrator) WorkspaceSymbols(ctx context.Context, query string) ([]WorkspaceSymbol, error) {
	out := []WorkspaceSymbol{}
	var errs []error
	for _, s := range o.liveSessions() {
		c := s.current()
		if c == nil || !capability(c.ServerCapabilities(), protocol.MethodWorkspaceSymbol) {
			continue
		}
		syms, err := c.WorkspaceSymbols(ctx, query)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, sym := range syms {
			path, err := sym.URI.Path()
			if err != nil {
				continue
			}
			ws := WorkspaceSymbol{Name: sym.Name, Kind: kindName(sym.Kind), File: o.rel(path)}
			if sym.Range != nil {
				ws.Range = toRange(o.linesOf(c, sym.URI), *sym.Range, c.PositionEncoding())
			}
			out = append(out, ws)
		}
	}
	if len(out) == 0 && len(errs) > 0 {
		return out, errors.Join(errs...)
	}
	return out, nil
}

func toRange(lines []string, r protocol.Range, enc protocol.PositionEncodingKind) Range {
	sl, sc := convertPosition(lines, r.Start, enc)
	el, ec := convertPosition(lines, r.End, enc)
	return Range{StartLine: sl, StartChar: sc, EndLine: el, EndChar: ec}
}

// kindName is a symbol kind's lower-camel name ("function", "typeParameter").
func kindName(k protocol.SymbolKind) string {
	s := k.String()
	if s == "" || strings.Contains(s, "(") {
		return "unknown"
	}
	return strings.ToLower(s[:1]) + s[1:]
}
