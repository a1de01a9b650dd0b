package features

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/address"
	"github.com/lspkit/lspkit/service/api"
)

// Bounds of the answers that name candidates or near names.
const (
	maxCandidates = 10
	maxNearest    = 5
	// nearLines is how far from the line given a symbol is looked for
	// when it is not on that line.
	nearLines = 5
)

// address turns a position given as a symbol without a line (see
// api.PositionParams) into the file, line and column of the symbol's
// name, with a note saying where it resolved. Any other position is
// returned as it is.
func (f *Features) address(ctx context.Context, p api.PositionParams) (api.PositionParams, string, error) {
	if p.Line != 0 || p.Symbol == "" {
		return p, "", nil
	}
	if p.Character != 0 {
		return p, "", api.InvalidParams("character is given without a line: give line too, or the symbol alone")
	}
	if len(address.Segments(p.Symbol)) == 0 {
		return p, "", api.InvalidParams("symbol %q names nothing", p.Symbol)
	}
	var (
		syms  []address.Symbol
		note  string
		err   error
		where string
	)
	if p.File != "" {
		syms, note, err = f.fileSymbols(ctx, p.File)
		where = p.File
	} else {
		syms, note, err = f.workspaceMatches(ctx, p.Symbol)
		where = "the workspace"
	}
	if err != nil {
		return p, "", err
	}
	matches := definitionsOnly(address.Match(p.Symbol, p.Kind, syms))
	of := ""
	if p.Kind != "" {
		of = " of kind " + p.Kind
	}
	switch len(matches) {
	case 0:
		last := address.Segments(p.Symbol)
		if p.File == "" {
			// The servers matched the name as typed: for the names
			// near it, ask for those that start as it does.
			name := []rune(last[len(last)-1])
			if more, _, err := f.workspaceMatches(ctx, string(name[:max(2, len(name)/2)])); err == nil {
				syms = append(syms, more...)
			}
		}
		var bare []string
		for _, s := range syms {
			bare = append(bare, s.Name())
		}
		near := address.Nearest(last[len(last)-1], bare, maxNearest)
		msg := fmt.Sprintf("no symbol %q%s is declared in %s", p.Symbol, of, where)
		if len(near) > 0 {
			msg += "; nearest names: " + strings.Join(near, ", ")
		}
		if p.File != "" {
			if lines := f.occurrences(p.File, last[len(last)-1]); lines != "" {
				msg += "; it occurs on " + lines + ": pass line"
			}
		}
		return p, "", unresolved(msg, api.Unresolved{Nearest: near})
	case 1:
	default:
		var cands []api.Candidate
		var b strings.Builder
		fmt.Fprintf(&b, "symbol %q%s is ambiguous in %s: %d matches; pass file, kind, line or a dotted path (Type.method):", p.Symbol, of, where, len(matches))
		for _, m := range matches[:min(len(matches), maxCandidates)] {
			cands = append(cands, api.Candidate{File: m.File, Line: m.Line, Character: m.Character, Kind: m.Kind, Path: m.Dotted()})
			fmt.Fprintf(&b, "\n  %s:%d:%d %s %s", m.File, m.Line, m.Character, m.Kind, m.Dotted())
		}
		if len(matches) > maxCandidates {
			fmt.Fprintf(&b, "\n  … and %d more", len(matches)-maxCandidates)
		}
		return p, "", unresolved(b.String(), api.Unresolved{Candidates: cands})
	}
	m := matches[0]
	p.File, p.Line, p.Character, p.Symbol, p.Occurrence = m.File, m.Line, m.Character, "", 0
	return p, api.JoinNotes(fmt.Sprintf("%s resolved to %s %s at %s:%d:%d", quoteName(m.Name()), m.Kind, m.Dotted(), m.File, m.Line, m.Character), note), nil
}

func quoteName(s string) string { return "`" + s + "`" }

