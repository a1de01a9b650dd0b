package features

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// editsProject is a live project for checked edits: a library file whose
// function's signature changes (lib to changed), its caller (use, and
// used: the caller updated for the change), and a file with an error of
// its own (broken, and fixed: it made clean).
type editsProject struct {
	server              string
	files               map[string]string
	lib, changed        string
	use, used           string
	alsoChanged         map[string]string // other files the change edits with its callers (C: the definition)
	broken, brokenFixed string
	// renameLine and renamed: the line of changed where the function is
	// named, for a rename shown and then written by its preview id ("":
	// not tried — clangd renames across files from its background index).
	renameLine int
	renamed    string
}

var editsProjects = []editsProject{
	{
		server: "gopls",
		files: map[string]string{
			"go.mod":  servertest.GoMod,
			"lib.go":  "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n",
			"use.go":  "package demo\n\nfunc Use() string { return Greeting(\"x\") }\n",
			"more.go": "package demo\n\nfunc More() int { return \"one\" }\n",
		},
		lib: "lib.go", changed: "package demo\n\n// Greeting says hello n times.\nfunc Greeting(name string, n int) string { return \"hello, \" + name }\n",
		use: "use.go", used: "package demo\n\nfunc Use() string { return Greeting(\"x\", 2) }\n",
		broken: "more.go", brokenFixed: "package demo\n\nfunc More() int { return 1 }\n",
		renameLine: 4, renamed: "Salute",
	},
	{
		server: "typescript-language-server",
		files: map[string]string{
			"package.json":  `{"name":"demo","private":true,"type":"module"}`,
			"tsconfig.json": `{"compilerOptions":{"strict":true,"target":"es2022","module":"nodenext"}}`,
			"lib.ts":        "export function greeting(name: string): string {\n  return `hello, ${name}`;\n}\n",
			"use.ts":        "import { greeting } from \"./lib.js\";\n\nexport const n: string = greeting(\"x\");\n",
			"more.ts":       "export const m: number = \"one\";\n",
		},
		lib: "lib.ts", changed: "export function greeting(name: string, n: number): string {\n  return `hello, ${name} ${n}`;\n}\n",
		use: "use.ts", used: "import { greeting } from \"./lib.js\";\n\nexport const n: string = greeting(\"x\", 2);\n",
		broken: "more.ts", brokenFixed: "export const m: number = 1;\n",
		renameLine: 1, renamed: "salute",
	},
	{
		server: "pyright-langserver",
		files: map[string]string{
			"pyproject.toml":  "[project]\nname = \"demo\"\nversion = \"0\"\n",
			"pkg/__init__.py": "",
			"pkg/lib.py":      "def greeting(name: str) -> str:\n    return \"hello, \" + name\n",
			"pkg/use.py":      "from .lib import greeting\n\nn: str = greeting(\"x\")\n",
			"pkg/more.py":     "m: int = \"one\"\n",
		},
		lib: "pkg/lib.py", changed: "def greeting(name: str, n: int) -> str:\n    return \"hello, \" + name * n\n",
		use: "pkg/use.py", used: "from .lib import greeting\n\nn: str = greeting(\"x\", 2)\n",
		broken: "pkg/more.py", brokenFixed: "m: int = 1\n",
		renameLine: 1, renamed: "salute",
	},
	{
		server: "clangd",
		files: map[string]string{
			"compile_flags.txt": "-xc\n-std=c11\n",
			"lib.h":             "int greeting(int x);\n",
			"lib.c":             "#include \"lib.h\"\n\nint greeting(int x) { return x; }\n",
			"use.c":             "#include \"lib.h\"\n\nint use(void) { return greeting(1); }\n",
			"more.c":            "int more(void) { return missing; }\n",
		},
		lib: "lib.h", changed: "int greeting(int x, int y);\n",
		use: "use.c", used: "#include \"lib.h\"\n\nint use(void) { return greeting(1, 2); }\n",
		alsoChanged: map[string]string{"lib.c": "#include \"lib.h\"\n\nint greeting(int x, int y) { return x + y; }\n"},
		broken:      "more.c", brokenFixed: "int more(void) { return 1; }\n",
	},
}

