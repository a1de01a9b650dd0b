package features

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// toolProjects hold, per server, an interface (or type) with an
// implementation, a function `total` called by `one`, and a method or
// function `area` used across files.
var toolProjects = []struct {
	server, binary string
	files          map[string]string
	// where to ask
	iface, variable, total, one, area api.PositionParams
	square                            api.PositionParams // where Square is declared
	// what to expect
	impls       []string // the implementation as "file:line", any of these; none: the server offers no implementations
	typeDefFile string
	typeDefLine int
	outgoing    bool // the server offers outgoing calls
	renameFiles int
	renameEdits int
	// renamedSource is the line of one that calls area after area was
	// renamed to surface. (The new name's length differs: clang reuses a
	// preamble whose header changed on disk to the same size within the
	// same second, as its check compares sizes and whole-second times.)
	renamedSource string
}{
	{
		server: "typescript", binary: "typescript-language-server",
		files: map[string]string{
			"package.json":  `{"name": "demo", "private": true}`,
			"tsconfig.json": `{"compilerOptions": {"strict": true, "module": "commonjs", "target": "es2020"}}`,
			"shape.ts":      "export interface Shape {\n  area(): number;\n}\n\nexport class Square implements Shape {\n  constructor(public side: number) {}\n  area(): number {\n    return this.side * this.side;\n  }\n}\n",
			"use.ts":        "import { Shape, Square } from './shape';\n\nexport function total(shapes: Shape[]): number {\n  let n = 0;\n  for (const s of shapes) {\n    n += s.area();\n  }\n  return n;\n}\n\nexport function one(): number {\n  const sq = new Square(2);\n  return total([sq]) + sq.area();\n}\n",
		},
		iface: api.PositionParams{File: "shape.ts", Line: 1, Symbol: "Shape"}, variable: api.PositionParams{File: "use.ts", Line: 12, Symbol: "sq"},
		total: api.PositionParams{File: "use.ts", Line: 3, Symbol: "total"}, one: api.PositionParams{File: "use.ts", Line: 11, Symbol: "one"},
		area: api.PositionParams{File: "shape.ts", Line: 2, Symbol: "area"}, square: api.PositionParams{File: "shape.ts", Line: 5},
		impls: []string{"shape.ts:5"}, typeDefFile: "shape.ts", typeDefLine: 5, outgoing: true,
		renameFiles: 2, renameEdits: 4, renamedSource: "return total([sq]) + sq.surface();",
	},
	{
		server: "pyright", binary: "pyright-langserver",
		files: map[string]string{
			"pyproject.toml": "[project]\nname = \"demo\"\n",
			"shape.py":       "class Square:\n    def __init__(self, side: int) -> None:\n        self.side = side\n\n    def area(self) -> int:\n        return self.side * self.side\n",
			"use.py":         "from shape import Square\n\n\ndef total(shapes: list[Square]) -> int:\n    n = 0\n    for s in shapes:\n        n += s.area()\n    return n\n\n\ndef one() -> int:\n    sq = Square(2)\n    return total([sq]) + sq.area()\n",
		},
		iface: api.PositionParams{File: "shape.py", Line: 1, Symbol: "Square"}, variable: api.PositionParams{File: "use.py", Line: 12, Symbol: "sq"},
		total: api.PositionParams{File: "use.py", Line: 4, Symbol: "total"}, one: api.PositionParams{File: "use.py", Line: 11, Symbol: "one"},
		area: api.PositionParams{File: "shape.py", Line: 5, Symbol: "area"}, square: api.PositionParams{File: "shape.py", Line: 1},
		typeDefFile: "shape.py", typeDefLine: 1, outgoing: true,
		renameFiles: 2, renameEdits: 3, renamedSource: "return total([sq]) + sq.surface()",
	},
	{
		server: "clangd", binary: "clangd",
		files: map[string]string{
			"compile_commands.json": `[{"directory": "${ROOT}", "file": "shape.cc", "arguments": ["c++", "-std=c++17", "-c", "shape.cc"]},
  {"directory": "${ROOT}", "file": "use.cc", "arguments": ["c++", "-std=c++17", "-c", "use.cc"]}]`,
			"shape.h":  "struct Shape {\n  virtual int area() const = 0;\n};\n\nstruct Square : Shape {\n  int side;\n  explicit Square(int s) : side(s) {}\n  int area() const override;\n};\n",
			"shape.cc": "#include \"shape.h\"\n\nint Square::area() const { return side * side; }\n",
			"use.cc":   "#include \"shape.h\"\n\nint total(const Shape *const *shapes, int n) {\n  int t = 0;\n  for (int i = 0; i < n; i++) {\n    t += shapes[i]->area();\n  }\n  return t;\n}\n\nint one() {\n  Square sq(2);\n  const Shape *all[] = {&sq};\n  return total(all, 1) + sq.area();\n}\n",
		},
		iface: api.PositionParams{File: "shape.h", Line: 2, Symbol: "area"}, variable: api.PositionParams{File: "use.cc", Line: 12, Symbol: "sq"},
		total: api.PositionParams{File: "use.cc", Line: 3, Symbol: "total"}, one: api.PositionParams{File: "use.cc", Line: 11, Symbol: "one"},
		area: api.PositionParams{File: "shape.h", Line: 2, Symbol: "area"}, square: api.PositionParams{File: "shape.h", Line: 5},
		// the override's declaration, or its definition once indexed
		impls:       []string{"shape.h:8", "shape.cc:3"},
		typeDefFile: "shape.h", typeDefLine: 5,
		renameFiles: 3, renameEdits: 5, renamedSource: "return total(all, 1) + sq.surface();",
	},
}

