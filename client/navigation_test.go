package client

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
)

const navLib = `package demo

// Greeter greets.
type Greeter interface{ Greet(name string) string }

// English says hello.
type English struct{}

// Greet greets in English.
func (English) Greet(name string) string { return "hello, " + name }

// Greeting says hello to name.
func Greeting(name string) string { return English{}.Greet(name) }
`

const navUse = `package demo

func Use() string {
	var g Greeter = English{}
	return Greeting("x") + g.Greet("y")
}
`

func TestNavigationGopls(t *testing.T) {
	t.Parallel()
	gopls := servertest.Binary(t, "gopls")
	dir := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n", "lib.go": navLib, "use.go": navUse}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := startClient(ctx, t, Config{Name: "gopls", Command: Command{Path: gopls, Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}}, Root: dir})
	lib, _, err := c.Sync(ctx, filepath.Join(dir, "lib.go"), "go", navLib)
	if err != nil {
		t.Fatal(err)
	}
	use, v, err := c.Sync(ctx, filepath.Join(dir, "use.go"), "go", navUse)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.WaitSettled(ctx, use, v); s != Settled {
		t.Fatalf("use.go: %v", s)
	}
	at := func(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }
	one := func(what string, locs []protocol.Location, err error, uri protocol.DocumentURI, line, char uint32) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(locs) != 1 || locs[0].URI != uri || locs[0].Range.Start != at(line, char) {
			t.Fatalf("%s: %+v, want %s %d:%d", what, locs, uri, line, char)
		}
	}
	locs, err := c.Definition(ctx, use, at(4, 9))
	one("definition of Greeting", locs, err, lib, 12, 5)
	locs, err = c.TypeDefinition(ctx, use, at(3, 5))
	one("type definition of g", locs, err, lib, 3, 5)
	locs, err = c.Implementation(ctx, lib, at(3, 6))
	one("implementation of Greeter", locs, err, lib, 6, 5)

	refs, err := c.References(ctx, lib, at(12, 6), true)
	if err != nil || len(refs) != 2 {
		t.Fatalf("references to Greeting: %+v %v", refs, err)
	}
	if refs, _ := c.References(ctx, lib, at(12, 6), false); len(refs) != 1 || refs[0].URI != use {
		t.Fatalf("references without the declaration: %+v", refs)
	}

	text, ok, err := c.Hover(ctx, use, at(4, 9))
	if err != nil || !ok || !strings.Contains(text, "func Greeting(name string) string") || !strings.Contains(text, "Greeting says hello to name.") {
		t.Fatalf("hover: %v %v %q", ok, err, text)
	}
	if _, ok, err := c.Hover(ctx, use, at(1, 0)); err != nil || ok {
		t.Fatalf("hover on a blank line: %v %v", ok, err)
	}

	syms, err := c.DocumentSymbols(ctx, lib)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]protocol.SymbolKind{}
	var walk func([]Symbol)
	walk = func(ss []Symbol) {
		for _, s := range ss {
			kinds[s.Name] = s.Kind
			walk(s.Children)
		}
	}
	walk(syms)
	if kinds["Greeting"] != protocol.SymbolKindFunction || kinds["Greeter"] != protocol.SymbolKindInterface || kinds["English"] != protocol.SymbolKindStruct {
		t.Fatalf("document symbols: %v", kinds)
	}

	ws, err := c.WorkspaceSymbols(ctx, "Greeting")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range ws {
		if s.Name == "Greeting" && s.URI == lib && s.Range != nil && s.Range.Start.Line == 12 {
			found = true
		}
	}
	if !found {
		t.Fatalf("workspace symbols: %+v", ws)
	}
}

// navFixture is a two-file project for one server: lib defines a function,
// use calls it.
type navFixture struct {
	server, languageID string
	args               []string
	files              map[string]string // name -> text; lib and use among them
	lib, use           string
	def                protocol.Position // the function's name in lib
	call               protocol.Position // its call in use
}

// TestNavigationServers: definition and references across two files on
// TypeScript (both servers), pyright and clangd.
func TestNavigationServers(t *testing.T) {
	t.Parallel()
	tsFiles := map[string]string{
		"tsconfig.json": `{"compilerOptions":{"strict":true}}`,
		"lib.ts":        "export function greeting(name: string): string {\n  return \"hello, \" + name;\n}\n",
		"use.ts":        "import { greeting } from \"./lib\";\nexport const message = greeting(\"x\");\n",
	}
	ts := navFixture{languageID: "typescript", files: tsFiles, lib: "lib.ts", use: "use.ts", def: protocol.Position{Line: 0, Character: 16}, call: protocol.Position{Line: 1, Character: 23}}
	fixtures := []navFixture{}
	tsls, tsc7 := ts, ts
	tsls.server, tsls.args = "typescript-language-server", []string{"--stdio"}
	tsc7.server, tsc7.args = "tsc7", []string{"--lsp", "--stdio"}
	fixtures = append(fixtures, tsls, tsc7, navFixture{
		server: "pyright-langserver", args: []string{"--stdio"}, languageID: "python",
		files: map[string]string{
			"lib.py": "def greeting(name: str) -> str:\n    return \"hello, \" + name\n",
			"use.py": "from lib import greeting\n\nmessage = greeting(\"x\")\n",
		},
		lib: "lib.py", use: "use.py", def: protocol.Position{Line: 0, Character: 4}, call: protocol.Position{Line: 2, Character: 10},
	}, navFixture{
		server: "clangd", languageID: "c",
		files: map[string]string{
			"compile_flags.txt": "-xc\n-std=c11\n", // headers are C too
			"lib.h":             "int greeting(int x);\n",
			"use.c":             "#include \"lib.h\"\n\nint message(void) { return greeting(1); }\n",
		},
		lib: "lib.h", use: "use.c", def: protocol.Position{Line: 0, Character: 4}, call: protocol.Position{Line: 2, Character: 27},
	})
	for _, f := range fixtures {
		t.Run(f.server, func(t *testing.T) {
			bin := servertest.Binary(t, f.server)
			dir := t.TempDir()
			for name, text := range f.files {
				write(t, filepath.Join(dir, name), text)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c := startClient(ctx, t, Config{Name: f.server, Command: Command{Path: bin, Args: f.args}, Root: dir})
			lib, _, err := c.Sync(ctx, filepath.Join(dir, f.lib), f.languageID, f.files[f.lib])
			if err != nil {
				t.Fatal(err)
			}
			use, v, err := c.Sync(ctx, filepath.Join(dir, f.use), f.languageID, f.files[f.use])
			if err != nil {
				t.Fatal(err)
			}
			if s := c.WaitSettled(ctx, use, v); s != Settled {
				t.Fatalf("%s: %v", f.use, s)
			}
			if errs := errorsOf(c.Diagnostics(use)); len(errs) != 0 {
				t.Fatalf("the fixture has errors: %+v", errs)
			}
			locs, err := c.Definition(ctx, use, f.call)
			if err != nil || len(locs) != 1 || locs[0].URI != lib || locs[0].Range.Start != f.def {
				t.Fatalf("definition: %+v %v, want %s %+v", locs, err, lib, f.def)
			}
			refs, err := c.References(ctx, lib, f.def, true)
			if err != nil {
				t.Fatal(err)
			}
			var inLib, atCall bool
			for _, r := range refs {
				inLib = inLib || (r.URI == lib && r.Range.Start == f.def)
				atCall = atCall || (r.URI == use && r.Range.Start == f.call)
			}
			if !inLib || !atCall {
				t.Fatalf("references: %+v, want the declaration and the call", refs)
			}
		})
	}
}