// TestApplyEditsLive, on gopls, typescript-language-server, pyright and
// clangd: a signature change without its callers' updates is refused
// with the callers' new errors, every file byte for byte as it was; sent
// with them it is written and introduces nothing; a fix is written and
// says what it fixed.
func TestApplyEditsLive(t *testing.T) {
	servertest.CIOnly(t)
	t.Parallel()
	for _, p := range editsProjects {
		t.Run(p.server, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, p.server)
			o := live(t, p.files, servertest.LoadedWait)
			root := o.Root()
			ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(3*time.Minute))
			defer cancel()
			hashes := func() map[string]string {
				out := map[string]string{}
				for name := range p.files {
					data, err := os.ReadFile(filepath.Join(root, name))
					if err != nil {
						t.Fatal(err)
					}
					out[name] = hashOf(string(data))
				}
				return out
			}
			apply := func(params api.ApplyEditsParams) api.ApplyEditsResult {
				t.Helper()
				res, err := o.ApplyEdits(ctx, params)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			text := func(s string) *string { return &s }
			// Warm: the servers know the project.
			mustCheck(t, o, api.CheckParams{FilePath: p.use})

			before := hashes()
			res := apply(api.ApplyEditsParams{Edits: []api.FileEdit{{File: p.lib, Text: text(p.changed), Base: before[p.lib]}}})
			named := false
			for _, d := range res.Introduced {
				named = named || d.File == p.use
			}
			if res.Applied || !named || !strings.Contains(res.Reason, "nothing was written") {
				t.Fatalf("the change without its callers: %+v", res)
			}
			if after := hashes(); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("files changed by a refused edit: %v, were %v", after, before)
			}
			t.Logf("refused: %s; introduced %v", res.Reason, res.Introduced)

			edits := []api.FileEdit{
				{File: p.lib, Text: text(p.changed), Base: before[p.lib]},
				{File: p.use, Text: text(p.used), Base: before[p.use]},
			}
			for name, t := range p.alsoChanged {
				edits = append(edits, api.FileEdit{File: name, Text: text(t), Base: before[name]})
			}
			res = apply(api.ApplyEditsParams{Edits: edits})
			if !res.Applied || len(res.Introduced) != 0 || readIn(t, o, p.lib) != p.changed || readIn(t, o, p.use) != p.used {
				t.Fatalf("the change with its callers: %+v", res)
			}

			res = apply(api.ApplyEditsParams{Edits: []api.FileEdit{{File: p.broken, Text: text(p.brokenFixed)}}})
			if !res.Applied || len(res.Fixed) != 1 || len(res.Introduced) != 0 || res.Fixed[0].File != p.broken {
				t.Fatalf("a fix: %+v", res)
			}
			// The servers answer from the written files.
			if got := mustCheck(t, o, api.CheckParams{FilePath: p.use}); !got.Checked || len(got.Diagnostics) != 0 {
				t.Fatalf("the caller after the change: %+v", got)
			}
			if p.renamed == "" {
				return
			}
			// A rename shown, then written by its preview id: checked, and
			// every file it touches renamed.
			name := "Greeting"
			if p.renamed != "Salute" {
				name = "greeting"
			}
			shown, err := o.Rename(ctx, api.RenameParams{PositionParams: api.PositionParams{File: p.lib, Line: p.renameLine, Symbol: name}, NewName: p.renamed})
			if err != nil || shown.Preview == "" || shown.Files != 2 {
				t.Fatalf("the rename's preview: %+v %v", shown, err)
			}
			res = apply(api.ApplyEditsParams{Preview: shown.Preview})
			if !res.Applied || len(res.Introduced) != 0 || !strings.Contains(readIn(t, o, p.use), p.renamed+"(") || !strings.Contains(readIn(t, o, p.lib), p.renamed) {
				t.Fatalf("the rename by its preview: %+v; %s: %q", res, p.use, readIn(t, o, p.use))
			}
		})
	}
}

