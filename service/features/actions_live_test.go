package features

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestCodeActionsGoLive: gopls's fixes through lspkit — a missing import
// added by the quick fix for its finding, an unused import removed by
// organize imports, a file formatted to exactly gofmt's output — each
// previewed, applied and the file then checked clean; an action listed
// before its file changed is refused as stale.
func TestCodeActionsGoLive(t *testing.T) {
	servertest.CIOnly(t)
	t.Parallel()
	servertest.Binary(t, "gopls")
	o := live(t, map[string]string{
		"go.mod": servertest.GoMod,
		"a.go":   "package demo\n\nfunc Up(s string) string { return strings.ToUpper(s) }\n",
		"b.go":   "package demo\n\nimport \"os\"\n\nfunc B() {}\n",
		"c.go":   "package demo\nfunc  C( ) int {return 1}\n",
	}, servertest.LoadedWait)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	read := func(name string) string { return readIn(t, o, name) }

	// The missing import: the quick fix for the finding.
	res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"})
	if len(res.Diagnostics) != 1 || !strings.Contains(res.Diagnostics[0].Message, "undefined: strings") {
		t.Fatalf("check a.go: %+v", res)
	}
	acts, err := o.CodeActions(ctx, api.CodeActionsParams{Diagnostic: &res.Diagnostics[0]})
	if err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, a := range acts.Actions {
		if strings.Contains(a.Title, `"strings"`) {
			id = a.ID
		}
	}
	if id == "" {
		t.Fatalf("no action adds the import: %+v", acts)
	}
	preview, err := o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: id})
	if err != nil || preview.Applied || !strings.Contains(preview.Diff, `+import "strings"`) || strings.Contains(read("a.go"), "import") {
		t.Fatalf("preview: %+v %v", preview, err)
	}
	applied, err := o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: id, Apply: true})
	if err != nil || !applied.Applied || !strings.Contains(read("a.go"), `import "strings"`) || len(applied.Diagnostics["a.go"]) != 0 {
		t.Fatalf("apply: %+v %v\n%s", applied, err, read("a.go"))
	}
	if res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"}); !res.Checked || len(res.Diagnostics) != 0 {
		t.Fatalf("a.go after the fix: %+v", res)
	}

	// The unused import: organize imports.
	if res := mustCheck(t, o, api.CheckParams{FilePath: "b.go"}); len(res.Diagnostics) != 1 {
		t.Fatalf("check b.go: %+v", res)
	}
	acts, err = o.CodeActions(ctx, api.CodeActionsParams{PositionParams: api.PositionParams{File: "b.go", Line: 1}, Kinds: []string{"source.organizeImports"}})
	if err != nil || len(acts.Actions) != 1 || acts.Actions[0].Kind != "source.organizeImports" || acts.Actions[0].Server != "gopls" {
		t.Fatalf("organize imports: %+v %v", acts, err)
	}
	// Listed, then the file changes: the action is stale.
	stale := acts.Actions[0].ID
	if err := os.WriteFile(filepath.Join(o.Root(), "b.go"), []byte("package demo\n\nimport \"os\"\n\nfunc B() { _ = 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: stale, Apply: true}); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Fatalf("a stale action: %v", err)
	}
	acts, err = o.CodeActions(ctx, api.CodeActionsParams{PositionParams: api.PositionParams{File: "b.go", Line: 1}, Kinds: []string{"source.organizeImports"}})
	if err != nil || len(acts.Actions) != 1 {
		t.Fatalf("organize imports again: %+v %v", acts, err)
	}
	if r, err := o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: acts.Actions[0].ID, Apply: true}); err != nil || !r.Applied || strings.Contains(read("b.go"), "import") {
		t.Fatalf("organize imports applied: %+v %v\n%s", r, err, read("b.go"))
	}
	if res := mustCheck(t, o, api.CheckParams{FilePath: "b.go"}); !res.Checked || len(res.Diagnostics) != 0 {
		t.Fatalf("b.go after organizing: %+v", res)
	}

	// Formatting: exactly gofmt's output.
	gofmt := exec.Command(filepath.Join(runtimeGOROOT(t), "bin", "gofmt"))
	gofmt.Stdin = strings.NewReader(read("c.go"))
	want, err := gofmt.Output()
	if err != nil {
		t.Fatal(err)
	}
	f, err := o.Format(ctx, api.FormatParams{File: "c.go", Apply: true})
	if err != nil || !f.Applied || read("c.go") != string(want) {
		t.Fatalf("format: %+v %v\ngot:\n%s\nwant:\n%s", f, err, read("c.go"), want)
	}
	if f, err := o.Format(ctx, api.FormatParams{File: "c.go"}); err != nil || f.Diff != "" || !strings.Contains(f.Note, "formatted already") {
		t.Fatalf("format again: %+v %v", f, err)
	}
}

