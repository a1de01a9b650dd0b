package features

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sourcegraph/conc/pool"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// Declaration returns where the symbol at a position is declared (a C
// prototype in its header, a Python stub).
func (f *Features) Declaration(ctx context.Context, p api.PositionParams) (api.LocationsResult, error) {
	return bounded(f, ctx, api.MethodDeclaration, func(ctx context.Context) (api.LocationsResult, error) {
		return f.locate(ctx, p, protocol.DeclarationRequest.Method(), (*client.Client).Declaration)
	})
}

// DocumentHighlights returns where the symbol at a position occurs in its
// file, each read, written or named.
func (f *Features) DocumentHighlights(ctx context.Context, p api.PositionParams) (api.HighlightsResult, error) {
	return bounded(f, ctx, api.MethodDocumentHighlights, func(ctx context.Context) (api.HighlightsResult, error) {
		out := api.HighlightsResult{Highlights: []api.Highlight{}}
		op, pos, note, err := f.at(ctx, p, protocol.DocumentHighlightRequest.Method())
		if err != nil {
			return out, err
		}
		defer op.Release()
		out.Note = note
		hs, err := op.Client.DocumentHighlights(ctx, op.URI, pos)
		if err != nil {
			return out, err
		}
		m := op.Client.Mapper()
		for _, h := range hs {
			kind := ""
			if h.Kind != nil {
				kind = strings.ToLower(h.Kind.String())
			}
			out.Highlights = append(out.Highlights, api.Highlight{Location: location(op, h.Range, m), Kind: kind})
		}
		slices.SortStableFunc(out.Highlights, func(a, b api.Highlight) int {
			return (a.Line-b.Line)*1_000_000 + a.Character - b.Character
		})
		return out, nil
	})
}

// location is a range of op's file as a Location with its source line.
func location(op Held, r protocol.Range, m client.Mapper) api.Location {
	sl, sc := m.Place(op.Lines, r.Start)
	el, ec := m.Place(op.Lines, r.End)
	return api.Location{File: op.File, Line: sl, Character: sc, EndLine: el, EndCharacter: ec, Source: sourceLine(op.Lines, sl)}
}

// SignatureHelp returns the signatures of the call around a position, the
// one the server takes to be active first, with the parameter there.
func (f *Features) SignatureHelp(ctx context.Context, p api.PositionParams) (api.SignatureHelpResult, error) {
	return bounded(f, ctx, api.MethodSignatureHelp, func(ctx context.Context) (api.SignatureHelpResult, error) {
		out := api.SignatureHelpResult{Signatures: []api.Signature{}}
		op, pos, note, err := f.at(ctx, p, protocol.SignatureHelpRequest.Method())
		if err != nil {
			return out, err
		}
		defer op.Release()
		out.Note = note
		h, ok, err := op.Client.SignatureHelp(ctx, op.URI, pos)
		if err != nil || !ok {
			if err == nil {
				out.Note = api.JoinNotes(out.Note, "the position is in no call the server knows")
			}
			return out, err
		}
		active := 0
		if h.ActiveSignature != nil && int(*h.ActiveSignature) < len(h.Signatures) {
			active = int(*h.ActiveSignature)
		}
		order := append([]int{active}, slices.DeleteFunc(sequence(len(h.Signatures)), func(i int) bool { return i == active })...)
		for _, i := range order {
			si := h.Signatures[i]
			sig := api.Signature{Label: si.Label, Documentation: markup(si.Documentation)}
			for _, pi := range si.Parameters {
				sig.Parameters = append(sig.Parameters, parameterLabel(si.Label, pi.Label, op.Client.Mapper()))
			}
			param := si.ActiveParameter
			if param == nil && i == active {
				param = h.ActiveParameter
			}
			if param != nil {
				if n, ok := param.Get(); ok && int(n) < len(sig.Parameters) {
					sig.ActiveParameter = new(int(n))
				}
			}
			out.Signatures = append(out.Signatures, sig)
		}
		return out, nil
	})
}

