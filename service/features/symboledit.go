package features

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lspkit/lspkit/service/api"
)

// ReplaceSymbolBody replaces the body of the symbol p addresses — from its
// opening brace to its closing one, braces included (Go, TypeScript, C,
// …), or a Python definition's indented block — with p.Body, through
// ApplyEdits.
func (f *Features) ReplaceSymbolBody(ctx context.Context, p api.SymbolEditParams) (api.SymbolEditResult, error) {
	if strings.TrimSpace(p.Body) == "" {
		return api.SymbolEditResult{}, api.InvalidParams("body is required")
	}
	return f.editSymbol(ctx, p, func(s located) (int, int, string, error) {
		start, end, err := s.body()
		if err != nil {
			return 0, 0, "", err
		}
		body := p.Body
		if s.python() {
			body = strings.TrimRight(body, "\n")
			if !strings.HasPrefix(body, "\n") && s.text[start-1] != '\n' {
				body = "\n" + body
			}
		}
		return start, end, body, nil
	})
}

// InsertBeforeSymbol inserts p.Text on the lines before the symbol p
// addresses (before its doc comment and decorators), through ApplyEdits.
func (f *Features) InsertBeforeSymbol(ctx context.Context, p api.SymbolEditParams) (api.SymbolEditResult, error) {
	if strings.TrimSpace(p.Text) == "" {
		return api.SymbolEditResult{}, api.InvalidParams("text is required")
	}
	return f.editSymbol(ctx, p, func(s located) (int, int, string, error) {
		at := s.leadStart()
		return at, at, withNewline(p.Text), nil
	})
}

// InsertAfterSymbol inserts p.Text on the lines after the symbol p
// addresses, through ApplyEdits.
func (f *Features) InsertAfterSymbol(ctx context.Context, p api.SymbolEditParams) (api.SymbolEditResult, error) {
	if strings.TrimSpace(p.Text) == "" {
		return api.SymbolEditResult{}, api.InvalidParams("text is required")
	}
	return f.editSymbol(ctx, p, func(s located) (int, int, string, error) {
		at := s.lineAfter()
		text := withNewline(p.Text)
		if at == len(s.text) && at > 0 && s.text[at-1] != '\n' {
			text = "\n" + text
		}
		return at, at, text, nil
	})
}

// SafeDelete deletes the symbol p addresses (with its doc comment) unless
// references to it remain outside it: then nothing is written and the
// answer lists them. p.Force deletes it all the same, written whatever it
// breaks, and the answer says what that is.
func (f *Features) SafeDelete(ctx context.Context, p api.SymbolEditParams) (api.SymbolEditResult, error) {
	var refs []api.Location
	if p.Force {
		p.When = api.WhenAlways
	}
	res, err := f.editSymbol(ctx, p, func(s located) (int, int, string, error) {
		found, err := f.References(ctx, s.at)
		if err != nil {
			return 0, 0, "", fmt.Errorf("the references of %s: %w", s.sym.Name, err)
		}
		for _, l := range found.Locations {
			if l.File == s.file && s.contains(l.Line, l.Character) {
				continue // the declaration itself, or its own uses of itself
			}
			refs = append(refs, l)
		}
		if len(refs) > 0 && !p.Force {
			return 0, 0, "", errReferenced
		}
		start, end := s.leadStart(), s.lineAfter()
		// One blank line between what was before and what follows, not two.
		if start > 0 && end < len(s.text) && lineBlank(s.text, start-1) && lineBlankAt(s.text, end) {
			end = nextLine(s.text, end)
		}
		return start, end, "", nil
	})
	res.References = refs
	if err == errReferenced {
		res.Reason = fmt.Sprintf("%d %s to %s remain%s; nothing was written (force deletes it all the same)", len(refs), api.Plural(len(refs), "reference", "references"), res.Symbol, map[bool]string{true: "s", false: ""}[len(refs) == 1])
		return res, nil
	}
	return res, err
}

// errReferenced stops a safe delete of a symbol that is still used.
var errReferenced = fmt.Errorf("the symbol is still referenced")