// TestApplyEditsRacingWriterLive: another program rewrites a file while
// an agent's edit made from the text before is applied, 50 times: the
// edit is refused or goes first, and the file always ends as the other
// program wrote it — never a lost write.
func TestApplyEditsRacingWriterLive(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	o := live(t, map[string]string{"go.mod": servertest.GoMod, "a.go": "package demo\n\nconst A = 0\n"}, servertest.LoadedWait)
	path := filepath.Join(o.Root(), "a.go")
	ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(5*time.Minute))
	defer cancel()
	applied := 0
	for round := range 50 {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ours := fmt.Sprintf("package demo\n\nconst A = %d // ours\n", round)
		writer := fmt.Sprintf("package demo\n\nconst A = %d // writer\n", round)
		write := func() {
			tmp := path + ".writer"
			if err := os.WriteFile(tmp, []byte(writer), 0o644); err != nil {
				t.Error(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Error(err)
			}
		}
		var wg sync.WaitGroup
		if round%2 == 0 {
			write() // after the agent read the file, before its edit
		} else {
			wg.Go(write) // at the same time as its edit
		}
		res, err := o.ApplyEdits(ctx, api.ApplyEditsParams{Edits: []api.FileEdit{{File: "a.go", Text: &ours, Base: hashOf(string(data))}}})
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if res.Applied {
			applied++
		}
		if got := readIn(t, o, "a.go"); got != writer {
			t.Fatalf("round %d: a.go holds %q, not the other program's newer write (the edit: %+v)", round, got, res)
		}
	}
	t.Logf("%d of 50 edits went first (the other program's write then replaced them); the others were refused", applied)
}

// symbolProject is a live project for symbol edits: a method (or
// function) addressed by dotted path, its body replaced; a function
// inserted after it; a helper deleted once its one use is gone.
type symbolProject struct {
	server   string
	files    map[string]string
	file     string
	method   string // dotted path
	body     string // its new body
	newBody  string // what the file then holds
	after    string // inserted after the method
	helper   string // used once, by user
	user     string // the function using helper
	userBody string // user's body without helper
}

var symbolProjects = []symbolProject{
	{
		server: "gopls",
		files:  map[string]string{"go.mod": servertest.GoMod, "shop.go": "package demo\n\n// Cart holds items.\ntype Cart struct{ n int }\n\n// Total counts the items.\nfunc (c *Cart) Total() int {\n\treturn c.n\n}\n\nfunc helper() int { return 1 }\n\nfunc user() int { return helper() }\n"},
		file:   "shop.go", method: "Cart.Total", body: "{\n\treturn c.n * 2\n}", newBody: "func (c *Cart) Total() int {\n\treturn c.n * 2\n}",
		after: "// Empty reports an empty cart.\nfunc (c *Cart) Empty() bool { return c.n == 0 }\n", helper: "helper", user: "user", userBody: "{ return 2 }",
	},
	{
		server: "typescript-language-server",
		files: map[string]string{
			"package.json":  `{"name":"demo","private":true,"type":"module"}`,
			"tsconfig.json": `{"compilerOptions":{"strict":true,"target":"es2022","module":"nodenext"}}`,
			"shop.ts":       "export class Cart {\n  n = 0;\n  total(): number {\n    return this.n;\n  }\n}\n\nfunction helper(): number {\n  return 1;\n}\n\nexport function user(): number {\n  return helper();\n}\n",
		},
		file: "shop.ts", method: "Cart.total", body: "{\n    return this.n * 2;\n  }", newBody: "  total(): number {\n    return this.n * 2;\n  }",
		after: "  empty(): boolean {\n    return this.n === 0;\n  }\n", helper: "helper", user: "user", userBody: "{\n  return 2;\n}",
	},
	{
		server: "pyright-langserver",
		files: map[string]string{
			"pyproject.toml": "[project]\nname = \"demo\"\nversion = \"0\"\n",
			"shop.py":        "class Cart:\n    def __init__(self) -> None:\n        self.n = 0\n\n    def total(self) -> int:\n        return self.n\n\n\ndef helper() -> int:\n    return 1\n\n\ndef user() -> int:\n    return helper()\n",
		},
		file: "shop.py", method: "Cart.total", body: "        return self.n * 2", newBody: "    def total(self) -> int:\n        return self.n * 2",
		after: "\n    def empty(self) -> bool:\n        return self.n == 0\n", helper: "helper", user: "user", userBody: "    return 2",
	},
	{
		server: "clangd",
		files: map[string]string{
			"compile_flags.txt": "-xc\n-std=c11\n",
			"shop.c":            "struct cart { int n; };\n\nint cart_total(struct cart *c) {\n  return c->n;\n}\n\nstatic int helper(void) { return 1; }\n\nint user(void) { return helper(); }\n",
		},
		file: "shop.c", method: "cart_total", body: "{\n  return c->n * 2;\n}", newBody: "int cart_total(struct cart *c) {\n  return c->n * 2;\n}",
		after: "\nint cart_empty(struct cart *c) { return c->n == 0; }\n", helper: "helper", user: "user", userBody: "{ return 2; }",
	},
}