func sequence(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// parameterLabel is a parameter's text: its label, or the part of the
// signature's label its offsets select (counted in the negotiated
// position encoding, as positions are).
func parameterLabel(sig string, l protocol.ParameterInformationLabel, m client.Mapper) string {
	if s, ok := l.AsString(); ok {
		return s
	}
	at, _ := l.AsUintegerTuple()
	runes := []rune(sig)
	start, end := m.CodePoints(sig, at[0]), m.CodePoints(sig, at[1])
	if start < 0 || end > len(runes) || start > end {
		return ""
	}
	return string(runes[start:end])
}

// markup is documentation's text.
func markup(v protocol.StringOrMarkupContent) string {
	if s, ok := v.AsString(); ok {
		return s
	}
	if mc, ok := v.AsMarkupContent(); ok {
		return mc.Value
	}
	return ""
}

// maxHintLines bounds the lines one inlay-hints answer covers.
const maxHintLines = 300

// InlayHints returns a file's inlay hints between two lines — inferred
// types, parameter names — and those lines with the hints written in.
func (f *Features) InlayHints(ctx context.Context, p api.InlayHintsParams) (api.InlayHintsResult, error) {
	return bounded(f, ctx, api.MethodInlayHints, func(ctx context.Context) (api.InlayHintsResult, error) {
		out := api.InlayHintsResult{Hints: []api.InlayHint{}}
		if p.StartLine < 0 || p.EndLine < 0 || (p.EndLine != 0 && p.EndLine < max(p.StartLine, 1)) {
			return out, api.InvalidParams("lines %d to %d: give 1-based lines, startLine ≤ endLine", p.StartLine, p.EndLine)
		}
		op, err := f.open(ctx, p.File, protocol.InlayHintRequest.Method())
		if err != nil {
			return out, err
		}
		defer op.Release()
		out.Note = op.Note
		n := len(op.Lines)
		if n > 0 && op.Lines[n-1] == "" {
			n--
		}
		start, end := max(p.StartLine, 1), p.EndLine
		if end == 0 || end > n {
			end = n
		}
		if start > n {
			return out, api.InvalidParams("line %d is past the end of %s (%d lines)", start, op.File, n)
		}
		if end-start+1 > maxHintLines {
			end = start + maxHintLines - 1
			out.Note = api.JoinNotes(out.Note, fmt.Sprintf("lines %d to %d only (at most %d lines per answer)", start, end, maxHintLines))
		}
		m := op.Client.Mapper()
		rng := protocol.Range{Start: protocol.Position{Line: uint32(start - 1)}, End: lineEnd(op, end)}
		hs, err := op.Client.InlayHints(ctx, op.URI, rng)
		if err != nil {
			return out, err
		}
		byLine := map[int][]api.InlayHint{}
		for _, h := range hs {
			line, col := m.Place(op.Lines, h.Position)
			if line < start || line > end {
				continue
			}
			label := strings.TrimSpace(hintLabel(h.Label))
			kind := ""
			if h.Kind != nil {
				kind = strings.ToLower(h.Kind.String())
			}
			ih := api.InlayHint{Line: line, Character: col, Label: label, Kind: kind}
			out.Hints = append(out.Hints, ih)
			// As written into the line: between « and », with the
			// server's padding outside.
			ih.Label = "«" + label + "»"
			if h.PaddingLeft != nil && *h.PaddingLeft {
				ih.Label = " " + ih.Label
			}
			if h.PaddingRight != nil && *h.PaddingRight {
				ih.Label += " "
			}
			byLine[line] = append(byLine[line], ih)
		}
		slices.SortStableFunc(out.Hints, func(a, b api.InlayHint) int { return (a.Line-b.Line)*1_000_000 + a.Character - b.Character })
		var b strings.Builder
		for l := start; l <= end; l++ {
			fmt.Fprintf(&b, "%d| %s\n", l, annotate(op.Lines[l-1], byLine[l]))
		}
		out.Text = b.String()
		if len(out.Hints) == 0 {
			out.Note = api.JoinNotes(out.Note, "the server gave no hints for these lines")
		}
		return out, nil
	})
}

// hintLabel is a hint's label text.
func hintLabel(l protocol.InlayHintLabel) string {
	if s, ok := l.AsString(); ok {
		return s
	}
	parts, _ := l.AsInlayHintLabelPartSlice()
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Value)
	}
	return b.String()
}