// editSymbol locates the symbol p addresses, has edit say which bytes of
// its file to replace with what, and applies that through ApplyEdits,
// with the file's text as the base.
func (f *Features) editSymbol(ctx context.Context, p api.SymbolEditParams, edit func(located) (start, end int, text string, err error)) (api.SymbolEditResult, error) {
	out := api.SymbolEditResult{ApplyEditsResult: api.ApplyEditsResult{Files: []string{}, Introduced: []api.Diagnostic{}, Fixed: []api.Diagnostic{}}}
	s, err := f.symbolAt(ctx, p.PositionParams)
	if err != nil {
		return out, err
	}
	out.Symbol = fmt.Sprintf("%s %s (%s:%d-%d)", s.sym.Kind, s.sym.Name, s.file, s.sym.Range.StartLine, s.sym.Range.EndLine)
	start, end, text, err := edit(s)
	if err == errReferenced {
		return out, err
	}
	if err != nil {
		return out, api.InvalidParams("%s: %v", out.Symbol, err)
	}
	newText := s.text[:start] + text + s.text[end:]
	res, err := f.ApplyEdits(ctx, api.ApplyEditsParams{When: p.When, Edits: []api.FileEdit{{File: s.file, Text: &newText, Base: hashOf(s.text)}}})
	out.ApplyEditsResult = res
	return out, err
}

// located is a symbol found for an edit, in its file's text.
type located struct {
	file string // root-relative
	text string
	sym  api.Symbol
	at   api.PositionParams // where its name is
}

// symbolAt finds the innermost symbol of the file's document symbols at the
// position p addresses (file and line alone: the innermost one holding
// the line).
func (f *Features) symbolAt(ctx context.Context, p api.PositionParams) (located, error) {
	lineOnly := p.Symbol == "" && p.Character == 0 && p.Line > 0
	if !lineOnly {
		var err error
		if p, _, err = f.address(ctx, p); err != nil {
			return located{}, err
		}
	}
	if p.File == "" {
		return located{}, api.InvalidParams("give symbol (a name or dotted path), or file and line")
	}
	abs, err := f.core.Resolve(p.File)
	if err != nil {
		return located{}, err
	}
	file := f.core.Rel(abs)
	syms, err := f.documentSymbols(ctx, api.FileParams{File: file})
	if err != nil {
		return located{}, err
	}
	var best *api.Symbol
	var walk func([]api.Symbol)
	walk = func(list []api.Symbol) {
		for i := range list {
			s := &list[i]
			in := s.Range.StartLine <= p.Line && p.Line <= s.Range.EndLine
			if !lineOnly {
				in = within(s.Range, p.Line, p.Character)
			}
			if in {
				best = s
				walk(s.Children)
			}
		}
	}
	walk(syms.Symbols)
	if best == nil {
		return located{}, api.InvalidParams("%s:%d: no symbol of the file's (as its server lists them) is there", file, p.Line)
	}
	text, err := f.core.ReadFile(file)
	if err != nil {
		return located{}, err
	}
	at := p
	at.File = file
	return located{file: file, text: text, sym: *best, at: at}, nil
}

// within reports whether a 1-based line and character are in r.
func within(r api.Range, line, char int) bool {
	if line < r.StartLine || line > r.EndLine {
		return false
	}
	if line == r.StartLine && char < r.StartChar {
		return false
	}
	return line != r.EndLine || char <= r.EndChar
}

func (s located) contains(line, char int) bool { return within(s.sym.Range, line, char) }

// python reports whether the file is Python's (an indented body).
func (s located) python() bool {
	ext := filepath.Ext(s.file)
	return ext == ".py" || ext == ".pyi"
}

// span is the symbol's range as byte offsets of its text.
func (s located) span() (int, int, error) {
	starts := lineStarts(s.text)
	r := s.sym.Range
	start, err := offsetOf(s.text, starts, r.StartLine, r.StartChar)
	if err != nil {
		return 0, 0, err
	}
	end, err := offsetOf(s.text, starts, r.EndLine, r.EndChar)
	return start, end, err
}

