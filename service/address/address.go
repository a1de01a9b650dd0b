// Package address finds the symbols an agent means by a name or a dotted
// path of containers ("Router.Handle", "click.core.Command.invoke")
// among the symbols language servers declare, and the names nearest to one
// that matches nothing. It holds no I/O: the orchestrator gives it the
// servers' document or workspace symbols and resolves what it picks.
package address

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

// Symbol is a declared symbol: its dotted path (containers, then its
// name), its kind and the place of its name.
type Symbol struct {
	Path      []string
	Kind      string
	File      string // slash-separated, relative to the root
	Line      int    // 1-based
	Character int    // 1-based
}

// Name is the symbol's own name: its path's last segment.
func (s Symbol) Name() string {
	if len(s.Path) == 0 {
		return ""
	}
	return s.Path[len(s.Path)-1]
}

// Dotted is the symbol's path joined with dots.
func (s Symbol) Dotted() string { return strings.Join(s.Path, ".") }

// Segments splits a name as servers and agents write it into path
// segments: "(*Mux).Handle" (gopls's method names), "chi.Mux.Handle",
// "ns::Foo::bar", "Foo#bar", "Foo.bar()" all split at their separators,
// with receiver punctuation and call parentheses dropped.
func Segments(name string) []string {
	name = strings.TrimSuffix(strings.TrimSpace(name), "()")
	parts := strings.FieldsFunc(name, func(r rune) bool {
		return r == '.' || r == ':' || r == '#' || r == '/' || r == '\\'
	})
	out := parts[:0]
	for _, p := range parts {
		p = strings.Trim(p, "()*& ")
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// FileSegments is a file's path as segments a dotted path may start with:
// its directories and its name without extension ("click/core.py" →
// click, core).
func FileSegments(file string) []string {
	file = strings.TrimSuffix(file, path.Ext(file))
	return strings.FieldsFunc(file, func(r rune) bool { return r == '/' })
}

// Match returns the symbols that query (a name or a dotted path) and kind
// ("" for any) select, best first: the symbol's name must equal the
// query's last segment (matched without regard to case only when nothing
// matches with it), and the query's other segments must name its
// containers — its immediate container first — or, failing every symbol
// that way, appear in order among its containers and its file's path.
// Symbols at the same place are kept once.
func Match(query, kind string, syms []Symbol) []Symbol {
	q := Segments(query)
	if len(q) == 0 {
		return nil
	}
	for _, fold := range []bool{false, true} {
		var named []Symbol
		for _, s := range syms {
			if same(s.Name(), q[len(q)-1], fold) {
				named = append(named, s)
			}
		}
		if kind != "" {
			named = ofKind(strings.ToLower(kind), named)
		}
		if len(named) == 0 {
			continue
		}
		if len(q) == 1 {
			return unique(named)
		}
		var strict, loose []Symbol
		for _, s := range named {
			containers := s.Path[:len(s.Path)-1]
			switch {
			case len(containers) > 0 && same(containers[len(containers)-1], q[len(q)-2], fold) && subsequence(q[:len(q)-2], append(FileSegments(s.File), containers[:len(containers)-1]...), fold):
				strict = append(strict, s)
			case subsequence(q[:len(q)-1], append(FileSegments(s.File), containers...), fold):
				loose = append(loose, s)
			}
		}
		if len(strict) > 0 {
			return unique(strict)
		}
		if len(loose) > 0 {
			return unique(loose)
		}
	}
	return nil
}

// ofKind keeps the symbols of kind; when there are none, those of a kind
// an agent may mean by it (a Go struct for a class, a method for a
// function).
func ofKind(kind string, syms []Symbol) []Symbol {
	var exact, alike []Symbol
	groups := [][]string{{"class", "struct", "type", "interface", "enum"}, {"function", "method", "constructor"}, {"variable", "constant", "field", "property"}}
	for _, s := range syms {
		have := strings.ToLower(s.Kind)
		if have == kind {
			exact = append(exact, s)
			continue
		}
		for _, g := range groups {
			if slices.Contains(g, kind) && slices.Contains(g, have) {
				alike = append(alike, s)
			}
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return alike
}

func same(a, b string, fold bool) bool {
	if fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// subsequence reports whether want's segments appear in have in order.
func subsequence(want, have []string, fold bool) bool {
	i := 0
	for _, h := range have {
		if i < len(want) && same(h, want[i], fold) {
			i++
		}
	}
	return i == len(want)
}

// unique keeps the first symbol at each place, in order.
func unique(in []Symbol) []Symbol {
	type place struct {
		file      string
		line, col int
	}
	seen := map[place]bool{}
	out := in[:0:0]
	for _, s := range in {
		p := place{s.File, s.Line, s.Character}
		if !seen[p] {
			seen[p] = true
			out = append(out, s)
		}
	}
	return out
}

// Nearest returns up to n of names closest to name: those that contain it
// or that it contains (case aside; of 3 characters or more), and those
// within a few edits (a third of its length, at least one), closest
// first, each once.
func Nearest(name string, names []string, n int) []string {
	type scored struct {
		name  string
		score int
	}
	lower := strings.ToLower(name)
	var out []scored
	seen := map[string]bool{}
	for _, c := range names {
		if seen[c] || c == "" {
			continue
		}
		seen[c] = true
		lc := strings.ToLower(c)
		d := distance(lower, lc)
		short := min(len([]rune(lower)), len([]rune(lc))) < 3
		switch {
		case !short && (strings.Contains(lc, lower) || strings.Contains(lower, lc)):
			out = append(out, scored{c, min(d, 1)})
		case d <= max(1, len([]rune(name))/3):
			out = append(out, scored{c, d})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(len(a.name), len(b.name)), strings.Compare(a.name, b.name))
	})
	var names2 []string
	for _, s := range out[:min(n, len(out))] {
		names2 = append(names2, s.name)
	}
	return names2
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