// readIn returns the text of the file name under o's root.
func readIn(t testing.TB, o *Service, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(o.Root(), name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// runtimeGOROOT is the Go installation's root, as the go command says.
func runtimeGOROOT(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestCodeActionsTypeScriptESLintLive: on one .ts file typescript-language-
// server and eslint both offer actions, each naming its server: the
// missing import added by TypeScript's quick fix for its finding, eslint's
// fix of a fixable rule (prefer-const); the file then checks clean.
func TestCodeActionsTypeScriptESLintLive(t *testing.T) {
	servertest.CIOnly(t)
	t.Parallel()
	servertest.Binary(t, "typescript-language-server")
	servertest.Binary(t, "vscode-eslint-language-server")
	o := live(t, map[string]string{
		"tsconfig.json":     `{"compilerOptions":{"strict":true}}`,
		"eslint.config.mjs": "export default [{ files: [\"**/*.ts\"], rules: { \"prefer-const\": \"error\" } }];\n",
		"lib.ts":            "export function greeting(name: string): string {\n  return \"hello, \" + name;\n}\n",
		"a.ts":              "let s = greeting(\"x\");\nexport { s };\n",
	}, servertest.LoadedWait)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	read := func() string { return readIn(t, o, "a.ts") }
	res := mustCheck(t, o, api.CheckParams{FilePath: "a.ts"})
	var missing, preferConst *api.Diagnostic
	for i, d := range res.Diagnostics {
		switch {
		case d.Server == "typescript" && strings.Contains(d.Message, "greeting"):
			missing = &res.Diagnostics[i]
		case d.Server == "eslint" && d.Code == "prefer-const":
			preferConst = &res.Diagnostics[i]
		}
	}
	if missing == nil || preferConst == nil {
		t.Fatalf("want typescript's missing name and eslint's prefer-const: %+v", res.Diagnostics)
	}
	// The whole first line: both servers' actions, each naming its server.
	all, err := o.CodeActions(ctx, api.CodeActionsParams{PositionParams: api.PositionParams{File: "a.ts", Line: 1}})
	if err != nil {
		t.Fatal(err)
	}
	byServer := map[string]int{}
	for _, a := range all.Actions {
		byServer[a.Server]++
	}
	if byServer["typescript"] == 0 || byServer["eslint"] == 0 {
		t.Fatalf("actions on line 1: %+v", all)
	}
	apply := func(d *api.Diagnostic, want string) {
		t.Helper()
		acts, err := o.CodeActions(ctx, api.CodeActionsParams{Diagnostic: d})
		if err != nil {
			t.Fatal(err)
		}
		id := ""
		for _, a := range acts.Actions {
			if a.Server == d.Server && strings.Contains(a.Title, want) && id == "" {
				id = a.ID
			}
		}
		if id == "" {
			t.Fatalf("no %q action for %+v: %+v", want, d, acts)
		}
		r, err := o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: id, Apply: true})
		if err != nil || !r.Applied {
			t.Fatalf("apply %q: %+v %v", want, r, err)
		}
	}
	apply(missing, "import")
	if !strings.Contains(read(), `from "./lib"`) {
		t.Fatalf("a.ts after the import fix:\n%s", read())
	}
	res = mustCheck(t, o, api.CheckParams{FilePath: "a.ts"})
	preferConst = nil
	for i, d := range res.Diagnostics {
		if d.Code == "prefer-const" {
			preferConst = &res.Diagnostics[i]
		}
	}
	if preferConst == nil {
		t.Fatalf("after the import fix: %+v", res.Diagnostics)
	}
	apply(preferConst, "prefer-const")
	if !strings.Contains(read(), "const s = greeting") {
		t.Fatalf("a.ts after eslint's fix:\n%s", read())
	}
	if res := mustCheck(t, o, api.CheckParams{FilePath: "a.ts"}); !res.Checked || len(res.Diagnostics) != 0 {
		t.Fatalf("a.ts after both fixes: %+v", res)
	}
}

// TestCodeActionsPyrightClangdLive: for an undefined name (pyright) and a
// missing include (clangd), what the server offers for the finding is
// listed and, where it offers something, applies; where it offers
// nothing, the answer says so.
func TestCodeActionsPyrightClangdLive(t *testing.T) {
	servertest.CIOnly(t)
	t.Parallel()
	cases := []struct{ binary, file, text string }{
		{"pyright-langserver", "a.py", "x = undefined_name\n"},
		{"clangd", "a.c", "int main(void) { printf(\"hi\\n\"); return 0; }\n"},
	}
	for _, c := range cases {
		t.Run(c.binary, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, c.binary)
			files := map[string]string{c.file: c.text}
			if c.binary == "clangd" {
				files["compile_flags.txt"] = "-xc\n-std=c11\n"
			}
			o := live(t, files, servertest.LoadedWait+`,"includeSeverities":["error","warning"]`)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res := mustCheck(t, o, api.CheckParams{FilePath: c.file})
			if len(res.Diagnostics) == 0 {
				t.Fatalf("no finding: %+v", res)
			}
			acts, err := o.CodeActions(ctx, api.CodeActionsParams{Diagnostic: &res.Diagnostics[0]})
			if err != nil {
				t.Fatal(err)
			}
			if len(acts.Actions) == 0 {
				if !strings.Contains(acts.Note, "no server offers an action") {
					t.Fatalf("nothing offered, and not said: %+v", acts)
				}
				t.Logf("%s offers nothing for %q", c.binary, res.Diagnostics[0].Message)
				return
			}
			t.Logf("%s offers %q for %q", c.binary, acts.Actions[0].Title, res.Diagnostics[0].Message)
			r, err := o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: acts.Actions[0].ID, Apply: true})
			if err != nil || !r.Applied || r.Diff == "" {
				t.Fatalf("apply %q: %+v %v", acts.Actions[0].Title, r, err)
			}
		})
	}
}

