package orchestrator

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// The settle tests prove, against real servers, that a check's answer is
// the server's complete answer for exactly the text checked: later waves
// included, clean edits settled (not timed out), dependents re-checked.

var everySeverity = []string{"error", "warning", "info", "hint"}

// TestGoAnalyzerFindings: gopls publishes go vet's analyzer findings in a
// wave after the type checker's; a check includes them.
func TestGoAnalyzerFindings(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	src := "package demo\n\nimport \"fmt\"\n\nfunc F(x int) {\n" +
		"\tfmt.Printf(\"%d\\n\", \"x\")\n" + // printf
		"\tfmt.Sprintf(\"y\")\n" + // unusedresult
		"\tx = x\n" + // assign (self-assignment)
		"\treturn\n" +
		"\tfmt.Println()\n" + // unreachable
		"}\n"
	o := live(t, map[string]string{"go.mod": servertest.GoMod, "a.go": src}, "")
	for round, text := range []*string{nil, new(src + "\n")} { // cold, then warm with an edit
		res := mustCheck(t, o, api.CheckParams{FilePath: "a.go", Text: text, Severities: everySeverity})
		if !res.Checked {
			t.Fatalf("round %d: not checked: %+v", round, res)
		}
		for _, want := range []struct {
			line int
			text string
		}{{6, "format %d has arg"}, {7, "result of fmt.Sprintf call not used"}, {8, "self-assignment of x"}, {10, "unreachable code"}} {
			if !hasDiagnostic(res.Diagnostics, want.line, want.text) {
				t.Errorf("round %d: no finding %q at line %d in %+v", round, want.text, want.line, res.Diagnostics)
			}
		}
	}
	// The default severities (error) leave the warnings out, and the
	// same check still counts as complete.
	if res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"}); !res.Checked || len(res.Diagnostics) != 0 {
		t.Fatalf("errors only: %+v", res)
	}
}

// TestTypeScriptCleanEdits: typescript-language-server publishes nothing
// when an edit leaves a file clean; a check of such an edit is settled,
// not timed out, and an edit that breaks the file is reported.
func TestTypeScriptCleanEdits(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "typescript-language-server")
	clean := "export const n: number = 1;\n"
	o := live(t, map[string]string{"tsconfig.json": `{"compilerOptions":{"strict":true}}`, "a.ts": clean}, `,"diagnosticTimeout":20000`)
	edits := []struct {
		text   string
		errors int
	}{
		{clean, 0},
		{"// a comment\n" + clean, 0},
		{"// another comment\n" + clean, 0},
		{"export const n: number = \"s\";\n", 1},
		{clean, 0},
		{clean + "// the end\n", 0},
	}
	for i, e := range edits {
		res := mustCheck(t, o, api.CheckParams{FilePath: "a.ts", Text: &e.text})
		if !res.Checked || len(res.Servers) != 1 || res.Servers[0].Verdict != api.VerdictSettled || len(res.Diagnostics) != e.errors {
			t.Fatalf("edit %d: want settled with %d errors: %+v", i, e.errors, res)
		}
	}
}

// dependentCase is one language's pair of files: b uses a; changing a
// breaks b without touching it.
type dependentCase struct {
	name, binary  string
	files         map[string]string
	a, b          string // file names
	broken, fixed string // a's text that breaks b, and that mends it
	bLine         int    // where b breaks
}

