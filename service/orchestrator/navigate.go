package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// opened is a file open in a server that can answer a method.
type opened struct {
	c      *client.Client
	server string // its id
	// answer is the server's findings for the file's text when this open
	// sent it (a text given, or the file new to the server); nil when the
	// server had the text already.
	answer *client.Answer
	uri    protocol.DocumentURI
	file   string // relative to the root
	lines  []string
	note   string // why the answer may be incomplete
	// release lets the session's hold go (see session.hold): the request
	// is answered, or the caller no longer reads from the server.
	release func()
}

// done lets op's hold go; it may be called more than once.
func (op opened) done() {
	if op.release != nil {
		op.release()
	}
}

// open finds the first server for file that supports method for it, makes
// sure it has the file (the open text, else the disk's) and returns it.
func (o *Orchestrator) open(ctx context.Context, file, method string) (opened, error) {
	ops, err := o.openServers(ctx, file, method, false)
	if err != nil {
		return opened{}, err
	}
	return ops[0], nil
}

// openServers is open for every server of file that supports method (all),
// or the first: each returned holds its session until done.
func (o *Orchestrator) openServers(ctx context.Context, file, method string, all bool) ([]opened, error) {
	return o.openText(ctx, file, nil, method, all, false)
}

// openText is openServers with the file's text given (nil: the disk's)
// and method "" for every server of the file:
// each server returned holds that text for the file, its findings for it
// settled, and the session held alone (as a check of given text) until
// done. A given text needs no file on disk. recheck has the text checked
// again even when the server has it already (something it depends on
// changed).
func (o *Orchestrator) openText(ctx context.Context, file string, given *string, method string, all, recheck bool) ([]opened, error) {
	if err := validPath("file", file); err != nil {
		return nil, err
	}
	abs, ok := o.resolve(file)
	if !ok {
		return nil, o.outsideRoot(file)
	}
	info, err := os.Stat(abs)
	switch {
	case given != nil && errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, fs.ErrNotExist):
		return nil, api.NotFound(o.rel(abs), err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", o.rel(abs), err)
	case info.IsDir():
		return nil, api.InvalidParams("%s is a directory", o.rel(abs))
	}
	if given != nil && int64(len(*given)) > o.maxFileBytes() {
		return nil, api.InvalidParams("%s: the text given is %d bytes, over the limit of %d", o.rel(abs), len(*given), o.maxFileBytes())
	}
	targets := o.serversFor(abs)
	if len(targets) == 0 {
		return nil, api.NoServer("%s", o.noServerReason(abs))
	}
	barrierNote := o.barrier(ctx)
	var reasons []string
	var out []opened
	// On an error, what is already held is let go.
	fail := func(err error) ([]opened, error) {
		for _, op := range out {
			op.done()
		}
		return nil, err
	}
	for _, t := range targets {
		s, err := o.session(t)
		if err != nil {
			return fail(err)
		}
		wctx, cancel := context.WithTimeout(ctx, o.cfg.FirstTouchTimeout)
		// Held until the answer: no check's given text is sent meanwhile
		// (with a given text: nothing else is asked meanwhile).
		c, held, verdict, why := s.awaitHeld(wctx, given != nil)
		cancel()
		uri, err := protocol.FileURI(abs)
		if err != nil {
			return fail(err)
		}
		switch {
		case c == nil && why == errHeld.Error():
			return fail(fmt.Errorf("%s: %s: %w", o.rel(abs), t.spec.ID, errHeld))
		case c == nil && verdict == api.VerdictTimedOut:
			reasons = append(reasons, t.spec.ID+" is still starting; retry in a moment")
			continue
		case c == nil:
			reasons = append(reasons, fmt.Sprintf("%s is %s: %s", t.spec.ID, verdict, why))
			continue
		case method != "" && !c.Supports(method, uri, t.spec.LanguageID(abs)):
			held()
			reasons = append(reasons, fmt.Sprintf("%s does not offer %s", t.spec.ID, method))
			continue
		}
		release := sync.OnceFunc(held)
		except := ""
		if given != nil {
			except = abs
		}
		refreshNote := s.refresh(ctx, c, except)
		text, isOpen := c.DocumentText(uri)
		lctx, cancel := context.WithTimeout(ctx, o.cfg.FirstTouchTimeout)
		defer cancel()
		var answer *client.Answer
		if given != nil && (!isOpen || text != *given || recheck) {
			text = *given
			a, err := s.diagnose(lctx, c, abs, t.spec.LanguageID(abs), source{text: text})
			if err != nil {
				release()
				return fail(err)
			}
			answer = &a
		} else if !isOpen || recheck {
			src, err := readSource(abs, o.maxFileBytes())
			if err != nil {
				release()
				return fail(fmt.Errorf("%s: %w", o.rel(abs), err))
			}
			text = src.text
			// A file the server has not seen: its analysis of it (its
			// findings settled) comes first, so that the project the
			// file belongs to is loaded before the question.
			a, err := s.diagnose(lctx, c, abs, t.spec.LanguageID(abs), src)
			if err != nil {
				if _, open := c.DocumentText(uri); !open {
					release()
					return fail(err)
				}
			} else {
				answer = &a
			}
		}
		// A server loading its project or building its index answers
		// for part of it: wait for that to end.
		left := o.cfg.FirstTouchTimeout
		if deadline, ok := lctx.Deadline(); ok {
			left = time.Until(deadline)
		}
		note := api.JoinNotes(barrierNote, refreshNote, s.loaded(ctx, c, left))
		s.used() // the question follows at once
		out = append(out, opened{c: c, server: t.spec.ID, uri: uri, file: o.rel(abs), lines: strings.Split(text, "\n"), note: note, answer: answer, release: release})
		if !all {
			return out, nil
		}
	}
	if len(out) > 0 {
		// A server that could not answer is said, not left out silently.
		if len(reasons) > 0 {
			out[0].note = api.JoinNotes(out[0].note, strings.Join(reasons, "; "))
		}
		return out, nil
	}
	return nil, api.NoServer("%s: %s", o.rel(abs), strings.Join(reasons, "; "))
}