// TestFixAllLive: every fix at once. gopls: an unused import and a missing
// one in one file, fixed together (organize imports; the quick fix that
// would add the same import again overlaps it and is left out, named);
// eslint beside typescript-language-server: the file's prefer-const
// findings fixed by eslint's fix-all. The files then check clean, and the
// answer says what remains.
func TestFixAllLive(t *testing.T) {
	servertest.CIOnly(t)
	t.Parallel()
	servertest.Binary(t, "gopls")
	servertest.Binary(t, "typescript-language-server")
	servertest.Binary(t, "vscode-eslint-language-server")
	o := live(t, map[string]string{
		"go.mod":            servertest.GoMod,
		"a.go":              "package demo\n\nimport \"os\"\n\nfunc Up(s string) string { return strings.ToUpper(s) }\n",
		"tsconfig.json":     `{"compilerOptions":{"strict":true}}`,
		"eslint.config.mjs": "export default [{ files: [\"**/*.ts\"], rules: { \"prefer-const\": \"error\" } }];\n",
		"b.ts":              "let a = 1;\nlet b = 2;\nexport { a, b };\n",
	}, servertest.LoadedWait)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, f := range []struct {
		file  string
		found int
		want  []string
	}{{"a.go", 2, []string{`import "strings"`}}, {"b.ts", 2, []string{"const a = 1;", "const b = 2;"}}} {
		if res := mustCheck(t, o, api.CheckParams{FilePath: f.file}); len(res.Diagnostics) != f.found {
			t.Fatalf("check %s: %+v", f.file, res)
		}
		preview, err := o.FixAll(ctx, api.FixAllParams{File: f.file})
		if err != nil || preview.Applied || preview.Diff == "" || len(preview.Remaining) != f.found {
			t.Fatalf("fix-all preview of %s: %+v %v", f.file, preview, err)
		}
		res, err := o.FixAll(ctx, api.FixAllParams{File: f.file, Apply: true})
		if err != nil || !res.Applied || !res.Checked || len(res.Remaining) != 0 {
			t.Fatalf("fix-all of %s: %+v %v", f.file, res, err)
		}
		data, _ := os.ReadFile(filepath.Join(o.Root(), f.file))
		for _, w := range f.want {
			if !strings.Contains(string(data), w) {
				t.Fatalf("%s after fix-all lacks %q:\n%s\nnote: %s", f.file, w, data, res.Note)
			}
		}
		if strings.Contains(string(data), `"os"`) {
			t.Fatalf("%s still imports os:\n%s", f.file, data)
		}
		t.Logf("%s: %s", f.file, res.Note)
	}
}