var dependentCases = []dependentCase{
	{
		name: "go", binary: "gopls",
		files: map[string]string{"go.mod": servertest.GoMod, "b.go": "package demo\n\nfunc G() int { return F() + 1 }\n"},
		a:     "a.go", b: "b.go",
		fixed:  "package demo\n\nfunc F() int { return 1 }\n",
		broken: "package demo\n\nfunc F() string { return \"1\" }\n",
		bLine:  3,
	},
	{
		name: "typescript", binary: "typescript-language-server",
		files: map[string]string{"tsconfig.json": `{"compilerOptions":{"strict":true}}`, "b.ts": "import { f } from \"./a\";\n\nexport const g: number = f() + 1;\n"},
		a:     "a.ts", b: "b.ts",
		fixed:  "export function f(): number { return 1; }\n",
		broken: "export function f(x: number): number { return x; }\n",
		bLine:  3,
	},
	{
		name: "python", binary: "pyright-langserver",
		files: map[string]string{"pyproject.toml": "[project]\nname = \"demo\"\n", "b.py": "from a import f\n\n\ndef g() -> int:\n    return f() + 1\n"},
		a:     "a.py", b: "b.py",
		fixed:  "def f() -> int:\n    return 1\n",
		broken: "def f(x: int) -> int:\n    return x\n",
		bLine:  5,
	},
	{
		name: "c", binary: "clangd",
		files: map[string]string{"compile_flags.txt": "-std=c11\n", "b.c": "#include \"a.h\"\n\nint g(void) { return f() + 1; }\n"},
		a:     "a.h", b: "b.c",
		fixed:  "int f(void);\n",
		broken: "int f(int x);\n",
		bLine:  3,
	},
}

// project is the case's files, a as it is when fixed.
func (tc dependentCase) project() map[string]string {
	files := map[string]string{tc.a: tc.fixed}
	maps.Copy(files, tc.files)
	return files
}

// TestDependentsFresh: after a's text changes — checked, or only written
// to disk — a check of the unchanged b answers for the new a, in both
// directions (the break appears, then goes), in every language.
func TestDependentsFresh(t *testing.T) {
	t.Parallel()
	for _, tc := range dependentCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, tc.binary)
			o := live(t, tc.project(), `,"diagnosticTimeout":20000`)
			wantB := func(step string, errors int) {
				t.Helper()
				res := mustCheck(t, o, api.CheckParams{FilePath: tc.b})
				if !res.Checked || len(res.Diagnostics) != errors || errors > 0 && res.Diagnostics[0].Line != tc.bLine {
					t.Fatalf("%s: want %d errors in %s (line %d): %+v", step, errors, tc.b, tc.bLine, res)
				}
			}
			wantB("before", 0)
			wantB("again, nothing changed", 0) // settled, not timed out: clangd publishes nothing for the same text
			// a changes and is checked (the server is sent its text).
			lsptest.WriteFiles(t, o.Root(), map[string]string{tc.a: tc.broken})
			mustCheck(t, o, api.CheckParams{FilePath: tc.a})
			wantB("a broken and checked", 1)
			lsptest.WriteFiles(t, o.Root(), map[string]string{tc.a: tc.fixed})
			mustCheck(t, o, api.CheckParams{FilePath: tc.a})
			wantB("a mended and checked", 0)
			// a changes on disk only.
			lsptest.WriteFiles(t, o.Root(), map[string]string{tc.a: tc.broken})
			wantB("a broken on disk", 1)
			// diagnosticsAfter a change to a includes what it broke in b.
			lsptest.WriteFiles(t, o.Root(), map[string]string{tc.a: tc.fixed})
			wantB("a mended on disk", 0)
			epoch := o.Epoch()
			lsptest.WriteFiles(t, o.Root(), map[string]string{tc.a: tc.broken})
			mustCheck(t, o, api.CheckParams{FilePath: tc.a})
			wait := 20000
			after, err := o.DiagnosticsAfter(context.Background(), api.DiagnosticsAfterParams{AfterEpoch: epoch, WaitMs: &wait})
			if err != nil || len(after[tc.b]) == 0 || after[tc.b][0].Line != tc.bLine {
				t.Fatalf("diagnosticsAfter: want %s's error at line %d: %+v %v", tc.b, tc.bLine, after, err)
			}
		})
	}
}

func hasDiagnostic(ds []api.Diagnostic, line int, text string) bool {
	for _, d := range ds {
		if d.Line == line && strings.Contains(d.Message, text) {
			return true
		}
	}
	return false
}

