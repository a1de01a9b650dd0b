package orchestrator

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/registry"
)

// The impact tests: a project of a dozen files per language, three edits
// to its shared file that break callers in at least five other files (a
// signature change with a dozen callers, a renamed export, a changed
// field), each checked as a write to disk (the first cold, the others
// warm) and as a what-if. What the impact reports is compared with the
// compiler's errors in the other files: every one reported, none added;
// after the fix, all clear.

// impactEdit is one edit to a project's shared file: old (occurring once)
// becomes new.
type impactEdit struct{ name, old, new string }

// impactProject is a generated project, its shared file, the edits to it
// and the compiler that judges them.
type impactProject struct {
	server, file string
	files        map[string]string
	edits        []impactEdit
	oracle       func(t *testing.T, dir string) []string // "file:line" of each error, '/'-separated relative paths
}

// consumers is how many files use the shared file in each project.
const consumers = 6

func goImpactProject() impactProject {
	files := map[string]string{
		"go.mod": "module example.com/shop\n\ngo 1.22\n",
		"geo/shape.go": `package geo

// Rect is a rectangle.
type Rect struct {
	W, H int
}

// Area is the area of r.
func Area(r Rect) int { return r.H * r.H }

// Perimeter is the perimeter of r.
func Perimeter(r Rect) int { return 4 * r.H }
`,
		"geo/doc.go":   "// Package geo is shapes.\npackage geo\n",
		"util/util.go": "package util\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n",
	}
	for i := 1; i <= consumers; i++ {
		files[fmt.Sprintf("p%d/use.go", i)] = fmt.Sprintf(`package p%d

import "example.com/shop/geo"

// Use%d uses geo.
func Use%d(r geo.Rect) int {
	a := geo.Area(r)
	b := geo.Area(geo.Rect{W: 1, H: 2})
	c := geo.Perimeter(r)
	return a + b + c + r.W
}
`, i, i, i)
		files[fmt.Sprintf("p%d/other.go", i)] = fmt.Sprintf("package p%d\n\nimport \"example.com/shop/util\"\n\n// Other%d does not use geo.\nfunc Other%d() int { return util.Twice(%d) }\n", i, i, i, i)
	}
	return impactProject{
		server: "gopls", file: "geo/shape.go", files: files,
		edits: []impactEdit{
			{"signature change", "func Area(r Rect) int { return r.H * r.H }", "func Area(r Rect, scale int) int { return r.H * r.H * scale }"},
			{"renamed export", "func Perimeter(r Rect) int", "func Perim(r Rect) int"},
			{"changed struct field", "\tW, H int", "\tWidth, H int"},
		},
		oracle: func(t *testing.T, dir string) []string {
			out := run(t, dir, "go", "build", "-gcflags=-e", "./...")
			return positions(out, `(?m)^(?:vet: )?\.?/?([^\s:]+\.go):(\d+):\d+: (.*)$`, "")
		},
	}
}

func tsImpactProject() impactProject {
	files := map[string]string{
		"package.json":  `{"name": "shop", "private": true, "type": "module"}` + "\n",
		"tsconfig.json": `{"compilerOptions": {"strict": true, "target": "es2022", "module": "nodenext", "noEmit": true}, "include": ["src"]}` + "\n",
		"src/geo.ts": `export interface Rect {
	w: number;
	h: number;
}

export function area(r: Rect): number {
	return r.w * r.h;
}

export function perimeter(r: Rect): number {
	return 2 * (r.w + r.h);
}
`,
		"src/index.ts": "export * from './geo.js';\n",
		"src/util.ts":  "export function twice(n: number): number {\n\treturn 2 * n;\n}\n",
	}
	for i := 1; i <= consumers; i++ {
		from := "./geo.js"
		if i > 4 {
			from = "./index.js" // through the barrel
		}
		files[fmt.Sprintf("src/use%d.ts", i)] = fmt.Sprintf(`import {area, perimeter, type Rect} from '%s';

export function use%d(r: Rect): number {
	const a = area(r);
	const b = area({w: 1, h: 2});
	const c = perimeter(r);
	return a + b + c + r.w;
}
`, from, i)
		files[fmt.Sprintf("src/other%d.ts", i)] = fmt.Sprintf("import {twice} from './util.js';\n\nexport const other%d = twice(%d);\n", i, i)
	}
	return impactProject{
		server: "typescript", file: "src/geo.ts", files: files,
		edits: []impactEdit{
			{"signature change", "export function area(r: Rect): number {\n\treturn r.w * r.h;", "export function area(r: Rect, scale: number): number {\n\treturn r.w * r.h * scale;"},
			{"renamed export", "export function perimeter(", "export function perim("},
			{"changed interface member", "\tw: number;\n\th: number;\n}", "\twidth: number;\n\th: number;\n}"},
		},
		oracle: func(t *testing.T, dir string) []string {
			tsc := filepath.Join(registry.DefaultDir(), "npm", "typescript", "node_modules", ".bin", "tsc")
			out := run(t, dir, tsc, "--noEmit", "-p", ".")
			return positions(out, `(?m)^([^\s(]+\.ts)\((\d+),\d+\): (error .*)$`, "")
		},
	}
}