// applyTitled lists the actions on line of file (of kinds, when given) and
// applies the first whose title contains title; it returns the answer.
func applyTitled(t *testing.T, o *Service, file string, line int, kinds []string, title string) api.RenameResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	acts, err := o.CodeActions(ctx, api.CodeActionsParams{PositionParams: api.PositionParams{File: file, Line: line}, Kinds: kinds})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts.Actions {
		if strings.Contains(a.Title, title) && a.Disabled == "" {
			r, err := o.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: a.ID, Apply: true})
			if err != nil || !r.Applied {
				t.Fatalf("apply %q: %+v %v", a.Title, r, err)
			}
			return r
		}
	}
	t.Fatalf("no action %q on %s:%d: %+v", title, file, line, acts)
	return api.RenameResult{}
}

// TestCodeActionsGoRefactorsLive: gopls's quick fix for an unused
// variable, its fill-switch and fill-struct rewrites (edits resolved on
// demand), and the missing import the filled switch needs; the file then
// checks clean.
func TestCodeActionsGoRefactorsLive(t *testing.T) {
	servertest.CIOnly(t)
	t.Parallel()
	servertest.Binary(t, "gopls")
	src := "package demo\n\ntype T struct {\n\tA int\n\tB string\n}\n\ntype Color int\n\nconst (\n\tRed Color = iota\n\tGreen\n)\n\n" +
		"func F(c Color) T {\n\tx := 1\n\tswitch c {\n\t}\n\treturn T{}\n}\n"
	o := live(t, map[string]string{"go.mod": servertest.GoMod, "a.go": src}, "")
	read := func() string { return readIn(t, o, "a.go") }
	if res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"}); len(res.Diagnostics) != 1 || !strings.Contains(res.Diagnostics[0].Message, "declared and not used: x") {
		t.Fatalf("check: %+v", res)
	}
	applyTitled(t, o, "a.go", 16, []string{"quickfix"}, "Remove variable x")
	if strings.Contains(read(), "x := 1") {
		t.Fatalf("x is still there:\n%s", read())
	}
	applyTitled(t, o, "a.go", 16, nil, "Add cases for Color") // the switch, now on line 16
	if !strings.Contains(read(), "case Red:") || !strings.Contains(read(), "case Green:") {
		t.Fatalf("the switch is not filled:\n%s", read())
	}
	// The filled switch panics with fmt.Sprintf: the import is missing.
	res := mustCheck(t, o, api.CheckParams{FilePath: "a.go"})
	if len(res.Diagnostics) != 1 || !strings.Contains(res.Diagnostics[0].Message, "undefined: fmt") {
		t.Fatalf("after filling the switch: %+v\n%s", res, read())
	}
	applyTitled(t, o, "a.go", res.Diagnostics[0].Line, []string{"quickfix"}, `"fmt"`)
	line := 0
	for i, l := range strings.Split(read(), "\n") {
		if strings.Contains(l, "return T{}") {
			line = i + 1
		}
	}
	r := applyTitled(t, o, "a.go", line, nil, "Fill T")
	if !strings.Contains(read(), "A: 0,") || !strings.Contains(read(), `B: "",`) {
		t.Fatalf("T is not filled:\n%s", read())
	}
	if len(r.Diagnostics["a.go"]) != 0 {
		t.Fatalf("after the fixes: %+v", r.Diagnostics)
	}
	if res := mustCheck(t, o, api.CheckParams{FilePath: "a.go", Severities: api.Severities}); !res.Checked || len(res.Diagnostics) != 0 {
		t.Fatalf("a.go after the fixes: %+v\n%s", res, read())
	}
}