// annotate writes hints (1-based columns, in code points, their labels
// as they are to be written) into a line.
func annotate(line string, hints []api.InlayHint) string {
	slices.SortStableFunc(hints, func(a, b api.InlayHint) int { return a.Character - b.Character })
	var b strings.Builder
	col := 1
	rest := line
	for _, h := range hints {
		for col < h.Character && rest != "" {
			r, size := utf8.DecodeRuneInString(rest)
			b.WriteRune(r)
			rest = rest[size:]
			col++
		}
		b.WriteString(h.Label)
	}
	b.WriteString(rest)
	return b.String()
}

// TypeHierarchy returns the supertypes or subtypes of the type at a
// position.
func (f *Features) TypeHierarchy(ctx context.Context, p api.TypeHierarchyParams) (api.TypeHierarchyResult, error) {
	return bounded(f, ctx, api.MethodTypeHierarchy, func(ctx context.Context) (api.TypeHierarchyResult, error) {
		out := api.TypeHierarchyResult{Types: []api.TypeLocation{}}
		if p.Direction != api.DirectionSupertypes && p.Direction != api.DirectionSubtypes {
			return out, api.InvalidParams("direction must be %q or %q, not %q", api.DirectionSupertypes, api.DirectionSubtypes, p.Direction)
		}
		op, pos, note, err := f.at(ctx, p.PositionParams, protocol.TypeHierarchyPrepareRequest.Method())
		if err != nil {
			return out, err
		}
		defer op.Release()
		out.Note = note
		items, err := op.Client.PrepareTypeHierarchy(ctx, op.URI, pos)
		if err != nil {
			return out, err
		}
		if len(items) == 0 {
			line, col := op.Client.Mapper().Place(op.Lines, pos)
			out.Note = api.JoinNotes(out.Note, fmt.Sprintf("no type at %s:%d:%d", op.File, line, col))
			return out, nil
		}
		var names []string
		seen := map[api.Location]bool{}
		mp := op.Client.Mapper()
		for _, it := range items {
			names = append(names, it.Name)
			next := (*client.Client).Supertypes
			if p.Direction == api.DirectionSubtypes {
				next = (*client.Client).Subtypes
			}
			related, err := next(op.Client, ctx, it)
			if err != nil {
				return out, err
			}
			for _, r := range related {
				path, err := r.URI.Path()
				if err != nil {
					continue
				}
				lines := f.linesOf(op.Client, r.URI)
				sl, sc := mp.Place(lines, r.SelectionRange.Start)
				el, ec := mp.Place(lines, r.SelectionRange.End)
				loc := api.Location{File: f.core.Rel(path), Line: sl, Character: sc, EndLine: el, EndCharacter: ec, Source: sourceLine(lines, sl)}
				if seen[loc] {
					continue
				}
				seen[loc] = true
				detail := ""
				if r.Detail != nil {
					detail = *r.Detail
				}
				out.Types = append(out.Types, api.TypeLocation{Name: r.Name, Kind: kindName(r.Kind), Detail: detail, Location: loc})
			}
		}
		out.Type = strings.Join(names, ", ")
		return out, nil
	})
}

// Completion limits.
const (
	defaultCompletions = 20
	maxCompletions     = 100
	// resolveParallel bounds the resolves in flight for one answer.
	resolveParallel = 4
)