func pyImpactProject() impactProject {
	files := map[string]string{
		"pyproject.toml":   "[project]\nname = \"shop\"\nversion = \"0.1.0\"\n",
		"shop/__init__.py": "from .geo import area, perimeter, Rect\n\n__all__ = [\"area\", \"perimeter\", \"Rect\"]\n",
		"shop/geo.py": `from dataclasses import dataclass


@dataclass
class Rect:
    w: int
    h: int


def area(r: Rect) -> int:
    return r.w * r.h


def perimeter(r: Rect) -> int:
    return 2 * (r.w + r.h)
`,
		"shop/util.py": "def twice(n: int) -> int:\n    return 2 * n\n",
	}
	imports := []string{
		"from shop.geo import area, perimeter, Rect",
		"from .geo import area, perimeter, Rect",
		"from shop.geo import (\n    area,\n    perimeter,\n    Rect,\n)",
		"from shop import area, perimeter, Rect", // through the package
		"from . import area, perimeter, Rect",
		"from shop.geo import area, perimeter, Rect",
	}
	for i := 1; i <= consumers; i++ {
		files[fmt.Sprintf("shop/use%d.py", i)] = fmt.Sprintf(`%s


def use%d(r: Rect) -> int:
    a = area(r)
    b = area(Rect(w=1, h=2))
    c = perimeter(r)
    return a + b + c + r.w
`, imports[i-1], i)
		files[fmt.Sprintf("shop/other%d.py", i)] = fmt.Sprintf("from shop.util import twice\n\nOTHER%d = twice(%d)\n", i, i)
	}
	return impactProject{
		server: "pyright", file: "shop/geo.py", files: files,
		edits: []impactEdit{
			{"signature change", "def area(r: Rect) -> int:\n    return r.w * r.h", "def area(r: Rect, scale: int) -> int:\n    return r.w * r.h * scale"},
			{"renamed export", "def perimeter(r: Rect) -> int:", "def perim(r: Rect) -> int:"},
			{"changed field", "    w: int\n    h: int", "    width: int\n    h: int"},
		},
		oracle: func(t *testing.T, dir string) []string {
			pyright := filepath.Join(registry.DefaultDir(), "npm", "pyright", "node_modules", ".bin", "pyright")
			out := run(t, dir, pyright, "--outputjson")
			var res struct {
				Diagnostics []struct {
					File     string `json:"file"`
					Severity string `json:"severity"`
					Range    struct {
						Start struct {
							Line int `json:"line"`
						} `json:"start"`
					} `json:"range"`
				} `json:"generalDiagnostics"`
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("pyright --outputjson: %v\n%s", err, out)
			}
			var found []string
			for _, d := range res.Diagnostics {
				if d.Severity == "error" {
					rel, _ := filepath.Rel(dir, d.File)
					found = append(found, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), d.Range.Start.Line+1))
				}
			}
			return found
		},
	}
}