// unresolved is the CodeUnresolved error with its data.
func unresolved(msg string, data api.Unresolved) error {
	e := api.Errorf(api.CodeUnresolved, "%s", msg)
	if raw, err := json.Marshal(data); err == nil {
		e.Data = raw
	}
	return e
}

// fileSymbols returns the symbols a file declares, each with its
// containers' path, from its servers' document symbols.
func (f *Features) fileSymbols(ctx context.Context, file string) ([]address.Symbol, string, error) {
	op, err := f.open(ctx, file, protocol.DocumentSymbolRequest.Method())
	if err != nil {
		return nil, "", err
	}
	defer op.Release()
	syms, err := op.Client.DocumentSymbols(ctx, op.URI)
	if err != nil {
		return nil, "", err
	}
	m := op.Client.Mapper()
	var out []address.Symbol
	var walk func([]client.Symbol, []string)
	walk = func(in []client.Symbol, containers []string) {
		for _, s := range in {
			path := append(append([]string{}, containers...), address.Segments(s.Container)...)
			path = append(path, address.Segments(s.Name)...)
			line, col := m.Place(op.Lines, s.SelectionRange.Start)
			if len(path) > len(containers) {
				out = append(out, address.Symbol{Path: path, Kind: kindName(s.Kind), File: op.File, Line: line, Character: col})
			}
			walk(s.Children, path)
		}
	}
	walk(syms, nil)
	return out, op.Note, nil
}

// workspaceMatches returns the workspace's symbols named as symbol's last
// segment says, each with its container's path, at its name.
func (f *Features) workspaceMatches(ctx context.Context, symbol string) ([]address.Symbol, string, error) {
	segs := address.Segments(symbol)
	named := func(name string) bool {
		n := address.Segments(name)
		return len(n) > 0 && strings.EqualFold(n[len(n)-1], segs[len(segs)-1])
	}
	res, err := f.workspaceSymbolsPlaced(ctx, api.QueryParams{Query: segs[len(segs)-1]}, named)
	if err != nil {
		return nil, "", err
	}
	var out []address.Symbol
	var files []string
	texts := map[string][]string{} // each file read once
	for _, ws := range res.Symbols {
		path := append(address.Segments(ws.Container), address.Segments(ws.Name)...)
		if len(path) == 0 {
			continue
		}
		sym := address.Symbol{Path: path, Kind: ws.Kind, File: ws.File, Line: ws.Range.StartLine, Character: ws.Range.StartChar}
		// Where its name is matters for the symbols of that name alone;
		// the others are names to suggest.
		if strings.EqualFold(path[len(path)-1], segs[len(segs)-1]) {
			lines, ok := texts[ws.File]
			if !ok {
				lines = f.fileLines(ws.File)
				texts[ws.File] = lines
			}
			sym.Line, sym.Character = nameAt(lines, path[len(path)-1], ws.Range)
			if !slices.Contains(files, ws.File) {
				files = append(files, ws.File)
			}
		}
		out = append(out, sym)
	}
	// A dotted path the workspace's symbols do not match is matched
	// against the containers the files' own symbols nest in: servers
	// name a workspace symbol's container differently (gopls: its
	// package path) or not at all (pyright).
	if len(segs) > 1 && len(files) <= maxDottedFiles && len(address.Match(symbol, "", out)) == 0 {
		var nested []address.Symbol
		for _, file := range files {
			syms, _, err := f.fileSymbols(ctx, file)
			if err != nil {
				return out, res.Note, nil
			}
			nested = append(nested, syms...)
		}
		out = append(nested, out...)
	}
	return out, res.Note, nil
}

// maxDottedFiles bounds the files whose symbols a dotted path is looked
// up in.
const maxDottedFiles = 10

// fileLines returns the lines of a file of the root (nil when it cannot
// be read).
func (f *Features) fileLines(file string) []string {
	text, err := f.core.ReadFile(file)
	if err != nil {
		return nil
	}
	return strings.Split(text, "\n")
}