// body is the byte range of the symbol's body: its last top-level
// brace-delimited group when that ends the symbol, or for Python the
// block after the colon that ends its header.
func (s located) body() (int, int, error) {
	start, end, err := s.span()
	if err != nil {
		return 0, 0, err
	}
	if s.python() {
		colon := scanCode(s.text[start:end], true)
		if colon < 0 {
			return 0, 0, fmt.Errorf("no header ending in ':' to find its block after")
		}
		at := start + colon + 1
		// The block: from the line after the header, unless the body is
		// on the header's line.
		if nl := strings.IndexByte(s.text[at:end], '\n'); nl >= 0 && strings.TrimSpace(s.text[at:at+nl]) == "" {
			at += nl + 1
		}
		return at, end, nil
	}
	open := scanCode(s.text[start:end], false)
	if open < 0 {
		return 0, 0, fmt.Errorf("no body in braces ends it")
	}
	return start + open, end, nil
}

// scanCode reads code, skipping strings and comments. For Python it
// returns the index of the first ':' outside brackets (a header's end);
// otherwise that of the '{' opening the last top-level brace group, when
// that group closes at the code's end (trailing spaces and ';' aside). -1
// when there is none.
func scanCode(code string, python bool) int {
	last := len(strings.TrimRight(code, " \t\r\n;")) - 1
	depth, open := 0, -1
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case python && c == '#', !python && strings.HasPrefix(code[i:], "//"):
			if nl := strings.IndexByte(code[i:], '\n'); nl >= 0 {
				i += nl
			} else {
				return -1
			}
		case !python && strings.HasPrefix(code[i:], "/*"):
			if e := strings.Index(code[i+2:], "*/"); e >= 0 {
				i += e + 3
			} else {
				return -1
			}
		case python && (strings.HasPrefix(code[i:], `"""`) || strings.HasPrefix(code[i:], "'''")):
			if e := strings.Index(code[i+3:], code[i:i+3]); e >= 0 {
				i += e + 5
			} else {
				return -1
			}
		case c == '"' || c == '\'' || c == '`':
			for i++; i < len(code) && code[i] != c; i++ {
				if code[i] == '\\' && c != '`' {
					i++
				}
			}
		case c == '(' || c == '[' || c == '{':
			if depth == 0 && c == '{' {
				open = i
			}
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if !python && depth == 0 && c == '}' && i == last {
				return open
			}
		case python && c == ':' && depth == 0:
			return i
		}
	}
	return -1
}

// leadStart is where the lines of the symbol begin, with the comments and
// decorators right above it: the start of the first such line.
func (s located) leadStart() int {
	start, _, err := s.span()
	if err != nil {
		return 0
	}
	at := strings.LastIndexByte(s.text[:start], '\n') + 1
	for at > 0 {
		prev := strings.LastIndexByte(s.text[:at-1], '\n') + 1
		line := strings.TrimSpace(s.text[prev : at-1])
		lead := strings.HasPrefix(line, "//") || strings.HasPrefix(line, "/*") || strings.HasPrefix(line, "*") || strings.HasPrefix(line, "@") ||
			s.python() && strings.HasPrefix(line, "#")
		if !lead || line == "" {
			break
		}
		at = prev
	}
	return at
}

// lineAfter is the start of the line after the symbol's last.
func (s located) lineAfter() int {
	_, end, err := s.span()
	if err != nil {
		return len(s.text)
	}
	return nextLine(s.text, end)
}

// nextLine is the start of the line after the one at offset at (the
// text's end on its last line).
func nextLine(text string, at int) int {
	if nl := strings.IndexByte(text[at:], '\n'); nl >= 0 {
		return at + nl + 1
	}
	return len(text)
}

// lineBlank reports whether the line holding offset at is blank.
func lineBlank(text string, at int) bool {
	start := strings.LastIndexByte(text[:at], '\n') + 1
	return lineBlankAt(text, start)
}

// lineBlankAt reports whether the line starting at offset start is blank.
func lineBlankAt(text string, start int) bool {
	end := nextLine(text, start)
	return strings.TrimSpace(text[start:end]) == ""
}

// withNewline is text ending in a newline.
func withNewline(text string) string {
	if strings.HasSuffix(text, "\n") {
		return text
	}
	return text + "\n"
}
