package mcpserver

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/service/api"
)

// The answers' text comes in two forms (Options.Format): compact, for the
// model — places grouped by file, each path written once, source lines
// only where one place is the answer — and long, one "file:line:col:
// source" line per place, for programs that parse it. Both are complete:
// every place's file, line and column can be read back from either.
const (
	FormatCompact = "compact"
	FormatLong    = "long"
)

// place is a place an answer lists: where, what the compact form writes
// after it (label: a name, a kind), and what the long form writes (full:
// the kind and name; source: its line).
type place struct {
	file        string
	line, char  int
	label, full string
	source      string
}

// writePlaces writes places grouped by file, in the order their files
// first appear: "file: line:col label; line:col label" on one line per
// file. In the long form — or when one place is the whole answer — a line
// per place: "file:line:col: full: source".
func writePlaces(b *strings.Builder, places []place, long bool) {
	if long || len(places) == 1 {
		for _, p := range places {
			fmt.Fprintf(b, "%s:%d:%d:", p.file, p.line, p.char)
			for i, part := range []string{p.full, p.source} {
				if part == "" {
					continue
				}
				if i == 1 && p.full != "" {
					b.WriteString(":")
				}
				b.WriteString(" " + part)
			}
			b.WriteString("\n")
		}
		return
	}
	var order []string
	byFile := map[string][]place{}
	for _, p := range places {
		if _, seen := byFile[p.file]; !seen {
			order = append(order, p.file)
		}
		byFile[p.file] = append(byFile[p.file], p)
	}
	for _, f := range order {
		b.WriteString(f + ":")
		for i, p := range byFile[f] {
			if i > 0 && p.label != "" {
				b.WriteString(";")
			}
			fmt.Fprintf(b, " %d:%d", p.line, p.char)
			if p.label != "" {
				b.WriteString(" " + p.label)
			}
		}
		b.WriteString("\n")
	}
}

// writeFindings writes findings grouped by file: the path once, then a
// line each, "line:col severity: message (code) [server]" (a file's one
// finding on the path's line, "file:line:col severity: …"); long, the
// path on every line.
func writeFindings(b *strings.Builder, ds []api.Diagnostic, long bool) {
	last := ""
	for i, d := range ds {
		alone := (i == 0 || ds[i-1].File != d.File) && (i == len(ds)-1 || ds[i+1].File != d.File)
		switch {
		case long:
			fmt.Fprintf(b, "%s:%d:%d: ", d.File, d.Line, d.Character)
		case alone:
			// A file's one finding: its line is its own.
			fmt.Fprintf(b, "%s:%d:%d ", d.File, d.Line, d.Character)
			last = d.File
		default:
			if d.File != last {
				b.WriteString(d.File + ":\n")
				last = d.File
			}
			fmt.Fprintf(b, "  %d:%d ", d.Line, d.Character)
		}
		fmt.Fprintf(b, "%s: %s", d.Severity, api.FeedbackMessage(d.Message))
		if d.Code != nil {
			fmt.Fprintf(b, " (%v)", d.Code)
		}
		fmt.Fprintf(b, " [%s]\n", d.Server)
	}
}

// shortKinds are the compact form's names of the commonest symbol kinds.
var shortKinds = map[string]string{"constant": "const", "variable": "var", "property": "prop", "function": "func", "parameter": "param", "enumMember": "enum member"}

// shortKind is kind in the compact form.
func shortKind(kind string) string {
	if k, ok := shortKinds[kind]; ok {
		return k
	}
	return kind
}

// writeOutline writes a tree of symbols compactly, in the order of their
// lines: a symbol with children on a line of its own ("kind name
// line:col-endLine"), its children indented one space below; a run of
// childless siblings of one kind on one line ("kind: name line:col, name
// line:col").
func writeOutline(b *strings.Builder, ss []api.Symbol, indent string) {
	ss = slices.Clone(ss)
	slices.SortStableFunc(ss, func(x, y api.Symbol) int {
		return cmp.Or(cmp.Compare(x.Range.StartLine, y.Range.StartLine), cmp.Compare(x.Range.StartChar, y.Range.StartChar))
	})
	named := func(s api.Symbol) string {
		if s.Name == s.Kind { // a constructor named constructor
			return s.Name
		}
		return shortKind(s.Kind) + " " + s.Name
	}
	at := func(s api.Symbol) string {
		if s.Range.EndLine != s.Range.StartLine {
			return fmt.Sprintf("%d:%d-%d", s.Range.StartLine, s.Range.StartChar, s.Range.EndLine)
		}
		return fmt.Sprintf("%d:%d", s.Range.StartLine, s.Range.StartChar)
	}
	for i := 0; i < len(ss); {
		s := ss[i]
		if len(s.Children) > 0 {
			fmt.Fprintf(b, "%s%s %s\n", indent, named(s), at(s))
			writeOutline(b, s.Children, indent+" ")
			i++
			continue
		}
		j := i
		for j < len(ss) && ss[j].Kind == s.Kind && len(ss[j].Children) == 0 {
			j++
		}
		if j-i == 1 {
			fmt.Fprintf(b, "%s%s %s\n", indent, named(s), at(s))
		} else {
			fmt.Fprintf(b, "%s%s:", indent, shortKind(s.Kind))
			for k, t := range ss[i:j] {
				if k > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(b, " %s %s", t.Name, at(t))
			}
			b.WriteString("\n")
		}
		i = j
	}
}

// writeSymbolsByFile writes workspace symbols grouped by file, in the
// order their files first appear: "file: kind: name line:col, name
// line:col; kind: …", each kind's names in the order of their lines.
func writeSymbolsByFile(b *strings.Builder, syms []api.WorkspaceSymbol) {
	var order []string
	byFile := map[string][]api.WorkspaceSymbol{}
	for _, s := range syms {
		if _, seen := byFile[s.File]; !seen {
			order = append(order, s.File)
		}
		byFile[s.File] = append(byFile[s.File], s)
	}
	for _, f := range order {
		ss := byFile[f]
		slices.SortStableFunc(ss, func(x, y api.WorkspaceSymbol) int {
			return cmp.Or(cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Range.StartLine, y.Range.StartLine), cmp.Compare(x.Range.StartChar, y.Range.StartChar))
		})
		b.WriteString(f + ":")
		for i, s := range ss {
			switch {
			case i == 0:
				fmt.Fprintf(b, " %s:", shortKind(s.Kind))
			case s.Kind != ss[i-1].Kind:
				fmt.Fprintf(b, "; %s:", shortKind(s.Kind))
			default:
				b.WriteString(",")
			}
			fmt.Fprintf(b, " %s %d:%d", s.Name, s.Range.StartLine, s.Range.StartChar)
		}
		b.WriteString("\n")
	}
}