// nameAt returns where name occurs as an identifier in lines at or after
// the start of rng and within it (a server's workspace symbol may span
// its whole declaration, decorators and keywords first); the range's
// start when it does not.
func nameAt(lines []string, name string, rng api.Range) (int, int) {
	last := min(max(rng.EndLine, rng.StartLine), rng.StartLine+10, len(lines))
	for l := rng.StartLine; l >= 1 && l <= last; l++ {
		text := lines[l-1]
		from := 0
		if l == rng.StartLine {
			from = runeOffset(text, rng.StartChar-1)
		}
		for _, i := range symbolOffsets(text, name) {
			if i >= from {
				return l, len([]rune(text[:i])) + 1
			}
		}
	}
	return rng.StartLine, rng.StartChar
}

// runeOffset is the byte offset of the n-th code point of s (its length
// past the end).
func runeOffset(s string, n int) int {
	for i := range s {
		if n <= 0 {
			return i
		}
		n--
	}
	return len(s)
}

// occurrences lists the lines of file where name occurs as an identifier
// ("lines 12, 40"), at most five, or "".
func (f *Features) occurrences(file, name string) string {
	lines := f.fileLines(file)
	var at []string
	n := 0
	for i, line := range lines {
		if len(symbolOffsets(line, name)) > 0 {
			n++
			if len(at) < 5 {
				at = append(at, fmt.Sprint(i+1))
			}
		}
	}
	switch {
	case n == 0:
		return ""
	case n == 1:
		return "line " + at[0]
	case n > len(at):
		return fmt.Sprintf("lines %s (and %d more)", strings.Join(at, ", "), n-len(at))
	}
	return "lines " + strings.Join(at, ", ")
}

// nearLine returns the line within nearLines of line where symbol occurs,
// nearest first, and a note; an error naming both when two are as near,
// or when none is.
func nearLine(op Held, p api.PositionParams) (int, string, error) {
	var found []int
	for d := 1; d <= nearLines && len(found) == 0; d++ {
		for _, l := range []int{p.Line - d, p.Line + d} {
			if l >= 1 && l <= len(op.Lines) && len(symbolOffsets(op.Lines[l-1], p.Symbol)) > 0 {
				found = append(found, l)
			}
		}
	}
	text := ""
	if p.Line <= len(op.Lines) {
		text = strings.TrimSpace(op.Lines[p.Line-1])
	}
	switch len(found) {
	case 0:
		return 0, "", api.InvalidParams("symbol %q does not occur on line %d of %s (%q) nor within %d lines of it", p.Symbol, p.Line, op.File, text, nearLines)
	case 2:
		return 0, "", unresolved(fmt.Sprintf("symbol %q is not on line %d of %s but on lines %d and %d, as near: pass the line", p.Symbol, p.Line, op.File, found[0], found[1]),
			api.Unresolved{Candidates: []api.Candidate{{File: op.File, Line: found[0]}, {File: op.File, Line: found[1]}}})
	}
	l := found[0]
	dir := "below"
	if l < p.Line {
		dir = "above"
	}
	return l, fmt.Sprintf("%q is not on line %d; used line %d (%d %s)", p.Symbol, p.Line, l, abs(l-p.Line), dir), nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// headerExts are the extensions of C and C++ headers.
var headerExts = []string{".h", ".hh", ".hpp", ".hxx", ".h++"}

// definitionsOnly collapses a symbol declared in a header and defined in a
// source file (C, C++: both files' symbols name it) into its definition:
// one symbol, not two candidates.
func definitionsOnly(ms []address.Symbol) []address.Symbol {
	if len(ms) < 2 {
		return ms
	}
	defined := map[string]bool{}
	for _, m := range ms {
		if !slices.Contains(headerExts, strings.ToLower(filepath.Ext(m.File))) {
			defined[m.Kind+" "+m.Dotted()] = true
		}
	}
	return slices.DeleteFunc(ms, func(m address.Symbol) bool {
		return defined[m.Kind+" "+m.Dotted()] && slices.Contains(headerExts, strings.ToLower(filepath.Ext(m.File)))
	})
}