// TestAwkwardRoot: in a root whose path has characters servers spell
// differently in URIs (+ space # % @ and non-ASCII), every server's
// findings reach the file they are about.
func TestAwkwardRoot(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, binary, file, text string
		extra                    map[string]string
	}{
		{"go", "gopls", "a.go", "package demo\n\nvar X int = \"s\"\n", map[string]string{"go.mod": servertest.GoMod}},
		{"typescript", "typescript-language-server", "a.ts", "export const n: number = \"s\";\n", map[string]string{"tsconfig.json": `{"compilerOptions":{"strict":true}}`}},
		{"python", "pyright-langserver", "a.py", "x: int = \"s\"\n", map[string]string{"pyproject.toml": "[project]\nname = \"demo\"\n"}},
		{"c", "clangd", "a.c", "int x = \"s\";\n", map[string]string{"compile_flags.txt": "-std=c11\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, tc.binary)
			root := filepath.Join(t.TempDir(), "a+b c#d%e@f é")
			files := map[string]string{tc.file: tc.text}
			for k, v := range tc.extra {
				files[k] = v
			}
			lsptest.WriteFiles(t, root, files)
			o := liveIn(t, root, `,"diagnosticTimeout":20000`)
			res := mustCheck(t, o, api.CheckParams{FilePath: tc.file})
			line := strings.Count(tc.text, "\n") // the error is on the last line
			if !res.Checked || len(res.Diagnostics) == 0 || res.Diagnostics[0].File != tc.file || res.Diagnostics[0].Line != line {
				t.Fatalf("want an error at %s:%d: %+v", tc.file, line, res)
			}
		})
	}
}

// BenchmarkTypeScriptEdits: warm checks of typescript-language-server
// edits that leave the file clean against edits that break it; both must
// settle (a clean edit, for which the server publishes nothing, used to
// wait out the whole diagnostic timeout). Reports the median check in ms.
func BenchmarkTypeScriptEdits(b *testing.B) {
	servertest.Binary(b, "typescript-language-server")
	clean := "export const n: number = 1;\n"
	for _, tc := range []struct {
		name  string
		edits []string
	}{
		{"clean", []string{"// one\n" + clean, "// two\n" + clean}},
		{"error", []string{"export const n: number = \"s\";\n", "export const n: number = \"t\";\n"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			root := b.TempDir()
			lsptest.WriteFiles(b, root, map[string]string{"tsconfig.json": `{"compilerOptions":{"strict":true}}`, "a.ts": clean})
			o := liveIn(b, root, "")
			mustCheck(b, o, api.CheckParams{FilePath: "a.ts"}) // warm
			var times []time.Duration
			i := 0
			for b.Loop() {
				text := tc.edits[i%2]
				i++
				start := time.Now()
				res := mustCheck(b, o, api.CheckParams{FilePath: "a.ts", Text: &text})
				times = append(times, time.Since(start))
				if res.Servers[0].Verdict != api.VerdictSettled {
					b.Fatalf("edit %d: %+v", i, res)
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
		})
	}
}

// TestGoConcurrentChecksOwnText: 24 checks of one Go file at once, each
// with its own text, against gopls: each is answered for its own text,
// with its columns.
func TestGoConcurrentChecksOwnText(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	text := func(i int) string {
		return fmt.Sprintf("package demo\n\n// %d\nvar %sX int = \"%s\"\n", i, strings.Repeat(" ", i), strings.Repeat("😀", i))
	}
	o := live(t, map[string]string{"go.mod": servertest.GoMod, "a.go": text(0)}, "")
	mustCheck(t, o, api.CheckParams{FilePath: "a.go"}) // warm: the cold start is not what this is about
	results := checkAtOnce(24, "a.go", text, func(p api.CheckParams) api.CheckResult { return mustCheck(t, o, p) })
	for i, res := range results {
		// The error is the string literal: after "var", i spaces and
		// "X int = ", and i astral characters long (two UTF-16 units each).
		col := len("var ") + i + len("X int = ") + 1
		if !res.Checked || len(res.Diagnostics) != 1 || res.Diagnostics[0].Line != 4 || res.Diagnostics[0].Character != col ||
			res.Diagnostics[0].EndCharacter != col+i+2 || !strings.Contains(res.Diagnostics[0].Message, "cannot use \""+strings.Repeat("😀", i)) {
			t.Errorf("check %d: want one error at 4:%d-%d, got %+v", i, col, col+i+2, res)
		}
	}
}