// Completion returns the completions at a position in the server's order,
// those whose label starts with the prefix (case aside) when one is given,
// at most Limit, with their documentation when Resolve asks for it.
func (f *Features) Completion(ctx context.Context, p api.CompletionParams) (api.CompletionResult, error) {
	return bounded(f, ctx, api.MethodCompletion, func(ctx context.Context) (api.CompletionResult, error) {
		out := api.CompletionResult{Items: []api.CompletionItem{}}
		limit := p.Limit
		switch {
		case limit < 0 || limit > maxCompletions:
			return out, api.InvalidParams("limit must be 1 to %d", maxCompletions)
		case limit == 0:
			limit = defaultCompletions
		}
		op, pos, note, err := f.at(ctx, p.PositionParams, protocol.CompletionRequest.Method())
		if err != nil {
			return out, err
		}
		defer op.Release()
		out.Note = note
		items, incomplete, err := op.Client.Completion(ctx, op.URI, pos)
		if err != nil {
			return out, err
		}
		out.Incomplete = incomplete
		// Indices, not items: a server sends a thousand and more (tsserver),
		// each a large struct.
		var at []int
		prefix := strings.ToLower(p.Prefix)
		for i, it := range items {
			filter := it.Label
			if it.FilterText != nil {
				filter = *it.FilterText
			}
			if prefix == "" || strings.HasPrefix(strings.ToLower(filter), prefix) || strings.HasPrefix(strings.ToLower(it.Label), prefix) {
				at = append(at, i)
			}
		}
		// The server's order: its sort text, then its list's order.
		slices.SortStableFunc(at, func(a, b int) int { return strings.Compare(sortText(&items[a]), sortText(&items[b])) })
		out.Total = len(at)
		kept := make([]protocol.CompletionItem, min(len(at), limit))
		for i := range kept {
			kept[i] = items[at[i]]
		}
		if p.Resolve {
			pl := pool.New().WithMaxGoroutines(resolveParallel)
			for i := range kept {
				pl.Go(func() {
					if r, err := op.Client.ResolveCompletion(ctx, kept[i]); err == nil {
						kept[i] = r
					}
				})
			}
			pl.Wait()
		}
		for _, it := range kept {
			// clangd starts a label with a space or a bullet (an
			// include it would insert).
			ci := api.CompletionItem{Label: strings.TrimLeft(it.Label, " •")}
			if it.Kind != nil {
				ci.Kind = strings.ToLower(it.Kind.String())
			}
			if it.Detail != nil {
				ci.Detail = *it.Detail
			}
			if ci.Detail == "" && it.LabelDetails != nil {
				ci.Detail = strings.TrimSpace(deref(it.LabelDetails.Detail) + " " + deref(it.LabelDetails.Description))
			}
			if ins := insertText(it); ins != ci.Label {
				ci.Insert = ins
			}
			if p.Resolve {
				ci.Documentation = markup(it.Documentation)
			}
			ci.Deprecated = deprecated(it)
			out.Items = append(out.Items, ci)
		}
		return out, nil
	})
}

func sortText(it *protocol.CompletionItem) string {
	if it.SortText != nil {
		return *it.SortText
	}
	return it.Label
}

// insertText is what accepting the item inserts.
func insertText(it protocol.CompletionItem) string {
	if te, ok := it.TextEdit.AsTextEdit(); ok {
		return te.NewText
	}
	if ir, ok := it.TextEdit.AsInsertReplaceEdit(); ok {
		return ir.NewText
	}
	if it.InsertText != nil {
		return *it.InsertText
	}
	return it.Label
}

// deprecated reports whether a completion is marked deprecated, by its
// tags or by the older property servers still send.
func deprecated(it protocol.CompletionItem) bool {
	//lint:ignore SA1019 Deprecated is deprecated, but servers still send it.
	return (it.Deprecated != nil && *it.Deprecated) || slices.Contains(it.Tags, protocol.CompletionItemTagDeprecated)
}