func cImpactProject() impactProject {
	files := map[string]string{
		"compile_flags.txt": "-std=c11\n",
		"geo.h": `#ifndef GEO_H
#define GEO_H

struct rect {
	int w;
	int h;
};

int area(struct rect r);
int perimeter(struct rect r);

#endif
`,
		"shapes.h": "#ifndef SHAPES_H\n#define SHAPES_H\n\n#include \"geo.h\"\n\n#endif\n",
		"geo.c":    "#include \"geo.h\"\n\nint area(struct rect r) { return r.w * r.h; }\n\nint perimeter(struct rect r) { return 2 * (r.w + r.h); }\n",
		"util.h":   "int twice(int n);\n",
		"util.c":   "#include \"util.h\"\n\nint twice(int n) { return 2 * n; }\n",
	}
	for i := 1; i <= consumers; i++ {
		header := "geo.h"
		if i > 4 {
			header = "shapes.h" // through another header
		}
		files[fmt.Sprintf("use%d.c", i)] = fmt.Sprintf(`#include "%s"

int use%d(struct rect r) {
	struct rect s = {1, 2};
	int a = area(r);
	int b = area(s);
	int c = perimeter(r);
	return a + b + c + r.w;
}
`, header, i)
		files[fmt.Sprintf("other%d.c", i)] = fmt.Sprintf("#include \"util.h\"\n\nint other%d(void) { return twice(%d); }\n", i, i)
	}
	return impactProject{
		server: "clangd", file: "geo.h", files: files,
		edits: []impactEdit{
			{"prototype change", "int area(struct rect r);", "int area(struct rect r, int scale);"},
			{"renamed function", "int perimeter(struct rect r);", "int perim(struct rect r);"},
			{"changed struct field", "\tint w;\n\tint h;", "\tint width;\n\tint h;"},
		},
		oracle: func(t *testing.T, dir string) []string {
			cc := "clang-19"
			if _, err := exec.LookPath(cc); err != nil {
				cc = "cc"
			}
			var found []string
			for _, f := range slices.Sorted(maps.Keys(files)) {
				if strings.HasSuffix(f, ".c") {
					out := run(t, dir, cc, "-fsyntax-only", "-std=c11", "-Werror=implicit-function-declaration", f)
					found = append(found, positions(out, `(?m)^([^\s:]+\.[ch]):(\d+):\d+: (error: .*)$`, "error")...)
				}
			}
			return found
		},
	}
}