// TestCodeActionsTypeScriptCleanupLive: typescript-language-server's
// "Remove unused declaration" for an unused local and its organize
// imports (which sorts and combines them; removing unused imports is its
// source.removeUnusedImports); the file then checks clean.
// Refactorings it offers but not on the line are left out of the listing,
// counted; asked for by kind, they are listed with the reason.
func TestCodeActionsTypeScriptCleanupLive(t *testing.T) {
	servertest.CIOnly(t)
	t.Parallel()
	servertest.Binary(t, "typescript-language-server")
	o := live(t, map[string]string{
		"tsconfig.json": `{"compilerOptions":{"strict":true,"noUnusedLocals":true}}`,
		"lib.ts":        "export const a = 1;\nexport const b = 2;\n",
		"a.ts":          "import { b } from \"./lib\";\nimport { a } from \"./lib\";\nfunction f(): number {\n  const unused = 1;\n  return a + b;\n}\nexport { f };\n",
	}, "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	read := func() string { return readIn(t, o, "a.ts") }
	if res := mustCheck(t, o, api.CheckParams{FilePath: "a.ts"}); len(res.Diagnostics) != 1 {
		t.Fatalf("check: %+v", res)
	}
	all, err := o.CodeActions(ctx, api.CodeActionsParams{PositionParams: api.PositionParams{File: "a.ts", Line: 4}})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range all.Actions {
		if a.Disabled != "" {
			t.Fatalf("a disabled action listed unasked: %+v", a)
		}
	}
	if !strings.Contains(all.Note, "not applicable here are left out") {
		t.Fatalf("the refactorings left out are not counted: %+v", all)
	}
	refactors, err := o.CodeActions(ctx, api.CodeActionsParams{PositionParams: api.PositionParams{File: "a.ts", Line: 4}, Kinds: []string{"refactor"}})
	if err != nil {
		t.Fatal(err)
	}
	disabled := 0
	for _, a := range refactors.Actions {
		if a.Disabled != "" {
			disabled++
		}
	}
	if disabled == 0 {
		t.Fatalf("asked for by kind, no refactoring says why it is not applicable: %+v", refactors)
	}
	applyTitled(t, o, "a.ts", 4, []string{"quickfix"}, "Remove unused declaration")
	if strings.Contains(read(), "unused") {
		t.Fatalf("the unused local is still there:\n%s", read())
	}
	r := applyTitled(t, o, "a.ts", 1, []string{"source.organizeImports"}, "Organize Imports")
	if !strings.HasPrefix(read(), "import { a, b } from \"./lib\";\nfunction") {
		t.Fatalf("imports not organized:\n%s", read())
	}
	if len(r.Diagnostics["a.ts"]) != 0 {
		t.Fatalf("after the fixes: %+v", r.Diagnostics)
	}
}

// TestFormatLive: clangd formats a file to exactly clang-format's output
// (the same release, installed beside it); typescript-language-server
// formats with the indentation .editorconfig gives (tabs in one
// directory, two spaces in another, nearer files winning).
func TestFormatLive(t *testing.T) {
	t.Parallel()
	messy := "int  add(int a,int b){return a+b;}\nint main(void){\nint x=add(1,2);\n  return x-3;}\n"
	ts := "export function f(n: number): number {\nif (n > 1) {\nreturn n;\n}\nreturn 0;\n}\n"
	t.Run("clangd", func(t *testing.T) {
		t.Parallel()
		servertest.Binary(t, "clangd")
		clangFormat := servertest.Binary(t, "clang-format-19")
		o := live(t, map[string]string{"compile_flags.txt": "-xc\n-std=c11\n", "a.c": messy}, "")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.Command(clangFormat, "--assume-filename="+filepath.Join(o.Root(), "a.c"))
		cmd.Stdin = strings.NewReader(messy)
		want, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		f, err := o.Format(ctx, api.FormatParams{File: "a.c", Apply: true})
		data, _ := os.ReadFile(filepath.Join(o.Root(), "a.c"))
		if err != nil || !f.Applied || string(data) != string(want) {
			t.Fatalf("format: %+v %v\ngot:\n%s\nwant (clang-format):\n%s", f, err, data, want)
		}
	})
	t.Run("typescript", func(t *testing.T) {
		t.Parallel()
		servertest.Binary(t, "typescript-language-server")
		o := live(t, map[string]string{
			"tsconfig.json":     `{"compilerOptions":{"strict":true}}`,
			".editorconfig":     "root = true\n\n[*]\nindent_style = tab\ninsert_final_newline = true\n",
			"tabs/a.ts":         ts,
			"two/.editorconfig": "[*.ts]\nindent_style = space\nindent_size = 2\n",
			"two/a.ts":          ts,
		}, "")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for _, c := range []struct{ file, indent string }{{"tabs/a.ts", "\t"}, {"two/a.ts", "  "}} {
			want := strings.NewReplacer("\nif", "\n"+c.indent+"if", "\nreturn n", "\n"+c.indent+c.indent+"return n", "\n}\nreturn 0", "\n"+c.indent+"}\n"+c.indent+"return 0").Replace(ts)
			f, err := o.Format(ctx, api.FormatParams{File: c.file, Apply: true})
			data, _ := os.ReadFile(filepath.Join(o.Root(), c.file))
			if err != nil || !f.Applied || string(data) != want {
				t.Fatalf("format %s: %+v %v\ngot:\n%q\nwant:\n%q", c.file, f, err, data, want)
			}
		}
	})
}

// BenchmarkFixAll: a TypeScript file with 20 findings (unused locals,
// each with its preferred quick fix), checked as an agent would, then
// fixed by lsp/fixAll with apply — the fixes combined, written, the file
// re-checked (clean). fixall-ms against the time of one warm check of the
// broken file (check-ms) plus the server's own answers to the requests
// fix-all makes (server-ms: the same code action requests sent to the
// server directly); ratio = fixall-ms / (check-ms + server-ms), target ≤ 1.5.
func BenchmarkFixAll(b *testing.B) {
	servertest.Binary(b, "typescript-language-server")
	var src strings.Builder
	for i := range 20 {
		fmt.Fprintf(&src, "export function f%d(n: number): number {\n  const unused%d = n * 2;\n  return n + %d;\n}\n", i, i, i)
	}
	broken := src.String()
	root := b.TempDir()
	lsptest.WriteFiles(b, root, map[string]string{"tsconfig.json": `{"compilerOptions":{"strict":true,"noUnusedLocals":true}}`, "a.ts": broken})
	o := liveIn(b, root, "")
	ctx := context.Background()
	// Each round's text is new to the server (a comment counts the
	// rounds): its answers are computed, not remembered.
	round := 0
	write := func() {
		round++
		text := fmt.Sprintf("// round %d\n%s", round, broken)
		if err := os.WriteFile(filepath.Join(root, "a.ts"), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var fixes, checks, server []time.Duration
	// check breaks the file (a text the server has not seen) and checks
	// it as an agent would before asking for the fixes.
	check := func() time.Duration {
		write()
		start := time.Now()
		res := mustCheck(b, o, api.CheckParams{FilePath: "a.ts"})
		took := time.Since(start)
		if !res.Checked || len(res.Diagnostics) != 20 {
			b.Fatalf("check: %+v", res)
		}
		return took
	}
	for b.Loop() {
		checks = append(checks, check())
		start := time.Now()
		fixed, err := o.FixAll(ctx, api.FixAllParams{File: "a.ts", Apply: true})
		fixes = append(fixes, time.Since(start))
		if err != nil || !fixed.Applied || !fixed.Checked || len(fixed.Remaining) != 0 {
			b.Fatalf("fix-all: %+v %v", fixed, err)
		}

		// The server's own answers to the requests fix-all makes, for a
		// text it has not answered them for: sent to it directly (the
		// same client, no lspkit in between).
		check()
		ops, err := o.openServers(ctx, "a.ts", "textDocument/codeAction", true)
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		if _, err := o.fixCandidates(ctx, ops[0]); err != nil {
			b.Fatal(err)
		}
		server = append(server, time.Since(start))
		ops[0].Release()
	}
	median := func(ds []time.Duration) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	b.ReportMetric(median(fixes), "fixall-ms")
	b.ReportMetric(median(checks), "check-ms")
	b.ReportMetric(median(server), "server-ms")
	b.ReportMetric(median(fixes)/(median(checks)+median(server)), "ratio")
}
