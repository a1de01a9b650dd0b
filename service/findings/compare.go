package findings

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/lspkit/lspkit/service/api"
)

// Moved maps a file's line before a change to its line after it (both
// 1-based), or 0 where the change removed or rewrote the line; nil for a
// file the change left alone (every line stays where it was).
type Moved func(file string) []int

// Compare returns the findings of after that before does not have
// (introduced) and those of before that after does not (fixed). Two
// findings are the same when their file, server, code and message are:
// the line is not part of it, since edits move lines. Of several alike,
// those on the line the change moved an old one to pair first, then the
// rest in order of their lines — so that of two "undefined: x", the one
// that was there stays old and the one the change added is the new one.
func Compare(before, after []api.Diagnostic, moved Moved) (introduced, fixed []api.Diagnostic) {
	type group struct{ before, after []api.Diagnostic }
	groups := map[string]*group{}
	var order []string
	add := func(d api.Diagnostic, isAfter bool) {
		k := d.File + "\x00" + d.Server + "\x00" + fmt.Sprint(d.Code) + "\x00" + d.Message
		g := groups[k]
		if g == nil {
			g = &group{}
			groups[k] = g
			order = append(order, k)
		}
		if isAfter {
			g.after = append(g.after, d)
		} else {
			g.before = append(g.before, d)
		}
	}
	for _, d := range before {
		add(d, false)
	}
	for _, d := range after {
		add(d, true)
	}
	introduced, fixed = []api.Diagnostic{}, []api.Diagnostic{}
	for _, k := range order {
		g := groups[k]
		lines := map[*api.Diagnostic]int{} // an old finding's line after the change
		for i := range g.before {
			d := &g.before[i]
			lines[d] = d.Line
			if moved != nil {
				if m := moved(d.File); m != nil {
					lines[d] = 0
					if d.Line >= 1 && d.Line <= len(m) {
						lines[d] = m[d.Line-1]
					}
				}
			}
		}
		pairedBefore := make([]bool, len(g.before))
		pairedAfter := make([]bool, len(g.after))
		// Same place first.
		for j, a := range g.after {
			for i := range g.before {
				if !pairedBefore[i] && lines[&g.before[i]] == a.Line && a.Line > 0 {
					pairedBefore[i], pairedAfter[j] = true, true
					break
				}
			}
		}
		// Then the rest, each old finding with the nearest new one: an old
		// finding whose line the change rewrote stands near where it was.
		for i := range g.before {
			if pairedBefore[i] {
				continue
			}
			at := lines[&g.before[i]]
			if at == 0 {
				at = g.before[i].Line
			}
			best := -1
			for j, a := range g.after {
				if !pairedAfter[j] && (best < 0 || abs(a.Line-at) < abs(g.after[best].Line-at)) {
					best = j
				}
			}
			if best < 0 {
				break
			}
			pairedBefore[i], pairedAfter[best] = true, true
		}
		for j, a := range g.after {
			if !pairedAfter[j] {
				introduced = append(introduced, a)
			}
		}
		for i, d := range g.before {
			if !pairedBefore[i] {
				fixed = append(fixed, d)
			}
		}
	}
	sortDiags(introduced)
	sortDiags(fixed)
	return introduced, fixed
}

func abs(n int) int { return max(n, -n) }

// sortDiags orders findings by file, line and column.
func sortDiags(ds []api.Diagnostic) {
	slices.SortStableFunc(ds, func(a, b api.Diagnostic) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Character, b.Character))
	})
}