// run runs a compiler in dir; a failing exit is its verdict, not the
// test's.
func run(t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// positions finds "file:line" in compiler output, by a pattern whose
// groups are the file, the line and the message (which must contain want).
func positions(out []byte, pattern, want string) []string {
	var found []string
	for _, m := range regexp.MustCompile(pattern).FindAllSubmatch(out, -1) {
		if !strings.Contains(string(m[3]), want) {
			continue
		}
		line, _ := strconv.Atoi(string(m[2]))
		found = append(found, fmt.Sprintf("%s:%d", filepath.ToSlash(string(m[1])), line))
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// impactPositions are the "file:line" of an impact's errors.
func impactPositions(imp *api.Impact) []string {
	var found []string
	if imp == nil {
		return nil
	}
	for _, f := range imp.Files {
		for _, d := range f.Diagnostics {
			if d.Severity == "error" {
				found = append(found, fmt.Sprintf("%s:%d", d.File, d.Line))
			}
		}
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// others are the positions not in file.
func others(positions []string, file string) []string {
	return slices.DeleteFunc(slices.Clone(positions), func(p string) bool { return strings.HasPrefix(p, file+":") })
}

func TestImpactLive(t *testing.T) {
	if os.Getenv("LSPKIT_IMPACT_LIVE") == "" {
		t.Skip("four languages' impact, live: run by .ci/run (LSPKIT_IMPACT_LIVE=1)")
	}
	t.Parallel()
	for _, p := range []impactProject{goImpactProject(), tsImpactProject(), pyImpactProject(), cImpactProject()} {
		t.Run(p.server, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, map[string]string{"gopls": "gopls", "typescript": "typescript-language-server", "pyright": "pyright-langserver", "clangd": "clangd"}[p.server])
			root := t.TempDir()
			lsptest.WriteFiles(t, root, p.files)
			o := liveIn(t, root, "")
			original := p.files[p.file]
			var recalled, expected int
			for i, e := range p.edits {
				if strings.Count(original, e.old) != 1 {
					t.Fatalf("%s: %q does not occur once in %s", e.name, e.old, p.file)
				}
				broken := strings.Replace(original, e.old, e.new, 1)
				when := "warm"
				if i == 0 {
					when = "cold"
				}
				// Written to disk, only the edited file checked.
				lsptest.WriteFiles(t, root, map[string]string{p.file: broken})
				want := others(p.oracle(t, root), p.file)
				if files := filesOf(want); len(files) < 5 || i == 0 && len(want) < 10 {
					t.Fatalf("%s: the compiler reports %d errors in %d other files, want ≥ 10 in ≥ 5 for the signature change, ≥ 5 files for the others: %v", e.name, len(want), len(files), want)
				}
				start := time.Now()
				res := mustCheck(t, o, api.CheckParams{FilePath: p.file, Impact: true})
				got := impactPositions(res.Impact)
				t.Logf("%s %s (%s, written): %d of %d compiler errors in other files reported, %d files checked, in %v", p.server, e.name, when, len(intersect(want, got)), len(want), res.Impact.Checked, time.Since(start).Round(time.Millisecond))
				recalled += len(intersect(want, got))
				expected += len(want)
				if !res.Impact.Complete {
					t.Errorf("%s: impact incomplete: %s", e.name, res.Impact.Reason)
				}
				if missed := minus(want, got); len(missed) > 0 {
					t.Errorf("%s (written): missed %v", e.name, missed)
				}
				if extra := minus(got, want); len(extra) > 0 {
					t.Errorf("%s (written): false errors %v", e.name, extra)
				}
				// Fixed on disk: all clear.
				lsptest.WriteFiles(t, root, map[string]string{p.file: original})
				res = mustCheck(t, o, api.CheckParams{FilePath: p.file, Impact: true})
				if got := impactPositions(res.Impact); len(got) > 0 || !res.Impact.Complete {
					t.Errorf("%s fixed: impact %v (complete %v: %s), want all clear", e.name, got, res.Impact.Complete, res.Impact.Reason)
				}
				// The same edit as a what-if: nothing written, the same
				// answer, the servers back on the disk's text after.
				res = mustCheck(t, o, api.CheckParams{Files: map[string]string{p.file: broken}})
				got = impactPositions(res.Impact)
				t.Logf("%s %s (what-if): %d of %d reported", p.server, e.name, len(intersect(want, got)), len(want))
				recalled += len(intersect(want, got))
				expected += len(want)
				if missed, extra := minus(want, got), minus(got, want); len(missed)+len(extra) > 0 {
					t.Errorf("%s (what-if): missed %v, false errors %v", e.name, missed, extra)
				}
				if data, _ := os.ReadFile(filepath.Join(root, p.file)); string(data) != original {
					t.Fatalf("%s: the what-if wrote %s", e.name, p.file)
				}
				res = mustCheck(t, o, api.CheckParams{FilePath: p.file, Impact: true})
				if got := impactPositions(res.Impact); len(got) > 0 {
					t.Errorf("%s after the what-if: impact %v, want all clear (the server kept the what-if's text?)", e.name, got)
				}
			}
			t.Logf("%s: impact recall %d of %d (%.1f%%)", p.server, recalled, expected, 100*float64(recalled)/float64(expected))
		})
	}
}

// filesOf are the distinct files of positions.
func filesOf(positions []string) []string {
	var files []string
	for _, p := range positions {
		f, _, _ := strings.Cut(p, ":")
		files = append(files, f)
	}
	slices.Sort(files)
	return slices.Compact(files)
}

func intersect(a, b []string) []string {
	return slices.DeleteFunc(slices.Clone(a), func(s string) bool { return !slices.Contains(b, s) })
}

func minus(a, b []string) []string {
	return slices.DeleteFunc(slices.Clone(a), func(s string) bool { return slices.Contains(b, s) })
}
