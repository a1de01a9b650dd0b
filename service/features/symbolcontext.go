package features

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// Bounds of a symbol-context answer.
const (
	maxContextSource = 40
	maxContextRefs   = 100
	maxContextCalls  = 50
)

// SymbolContext answers what an agent asks about a symbol first, in one
// call: its definition with the definition's lines, its hover, its
// references grouped by file (the tests' files last) and its callers —
// asked of the servers at once. A part that could not be had is named in
// Missing with the reason; the answer is bounded (see the fields).
func (f *Features) SymbolContext(ctx context.Context, p api.PositionParams) (api.SymbolContextResult, error) {
	return bounded(f, ctx, api.MethodSymbolContext, func(ctx context.Context) (api.SymbolContextResult, error) {
		out := api.SymbolContextResult{References: []api.FileReferences{}}
		ctx = f.core.PastBarrier(ctx) // once for all its questions
		byName := p.Line == 0
		p, note, err := f.address(ctx, p)
		if err != nil {
			return out, err
		}
		if err := checkPosition(p); err != nil {
			return out, err
		}
		out.Note = note
		out.Symbol = p.Symbol
		if out.Symbol == "" {
			out.Symbol = f.identifierAt(p.File, p.Line, p.Character)
		}
		var (
			def, refs api.LocationsResult
			hover     api.HoverResult
			calls     api.CallHierarchyResult
			source    string
			truncated bool
			kind      string
			errs      [4]error
		)
		var wg conc.WaitGroup
		// The outline of the position's file, asked for at once: the
		// definition is most often in that file.
		here := make(chan struct{})
		var hereOutline outline
		var hereOK bool
		wg.Go(func() {
			defer close(here)
			hereOutline, hereOK = f.outlineOf(ctx, p.File)
		})
		wg.Go(func() {
			def, errs[0] = f.locate(ctx, p, protocol.DefinitionRequest.Method(), (*client.Client).Definition)
			if errs[0] != nil || len(def.Locations) == 0 {
				return
			}
			d := def.Locations[0]
			<-here
			ol, ok := hereOutline, hereOK
			if d.File != p.File {
				ol, ok = f.outlineOf(ctx, d.File)
			}
			var lines int
			source, truncated, kind, lines = f.definitionSource(d, ol, ok)
			// A server may answer a definition's definition with its
			// declaration (clangd: the prototype in the header); the
			// place the name resolved to, when it has more lines (a
			// body), is the definition.
			if byName && (d.File != p.File || d.Line != p.Line) {
				at := api.Location{File: p.File, Line: p.Line, Character: p.Character, EndLine: p.Line, EndCharacter: p.Character}
				if src, tr, k, n := f.definitionSource(at, hereOutline, hereOK); n > lines {
					at.Source = sourceLine(strings.Split(src, "\n"), 1)
					def.Locations = append([]api.Location{at}, def.Locations...)
					source, truncated, kind = src, tr, k
				}
			}
		})
		wg.Go(func() { hover, errs[1] = f.hover(ctx, p) })
		wg.Go(func() {
			refs, errs[2] = f.locate(ctx, p, protocol.ReferencesRequest.Method(), func(c *client.Client, ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.Location, error) {
				return c.References(ctx, uri, pos, true)
			})
		})
		wg.Go(func() {
			calls, errs[3] = f.callHierarchy(ctx, api.CallHierarchyParams{PositionParams: p, Direction: api.DirectionIncoming})
		})
		if panicked := wg.WaitAndRecover(); panicked != nil {
			f.log.Error("symbol context: panic", "panic", panicked.String())
			return out, transport.Errorf(transport.CodeInternalError, "symbol context: internal error: %v", panicked.Value)
		}
		missing := map[string]string{}
		for i, part := range []string{"definition", "hover", "references", "callers"} {
			if errs[i] != nil {
				missing[part] = errs[i].Error()
			}
		}
		// The position itself is wrong: every part says so alike.
		if len(missing) == 4 {
			return out, errs[0]
		}
		if len(missing) > 0 {
			out.Missing = missing
		}
		out.Note = api.JoinNotes(out.Note, def.Note, hover.Note, refs.Note, calls.Note)
		if len(def.Locations) > 0 {
			d := def.Locations[0]
			out.Definition, out.Source, out.Truncated, out.Kind = &d, source, truncated, kind
		}
		if hover.Content != nil {
			out.Hover = *hover.Content
		}
		out.References, out.ReferencesTotal = groupReferences(refs.Locations)
		out.CallersTotal = len(calls.Calls)
		out.Callers = calls.Calls[:min(len(calls.Calls), maxContextCalls)]
		if out.Symbol == "" {
			out.Symbol = calls.Function
		}
		return out, nil
	})
}