// position converts an agent's position into the server's position in the
// file, with a note when a symbol occurs more than once on the line and no
// occurrence was given.
func (op opened) position(p api.PositionParams) (protocol.Position, string, error) {
	lines := len(op.lines)
	if lines > 0 && op.lines[lines-1] == "" {
		lines-- // the text ends with a newline
	}
	if p.Line < 1 {
		return protocol.Position{}, "", api.InvalidParams("line must be ≥ 1")
	}
	if p.Line > max(lines, 1) {
		return protocol.Position{}, "", api.InvalidParams("line %d is past the end of %s (%d lines)", p.Line, op.file, lines)
	}
	text := ""
	if p.Line-1 < len(op.lines) {
		text = op.lines[p.Line-1]
	}
	col, note := p.Character-1, op.note
	if p.Symbol != "" {
		at := symbolOffsets(text, p.Symbol)
		if len(at) == 0 {
			l, near, err := op.nearLine(p)
			if err != nil {
				return protocol.Position{}, "", err
			}
			p.Line, text, note = l, op.lines[l-1], api.JoinNotes(note, near)
			at = symbolOffsets(text, p.Symbol)
		}
		switch {
		case p.Occurrence > len(at):
			return protocol.Position{}, "", api.InvalidParams("occurrence %d: %q appears %d times on line %d of %s", p.Occurrence, p.Symbol, len(at), p.Line, op.file)
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
	return protocol.Position{Line: uint32(p.Line - 1), Character: op.c.Mapper().Column(text, col)}, note, nil
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
func (o *Orchestrator) at(ctx context.Context, p api.PositionParams, method string) (opened, protocol.Position, string, error) {
	if p.Line == 0 && p.Symbol != "" {
		ctx = o.pastBarrier(ctx) // looked up, then asked
	}
	p, resolved, err := o.address(ctx, p)
	if err != nil {
		return opened{}, protocol.Position{}, "", err
	}
	if err := checkPosition(p); err != nil {
		return opened{}, protocol.Position{}, "", err
	}
	op, err := o.open(ctx, p.File, method)
	if err != nil {
		return opened{}, protocol.Position{}, "", err
	}
	pos, note, err := op.position(p)
	if err != nil {
		op.done()
	}
	return op, pos, api.JoinNotes(resolved, note), err
}

// locate runs a definition-like request at a position and converts its
// locations.
func (o *Orchestrator) locate(ctx context.Context, p api.PositionParams, method string, call func(*client.Client, context.Context, protocol.DocumentURI, protocol.Position) ([]protocol.Location, error)) (api.LocationsResult, error) {
	op, pos, note, err := o.at(ctx, p, method)
	if err != nil {
		return api.LocationsResult{}, err
	}
	defer op.done()
	locs, err := call(op.c, ctx, op.uri, pos)
	if err != nil {
		return api.LocationsResult{}, err
	}
	o.log.Debug("navigate", "method", method, "uri", op.uri, "position", pos, "results", len(locs))
	out := make([]api.Location, 0, len(locs))
	texts := map[protocol.DocumentURI][]string{}
	m := op.c.Mapper()
	var gone []string
	for _, l := range locs {
		path, err := l.URI.Path()
		if err != nil {
			continue
		}
		lines, ok := texts[l.URI]
		if !ok {
			lines = o.linesOf(op.c, l.URI)
			texts[l.URI] = lines
		}
		if lines == nil && o.missing(op.c, l.URI, path) {
			// The server still knows a file that is gone.
			if f := o.rel(path); !slices.Contains(gone, f) {
				gone = append(gone, f)
			}
			continue
		}
		sl, sc := m.Place(lines, l.Range.Start)
		el, ec := m.Place(lines, l.Range.End)
		out = append(out, api.Location{File: o.rel(path), Line: sl, Character: sc, EndLine: el, EndCharacter: ec, Source: sourceLine(lines, sl)})
	}
	if len(gone) > 0 {
		note = api.JoinNotes(note, fmt.Sprintf("left out locations in %s: no longer on disk", strings.Join(gone, ", ")))
	}
	return api.LocationsResult{Locations: out, Note: note}, nil
}

// missing reports whether the file at path is neither open in c nor on
// disk.
func (o *Orchestrator) missing(c *client.Client, uri protocol.DocumentURI, path string) bool {
	if _, open := c.DocumentText(uri); open {
		return false
	}
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// Definition returns where the symbol at a position is defined.
func (o *Orchestrator) Definition(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return bounded(o, ctx, api.MethodDefinition, func(ctx context.Context) (api.LocationsResult, error) {
		return o.locate(ctx, p, protocol.DefinitionRequest.Method(), (*client.Client).Definition)
	})
}

// TypeDefinition returns where the type of the symbol at a position is
// defined.
func (o *Orchestrator) TypeDefinition(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return bounded(o, ctx, api.MethodTypeDefinition, func(ctx context.Context) (api.LocationsResult, error) {
		return o.locate(ctx, p, protocol.TypeDefinitionRequest.Method(), (*client.Client).TypeDefinition)
	})
}

// Implementation returns the implementations of the symbol at a position.
func (o *Orchestrator) Implementation(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return bounded(o, ctx, api.MethodImplementation, func(ctx context.Context) (api.LocationsResult, error) {
		return o.locate(ctx, p, protocol.ImplementationRequest.Method(), (*client.Client).Implementation)
	})
}

// References returns every reference to the symbol at a position, its
// declaration included.
func (o *Orchestrator) References(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return bounded(o, ctx, api.MethodReferences, func(ctx context.Context) (api.LocationsResult, error) {
		return o.locate(ctx, p, protocol.ReferencesRequest.Method(), func(c *client.Client, ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.Location, error) {
			return c.References(ctx, uri, pos, true)
		})
	})
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

// Hover returns the hover text at a position; Content is nil when the
// server has nothing there.
func (o *Orchestrator) Hover(ctx context.Context, p api.PositionParams) (api.HoverResult, error) {
	return bounded(o, ctx, api.MethodHover, func(ctx context.Context) (api.HoverResult, error) { return o.hover(ctx, p) })
}

// hover is Hover without its bound.
func (o *Orchestrator) hover(ctx context.Context, p api.PositionParams) (api.HoverResult, error) {
	op, pos, note, err := o.at(ctx, p, protocol.HoverRequest.Method())
	if err != nil {
		return api.HoverResult{}, err
	}
	defer op.done()
	text, ok, err := op.c.Hover(ctx, op.uri, pos)
	if err != nil || !ok {
		return api.HoverResult{Note: note}, err
	}
	return api.HoverResult{Content: &text, Note: note}, nil
}

// DocumentSymbols returns a file's symbols as a tree.
func (o *Orchestrator) DocumentSymbols(ctx context.Context, p api.FileParams) (api.SymbolsResult, error) {
	return bounded(o, ctx, api.MethodDocumentSymbols, func(ctx context.Context) (api.SymbolsResult, error) { return o.documentSymbols(ctx, p) })
}

// documentSymbols is DocumentSymbols without its bound.
func (o *Orchestrator) documentSymbols(ctx context.Context, p api.FileParams) (api.SymbolsResult, error) {
	op, err := o.open(ctx, p.File, protocol.DocumentSymbolRequest.Method())
	if err != nil {
		return api.SymbolsResult{}, err
	}
	defer op.done()
	syms, err := op.c.DocumentSymbols(ctx, op.uri)
	if err != nil {
		return api.SymbolsResult{}, err
	}
	m := op.c.Mapper()
	var conv func([]client.Symbol) []api.Symbol
	conv = func(in []client.Symbol) []api.Symbol {
		out := make([]api.Symbol, 0, len(in))
		for _, s := range in {
			out = append(out, api.Symbol{Name: s.Name, Kind: kindName(s.Kind), Detail: s.Detail, Range: toRange(op.lines, s.Range, m), Children: conv(s.Children)})
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
func (o *Orchestrator) WorkspaceSymbols(ctx context.Context, p api.QueryParams) (api.WorkspaceSymbolsResult, error) {
	return bounded(o, ctx, api.MethodWorkspaceSymbols, func(ctx context.Context) (api.WorkspaceSymbolsResult, error) { return o.workspaceSymbols(ctx, p) })
}

// workspaceSymbols is WorkspaceSymbols without its bound.
func (o *Orchestrator) workspaceSymbols(ctx context.Context, p api.QueryParams) (api.WorkspaceSymbolsResult, error) {
	return o.workspaceSymbolsPlaced(ctx, p, nil)
}

// workspaceSymbolsPlaced is workspaceSymbols where only the symbols whose
// names placed is true of (nil: all) get their range, and their file is
// looked at; the others are names alone.
func (o *Orchestrator) workspaceSymbolsPlaced(ctx context.Context, p api.QueryParams, placed func(name string) bool) (api.WorkspaceSymbolsResult, error) {
	out := api.WorkspaceSymbolsResult{Symbols: []api.WorkspaceSymbol{}}
	if o.cfg.Disabled {
		return out, nil
	}
	out.Note = api.JoinNotes(o.barrier(ctx), o.warmWorkspace(ctx))
	sessions := o.liveSessions()
	answers := make([][]api.WorkspaceSymbol, len(sessions))
	errs := make([]error, len(sessions))
	notes := make([]string, len(sessions))
	var wg conc.WaitGroup
	for i, s := range sessions {
		c := s.current()
		if c == nil || !c.Supports(protocol.WorkspaceSymbolRequest.Method(), "", "") {
			continue
		}
		wg.Go(func() {
			release, err := s.hold(ctx, false)
			if err != nil {
				errs[i] = err
				return
			}
			defer release()
			notes[i] = api.JoinNotes(s.refresh(ctx, c, ""), s.loaded(ctx, c, o.cfg.FirstTouchTimeout))
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
				if err != nil || place && o.missing(c, sym.URI, path) {
					continue
				}
				ws := api.WorkspaceSymbol{Name: sym.Name, Kind: kindName(sym.Kind), Container: sym.Container, File: o.rel(path)}
				if sym.Range != nil && place {
					lines, ok := texts[sym.URI]
					if !ok {
						lines = o.linesOf(c, sym.URI)
						texts[sym.URI] = lines
					}
					ws.Range = toRange(lines, *sym.Range, m)
				}
				answers[i] = append(answers[i], ws)
			}
		})
	}
	if panicked := wg.WaitAndRecover(); panicked != nil {
		o.log.Error("workspace symbols: panic", "panic", panicked.String())
		return out, transport.Errorf(transport.CodeInternalError, "workspace symbols: internal error: %v", panicked.Value)
	}
	for i := range sessions {
		out.Symbols = append(out.Symbols, answers[i]...)
		out.Note = api.JoinNotes(out.Note, notes[i])
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
