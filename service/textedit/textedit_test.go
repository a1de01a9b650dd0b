package textedit

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	got, err := Apply("func id() {}\nx := id()\n", []Edit{{18, 20, "ident"}, {5, 7, "ident"}})
	if err != nil || got != "func ident() {}\nx := ident()\n" {
		t.Fatalf("Apply = %q, %v", got, err)
	}
	if _, err := Apply("abc", []Edit{{0, 2, "x"}, {1, 3, "y"}}); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping edits: err = %v", err)
	}
	if _, err := Apply("abc", []Edit{{2, 9, "x"}}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("edit past the end: err = %v", err)
	}
}

func TestUnifiedGolden(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n"
	want := `--- a/x
+++ b/x
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -9,5 +9,5 @@
 i
 j
 k
-l
+L
 m
`
	if got := Unified("a/x", "b/x", old, new); got != want {
		t.Errorf("Unified =\n%s\nwant\n%s", got, want)
	}
	if got := Unified("a/x", "b/x", "x", "y"); got != "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n" {
		t.Errorf("no final newline:\n%s", got)
	}
	if got := Unified("a/x", "b/x", "same\n", "same\n"); got != "" {
		t.Errorf("equal texts: %q", got)
	}
}

// TestUnifiedPatches checks, on random edits, that the diff's hunks turn
// the old text into the new one and agree with their headers.
func TestUnifiedPatches(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		var lines []string
		for j := range r.IntN(40) {
			lines = append(lines, "line "+strconv.Itoa(j%7))
		}
		old := strings.Join(lines, "\n")
		if r.IntN(2) == 0 {
			old += "\n"
		}
		b := []byte(old)
		for range r.IntN(6) {
			if len(b) == 0 {
				b = append(b, "new\n"...)
				continue
			}
			at := r.IntN(len(b))
			switch r.IntN(3) {
			case 0:
				b = append(b[:at], append([]byte("ins\nx"), b[at:]...)...)
			case 1:
				b = append(b[:at], b[min(len(b), at+r.IntN(12)):]...)
			default:
				b[at] = 'Z'
			}
		}
		new := string(b)
		d := Unified("a", "b", old, new)
		got, err := patch(old, d)
		if err != nil || got != new {
			t.Fatalf("case %d: patch = %q, %v\nold %q\nnew %q\ndiff\n%s", i, got, err, old, new, d)
		}
	}
}

// patch applies a unified diff made by Unified, checking its hunk headers.
func patch(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	a := splitLines(old)
	body := strings.SplitAfter(diff, "\n")[2:]
	var out []string
	ai := 0
	for i := 0; i < len(body) && body[i] != ""; {
		var as, al, bs, bl int
		h := body[i]
		if _, err := fmt.Sscanf(h, "@@ -%d,%d +%d,%d @@", &as, &al, &bs, &bl); err != nil {
			as, al, bs, bl = header(h)
		}
		i++
		start := as - 1
		if al == 0 {
			start = as
		}
		out = append(out, a[ai:start]...)
		ai = start
		gotA, gotB := 0, 0
		for i < len(body) && body[i] != "" && !strings.HasPrefix(body[i], "@@") {
			l := body[i]
			i++
			if i < len(body) && strings.HasPrefix(body[i], `\ No newline`) {
				l += body[i]
				i++
			}
			switch l[0] {
			case ' ':
				if a[ai] != l[1:] {
					return "", fmt.Errorf("context %q is not old line %d %q", l[1:], ai+1, a[ai])
				}
				out = append(out, l[1:])
				ai++
				gotA++
				gotB++
			case '-':
				if a[ai] != l[1:] {
					return "", fmt.Errorf("deleted %q is not old line %d %q", l[1:], ai+1, a[ai])
				}
				ai++
				gotA++
			case '+':
				out = append(out, l[1:])
				gotB++
			}
		}
		if gotA != al || gotB != bl {
			return "", fmt.Errorf("hunk %q has %d old and %d new lines", h, gotA, gotB)
		}
		_ = bs
	}
	out = append(out, a[ai:]...)
	s := strings.Join(out, "")
	return strings.ReplaceAll(s, "\n\\ No newline at end of file\n", ""), nil
}

// header reads a hunk header whose lengths may be left out (1).
func header(h string) (as, al, bs, bl int) {
	f := strings.Fields(h)
	read := func(s string) (int, int) {
		start, n, ok := strings.Cut(s[1:], ",")
		x, _ := strconv.Atoi(start)
		if !ok {
			return x, 1
		}
		y, _ := strconv.Atoi(n)
		return x, y
	}
	as, al = read(f[1])
	bs, bl = read(f[2])
	return
}

func TestLineMap(t *testing.T) {
	old := "package a\n\nimport \"fmt\"\n\nfunc A() {\n\tfmt.Println(1)\n}\n"
	new := "package a\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc A() {\n\tfmt.Println(2)\n}\n"
	got := LineMap(old, new)
	// package, blank, the import rewritten, blank, func, the call rewritten,
	// the brace, and the empty last "line" after the final newline.
	want := []int{1, 2, 0, 7, 8, 0, 10, 11}
	if !slices.Equal(got, want) {
		t.Errorf("LineMap = %v, want %v", got, want)
	}
	if got := LineMap("x\n", "y\nx\n"); !slices.Equal(got, []int{2, 3}) {
		t.Errorf("LineMap after a line inserted above = %v, want [2 3]", got)
	}
}