// TestSymbolEditsLive, on gopls, typescript-language-server, pyright and
// clangd: a method's body replaced, addressed by its dotted path; a
// function inserted after it; a helper's safe delete refused while a
// function uses it, naming the use, then done once the use is gone.
func TestSymbolEditsLive(t *testing.T) {
	servertest.CIOnly(t)
	t.Parallel()
	for _, p := range symbolProjects {
		t.Run(p.server, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, p.server)
			o := live(t, p.files, servertest.LoadedWait)
			ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(3*time.Minute))
			defer cancel()
			mustCheck(t, o, api.CheckParams{FilePath: p.file})
			must := func(what string) func(api.SymbolEditResult, error) api.SymbolEditResult {
				return func(res api.SymbolEditResult, err error) api.SymbolEditResult {
					t.Helper()
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					return res
				}
			}
			res := must("replace body")(o.ReplaceSymbolBody(ctx, api.SymbolEditParams{PositionParams: api.PositionParams{Symbol: p.method}, Body: p.body}))
			if !res.Applied || !strings.Contains(readIn(t, o, p.file), p.newBody) {
				t.Fatalf("replace the body of %s: %+v\n%s", p.method, res, readIn(t, o, p.file))
			}
			res = must("insert after")(o.InsertAfterSymbol(ctx, api.SymbolEditParams{PositionParams: api.PositionParams{Symbol: p.method}, Text: p.after}))
			if !res.Applied || !strings.Contains(readIn(t, o, p.file), p.newBody+"\n"+p.after) {
				t.Fatalf("insert after %s: %+v\n%s", p.method, res, readIn(t, o, p.file))
			}
			before := readIn(t, o, p.file)
			res = must("safe delete")(o.SafeDelete(ctx, api.SymbolEditParams{PositionParams: api.PositionParams{Symbol: p.helper, File: p.file}}))
			if res.Applied || len(res.References) != 1 || readIn(t, o, p.file) != before {
				t.Fatalf("safe delete of %s while used: %+v", p.helper, res)
			}
			res = must("replace the user")(o.ReplaceSymbolBody(ctx, api.SymbolEditParams{PositionParams: api.PositionParams{Symbol: p.user, File: p.file}, Body: p.userBody}))
			if !res.Applied {
				t.Fatalf("replace the body of %s: %+v\n%s", p.user, res, readIn(t, o, p.file))
			}
			res = must("safe delete")(o.SafeDelete(ctx, api.SymbolEditParams{PositionParams: api.PositionParams{Symbol: p.helper, File: p.file}}))
			if !res.Applied || strings.Contains(readIn(t, o, p.file), p.helper+"(") {
				t.Fatalf("safe delete of %s unused: %+v\n%s", p.helper, res, readIn(t, o, p.file))
			}
			if got := mustCheck(t, o, api.CheckParams{FilePath: p.file}); !got.Checked || len(got.Diagnostics) != 0 {
				t.Fatalf("the file after the edits: %+v\n%s", got, readIn(t, o, p.file))
			}
			t.Logf("%s after the edits:\n%s", p.file, readIn(t, o, p.file))
		})
	}
}
