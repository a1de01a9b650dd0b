// Package textedit applies a language server's text edits to a file's text
// and renders the change as a unified diff. Edits are byte ranges of the
// old text; converting a server's positions into them is the caller's job
// (it knows the server's position encoding).
package textedit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// An Edit replaces the bytes [Start, End) of a text with New.
type Edit struct {
	Start, End int
	New        string
}

// Apply returns text with the edits made. Edits may come in any order; two
// that overlap are an error (the LSP forbids them), as is a range outside
// the text. Inserts at the same offset keep their order.
func Apply(text string, edits []Edit) (string, error) {
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b Edit) int { return cmp.Compare(a.Start, b.Start) })
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, e := range sorted {
		switch {
		case e.Start < 0 || e.End < e.Start || e.End > len(text):
			return "", fmt.Errorf("edit [%d, %d) is outside the text (%d bytes)", e.Start, e.End, len(text))
		case e.Start < at:
			return "", fmt.Errorf("edits overlap at byte %d", e.Start)
		}
		b.WriteString(text[at:e.Start])
		b.WriteString(e.New)
		at = e.End
	}
	b.WriteString(text[at:])
	return b.String(), nil
}

// contextLines is how many unchanged lines surround a hunk.
const contextLines = 3

// Unified returns the unified diff from old to new, with the file named
// oldName and newName in its header ("a/x.go", "b/x.go"), or "" when they
// are equal.
func Unified(oldName, newName, old, new string) string {
	if old == new {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	ops := diffLines(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	// Hunks: runs of changes with up to 2*contextLines equal lines between.
	for i := 0; i < len(ops); {
		if ops[i].kind == equal {
			i++
			continue
		}
		start := i
		end := i // one past the last change of the hunk
		for j := i; j < len(ops); j++ {
			if ops[j].kind != equal {
				end = j + 1
				continue
			}
			if ops[j].n > 2*contextLines || j == len(ops)-1 {
				break
			}
		}
		writeHunk(&out, ops, start, end)
		i = end
	}
	return out.String()
}

type opKind byte

const (
	equal opKind = iota
	del
	ins
)

// op is a run of n lines: equal ones at a[ai:] and b[bi:], deleted ones at
// a[ai:], inserted ones at b[bi:].
type op struct {
	kind   opKind
	ai, bi int
	n      int
	lines  []string
}

// writeHunk writes the hunk of ops[start:end] (changes and the equal runs
// between them) with its context.
func writeHunk(out *strings.Builder, ops []op, start, end int) {
	var body strings.Builder
	aStart, bStart := ops[start].ai, ops[start].bi
	aLen, bLen := 0, 0
	if start > 0 && ops[start-1].kind == equal {
		pre := ops[start-1]
		k := min(pre.n, contextLines)
		aStart, bStart = pre.ai+pre.n-k, pre.bi+pre.n-k
		for _, l := range pre.lines[pre.n-k:] {
			body.WriteString(" " + l)
		}
		aLen, bLen = k, k
	}
	for _, o := range ops[start:end] {
		prefix := map[opKind]string{equal: " ", del: "-", ins: "+"}[o.kind]
		for _, l := range o.lines {
			body.WriteString(prefix + l)
		}
		if o.kind != ins {
			aLen += o.n
		}
		if o.kind != del {
			bLen += o.n
		}
	}
	if end < len(ops) && ops[end].kind == equal {
		post := ops[end]
		k := min(post.n, contextLines)
		for _, l := range post.lines[:k] {
			body.WriteString(" " + l)
		}
		aLen += k
		bLen += k
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n%s", span(aStart, aLen), span(bStart, bLen), body.String())
}

// span is a hunk header's range: 1-based start and length (an empty range
// names the line before it).
func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits text into lines that keep their "\n"; a last line
// without one gets the "\ No newline at end of file" marker.
func splitLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}

// diffLines is Myers' O(ND) diff of a and b as runs of equal, deleted and
// inserted lines.
func diffLines(a, b []string) []op {
	// Common prefix and suffix first: most changes are small.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	push := func(kind opKind, ai, bi int, l string) {
		if n := len(ops); n > 0 && ops[n-1].kind == kind {
			ops[n-1].n++
			ops[n-1].lines = append(ops[n-1].lines, l)
			return
		}
		ops = append(ops, op{kind: kind, ai: ai, bi: bi, n: 1, lines: []string{l}})
	}
	for i := range pre {
		push(equal, i, i, a[i])
	}
	for _, e := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		switch e.kind {
		case equal:
			push(equal, pre+e.ai, pre+e.bi, a[pre+e.ai])
		case del:
			push(del, pre+e.ai, pre+e.bi, a[pre+e.ai])
		case ins:
			push(ins, pre+e.ai, pre+e.bi, b[pre+e.bi])
		}
	}
	for i := range suf {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		push(equal, ai, bi, a[ai])
	}
	return ops
}

// step is one line of an edit script.
type step struct {
	kind   opKind
	ai, bi int
}

// maxEditDistance bounds Myers' search: past it (a rewrite, not an edit)
// the script is every old line deleted and every new one inserted, which
// keeps time and memory linear.
const maxEditDistance = 1000

// myers returns the shortest edit script from a to b, line by line.
func myers(a, b []string) []step {
	n, m := len(a), len(b)
	maxD := min(n+m, maxEditDistance)
	offset := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, slices.Clone(v))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1]
			} else {
				x = v[offset+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[offset+k] = x
			if x >= n && y >= m {
				return backtrack(trace, offset, d, n, m)
			}
		}
	}
	script := make([]step, 0, n+m)
	for i := range n {
		script = append(script, step{del, i, 0})
	}
	for j := range m {
		script = append(script, step{ins, n, j})
	}
	return script
}

// backtrack walks the Myers trace back from (n, m) into the script.
func backtrack(trace [][]int, offset, d, n, m int) []step {
	var rev []step
	x, y := n, m
	for ; d > 0; d-- {
		prev := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && prev[offset+k-1] < prev[offset+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := prev[offset+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, step{equal, x, y})
		}
		if x == px {
			y--
			rev = append(rev, step{ins, x, y})
		} else {
			x--
			rev = append(rev, step{del, x, y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, step{equal, x, y})
	}
	slices.Reverse(rev)
	return rev
}

// LineMap maps the lines of old to the lines of new after the change from
// one to the other: moved[i] is the 1-based line in new of old's line i+1,
// or 0 where the change removed or rewrote that line.
func LineMap(old, new string) []int {
	a, b := strings.SplitAfter(old, "\n"), strings.SplitAfter(new, "\n")
	moved := make([]int, len(a))
	for _, o := range diffLines(a, b) {
		if o.kind != equal {
			continue
		}
		for i := range o.n {
			moved[o.ai+i] = o.bi + i + 1
		}
	}
	return moved
}