// TestToolsLive: workspace symbols on a fresh daemon (the server started
// because its root marker is at the root, and a symbol found in a file
// nobody opened), implementations, type definitions, call hierarchy and
// rename against TypeScript, pyright and clangd (gopls: the MCP tests).
func TestToolsLive(t *testing.T) {
	t.Parallel()
	for _, p := range toolProjects {
		t.Run(p.server, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, p.binary)
			o, root := liveProject(t, p.files)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()

			ws, err := o.WorkspaceSymbols(ctx, api.QueryParams{Query: "Square"})
			if err != nil || !slices.ContainsFunc(ws.Symbols, func(s api.WorkspaceSymbol) bool {
				return s.Name == "Square" && s.File == p.square.File && s.Range.StartLine == p.square.Line
			}) {
				t.Errorf("workspace symbols on a fresh daemon: %+v, %v; want Square at %s:%d", ws, err, p.square.File, p.square.Line)
			}

			impl, err := o.Implementation(ctx, p.iface)
			switch {
			case len(p.impls) == 0:
				if err == nil || !strings.Contains(err.Error(), p.server+" does not offer textDocument/implementation") {
					t.Errorf("implementation: %+v, %v; want the server to be named as not offering it", impl, err)
				}
			case err != nil:
				t.Errorf("implementation: %v", err)
			case !slices.ContainsFunc(impl.Locations, func(l api.Location) bool { return slices.Contains(p.impls, fmt.Sprintf("%s:%d", l.File, l.Line)) }):
				t.Errorf("implementation: %+v, want one of %v", impl, p.impls)
			}

			def, err := o.TypeDefinition(ctx, p.variable)
			if err != nil || len(def.Locations) != 1 || def.Locations[0].File != p.typeDefFile || def.Locations[0].Line != p.typeDefLine {
				t.Errorf("type definition: %+v, %v; want %s:%d", def, err, p.typeDefFile, p.typeDefLine)
			}

			in, err := o.CallHierarchy(ctx, api.CallHierarchyParams{PositionParams: p.total, Direction: api.DirectionIncoming})
			if err != nil || !slices.ContainsFunc(in.Calls, func(c api.Call) bool {
				return strings.Contains(c.Name, "one") && c.File == p.one.File && c.Line > p.one.Line && strings.Contains(c.Source, "total(")
			}) {
				t.Errorf("incoming calls: %+v, %v", in, err)
			}
			out, err := o.CallHierarchy(ctx, api.CallHierarchyParams{PositionParams: p.one, Direction: api.DirectionOutgoing})
			if p.outgoing {
				if err != nil || !slices.ContainsFunc(out.Calls, func(c api.Call) bool {
					return strings.Contains(c.Name, "total") && c.File == p.total.File && c.Line == p.total.Line
				}) {
					t.Errorf("outgoing calls: %+v, %v", out, err)
				}
			} else if err == nil && len(out.Calls) > 0 {
				t.Logf("outgoing calls now offered: %+v", out)
			}

			preview, err := o.Rename(ctx, api.RenameParams{PositionParams: p.area, NewName: "surface"})
			if err != nil || preview.Applied || preview.Files != p.renameFiles || preview.Edits != p.renameEdits || !strings.Contains(preview.Diff, "+++ b/"+p.area.File+"\n") {
				t.Fatalf("rename preview: %+v, %v; want %d edits in %d files", preview, err, p.renameEdits, p.renameFiles)
			}
			before, _ := os.ReadFile(filepath.Join(root, p.one.File))
			if strings.Contains(string(before), "surface") {
				t.Fatal("the preview wrote")
			}
			done, err := o.Rename(ctx, api.RenameParams{PositionParams: p.area, NewName: "surface", Apply: true})
			if err != nil || !done.Applied || len(done.Diagnostics) != 0 {
				t.Fatalf("rename: %+v, %v", done, err)
			}
			after, _ := os.ReadFile(filepath.Join(root, p.one.File))
			if !strings.Contains(string(after), p.renamedSource) {
				t.Fatalf("%s after the rename:\n%s", p.one.File, after)
			}
			// The server answers from the renamed files.
			refs, err := o.References(ctx, api.PositionParams{File: p.area.File, Line: p.area.Line, Symbol: "surface"})
			if err != nil || !slices.ContainsFunc(refs.Locations, func(l api.Location) bool { return l.File == p.one.File && strings.Contains(l.Source, "surface()") }) {
				t.Fatalf("references after the rename: %+v, %v", refs, err)
			}
		})
	}
}