// identifierAt is the identifier at a 1-based line and column of file
// ("" when there is none).
func (f *Features) identifierAt(file string, line, col int) string {
	lines := f.fileLines(file)
	if line < 1 || line > len(lines) {
		return ""
	}
	rs := []rune(lines[line-1])
	i := col - 1
	if i < 0 || i >= len(rs) || !isIdent(rs[i]) {
		return ""
	}
	from, to := i, i
	for from > 0 && isIdent(rs[from-1]) {
		from--
	}
	for to < len(rs) && isIdent(rs[to]) {
		to++
	}
	return string(rs[from:to])
}

// outline is a file's symbols as its server gives them, with the text
// they refer to.
type outline struct {
	syms  []client.Symbol
	lines []string
	m     client.Mapper
}

// outlineOf returns file's outline, or false when its server gives none.
func (f *Features) outlineOf(ctx context.Context, file string) (outline, bool) {
	op, err := f.open(ctx, file, protocol.DocumentSymbolRequest.Method())
	if err != nil {
		return outline{}, false
	}
	defer op.Release()
	syms, err := op.Client.DocumentSymbols(ctx, op.URI)
	if err != nil {
		return outline{}, false
	}
	return outline{syms: syms, lines: op.Lines, m: op.Client.Mapper()}, true
}

// enclosing returns the range and kind of the innermost symbol whose
// name is at loc (or, failing that, whose range starts on its line).
func (ol outline) enclosing(loc api.Location) (api.Range, string, bool) {
	var best api.Range
	kind, found := "", false
	var walk func([]client.Symbol)
	walk = func(in []client.Symbol) {
		for _, s := range in {
			sel := toRange(ol.lines, s.SelectionRange, ol.m)
			whole := toRange(ol.lines, s.Range, ol.m)
			if sel.StartLine == loc.Line && sel.StartChar <= loc.Character && loc.Character <= max(sel.EndChar, sel.StartChar) || whole.StartLine == loc.Line && !found {
				best, kind, found = whole, kindName(s.Kind), true
			}
			walk(s.Children)
		}
	}
	walk(ol.syms)
	return best, kind, found
}

// definitionSource returns the lines of the declaration at loc (the
// smallest symbol of the file's outline whose name is there), at most
// maxContextSource, whether there were more, the symbol's kind and its
// number of lines.
func (f *Features) definitionSource(loc api.Location, ol outline, ok bool) (string, bool, string, int) {
	lines := f.fileLines(loc.File)
	start, end, kind := loc.Line, loc.Line, ""
	if ok {
		if r, k, found := ol.enclosing(loc); found {
			start, end, kind = r.StartLine, r.EndLine, k
		}
	}
	if start < 1 || start > len(lines) {
		return "", false, kind, 0
	}
	end = min(max(end, start), len(lines))
	n := end - start + 1
	truncated := n > maxContextSource
	if truncated {
		end = start + maxContextSource - 1
	}
	return strings.Join(lines[start-1:end], "\n"), truncated, kind, n
}

// isTestFile reports whether a file is a test by the naming conventions
// of the languages lspkit serves.
func isTestFile(file string) bool {
	base := path.Base(file)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(stem, "_test"), strings.HasPrefix(stem, "test_"), base == "conftest.py",
		strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"), strings.HasSuffix(stem, "Test"), strings.HasSuffix(stem, "Tests"):
		return true
	}
	for _, dir := range strings.Split(path.Dir(file), "/") {
		if dir == "test" || dir == "tests" || dir == "__tests__" || dir == "testdata" {
			return true
		}
	}
	return false
}

// groupReferences groups locations by file — the other files first, the
// tests' files last, each by path — listing at most maxContextRefs lines,
// and counts them all.
func groupReferences(locs []api.Location) ([]api.FileReferences, int) {
	byFile := map[string][]int{}
	for _, l := range locs {
		byFile[l.File] = append(byFile[l.File], l.Line)
	}
	var out []api.FileReferences
	for f, lines := range byFile {
		slices.Sort(lines)
		out = append(out, api.FileReferences{File: f, Test: isTestFile(f), Lines: slices.Compact(lines)})
	}
	slices.SortFunc(out, func(a, b api.FileReferences) int {
		if a.Test != b.Test {
			if a.Test {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.File, b.File)
	})
	budget := maxContextRefs
	for i := range out {
		n := min(len(out[i].Lines), budget)
		out[i].Lines = out[i].Lines[:n]
		budget -= n
	}
	out = slices.DeleteFunc(out, func(f api.FileReferences) bool { return len(f.Lines) == 0 })
	if out == nil {
		out = []api.FileReferences{}
	}
	return out, len(locs)
}
