package features

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/batch"
	"github.com/lspkit/lspkit/transport"
)

// typeInfoProject is a project of one language for the type-information
// tools and addressing: a Shape with an area, implemented by Square and
// Circle (so that `area` alone is ambiguous), a function total(shapes,
// scale) and one() that calls it.
type typeInfoProject struct {
	server, binary string
	files          map[string]string
	// names as the language writes them
	total, one, area, square string
	// the use file: total is declared on totalLine; one's body holds
	// the call of total on callLine, where "(" opens its arguments, and
	// a use of sq's members on memberLine
	use                          string
	totalLine, oneLine, callLine int
	memberLine                   int
	shapeFile                    string
	squareAreaLine, squareLine   int
	declaration                  string // "file:line" of total's declaration from its call; "" not offered
	inlay, typeHierarchy         bool   // the server offers them
	hintsWant                    []string
	completionWant               string
}

func typeInfoProjects() []typeInfoProject {
	return []typeInfoProject{
		{
			server: "gopls", binary: "gopls",
			files: map[string]string{
				"go.mod": servertest.GoMod,
				"shape.go": "package demo\n\n// Shape has an area.\ntype Shape interface {\n\tArea() int\n}\n\n// Square is a Shape.\ntype Square struct{ Side int }\n\n" +
					"// Area is the square's area.\nfunc (s Square) Area() int { return s.Side * s.Side }\n\n// Circle is a Shape.\ntype Circle struct{ R int }\n\n" +
					"// Area is the circle's area.\nfunc (c Circle) Area() int { return 3 * c.R * c.R }\n",
				"use.go": "package demo\n\n// Total sums the areas, scaled.\nfunc Total(shapes []Shape, scale int) int {\n\tn := 0\n\tfor _, s := range shapes {\n\t\tn += s.Area() * scale\n\t}\n\treturn n\n}\n\n" +
					"// One totals one square.\nfunc One() int {\n\tsq := Square{Side: 2}\n\tsum := Total([]Shape{sq}, 2)\n\treturn sum + sq.Area()\n}\n",
			},
			total: "Total", one: "One", area: "Area", square: "Square",
			use: "use.go", totalLine: 4, oneLine: 13, callLine: 15, memberLine: 16,
			shapeFile: "shape.go", squareAreaLine: 12, squareLine: 9,
			inlay: true, typeHierarchy: true, hintsWant: []string{"(«shapes:» []Shape{sq}, «scale:» 2)", "sum «int» :="}, completionWant: "Area",
		},
		{
			server: "typescript", binary: "typescript-language-server",
			files: map[string]string{
				"package.json":  `{"name": "demo", "private": true}`,
				"tsconfig.json": `{"compilerOptions": {"strict": true, "module": "commonjs", "target": "es2020"}}`,
				"shape.ts": "export interface Shape {\n  area(): number;\n}\n\nexport class Square implements Shape {\n  constructor(public side: number) {}\n  area(): number {\n    return this.side * this.side;\n  }\n}\n\n" +
					"export class Circle implements Shape {\n  constructor(public r: number) {}\n  area(): number {\n    return 3 * this.r * this.r;\n  }\n}\n",
				"use.ts": "import { Shape, Square } from './shape';\n\nexport function total(shapes: Shape[], scale: number): number {\n  let n = 0;\n  for (const s of shapes) {\n    n += s.area() * scale;\n  }\n  return n;\n}\n\n" +
					"export function one(): number {\n  const sq = new Square(2);\n  const sum = total([sq], 2);\n  return sum + sq.area();\n}\n",
			},
			total: "total", one: "one", area: "area", square: "Square",
			use: "use.ts", totalLine: 3, oneLine: 11, callLine: 13, memberLine: 14,
			shapeFile: "shape.ts", squareAreaLine: 7, squareLine: 5,
			inlay: true, hintsWant: []string{"total(«shapes:» [sq], «scale:» 2)", "const sum «: number» ="}, completionWant: "area",
		},
		{
			server: "pyright", binary: "pyright-langserver",
			files: map[string]string{
				"pyproject.toml": "[project]\nname = \"demo\"\n",
				"shape.py": "class Shape:\n    def area(self) -> int:\n        raise NotImplementedError\n\n\nclass Square(Shape):\n    def __init__(self, side: int) -> None:\n        self.side = side\n\n    def area(self) -> int:\n        return self.side * self.side\n\n\n" +
					"class Circle(Shape):\n    def __init__(self, r: int) -> None:\n        self.r = r\n\n    def area(self) -> int:\n        return 3 * self.r * self.r\n",
				"use.py": "from shape import Shape, Square\n\n\ndef total(shapes: list[Shape], scale: int) -> int:\n    n = 0\n    for s in shapes:\n        n += s.area() * scale\n    return n\n\n\n" +
					"def one() -> int:\n    sq = Square(2)\n    sum_ = total([sq], 2)\n    return sum_ + sq.area()\n",
			},
			total: "total", one: "one", area: "area", square: "Square",
			use: "use.py", totalLine: 4, oneLine: 11, callLine: 13, memberLine: 14,
			shapeFile: "shape.py", squareAreaLine: 10, squareLine: 6,
			declaration: "use.py:4", completionWant: "area",
		},
		{
			server: "clangd", binary: "clangd",
			files: map[string]string{
				"compile_commands.json": `[{"directory": "${ROOT}", "file": "shape.cc", "arguments": ["c++", "-std=c++17", "-c", "shape.cc"]},
  {"directory": "${ROOT}", "file": "use.cc", "arguments": ["c++", "-std=c++17", "-c", "use.cc"]}]`,
				"shape.h": "struct Shape {\n  virtual int area() const = 0;\n};\n\nstruct Square : Shape {\n  int side;\n  explicit Square(int s) : side(s) {}\n  int area() const override;\n};\n\n" +
					"struct Circle : Shape {\n  int r;\n  explicit Circle(int r) : r(r) {}\n  int area() const override;\n};\n\nint total(const Shape *const *shapes, int n, int scale);\n",
				"shape.cc": "#include \"shape.h\"\n\nint Square::area() const { return side * side; }\nint Circle::area() const { return 3 * r * r; }\n",
				"use.cc": "#include \"shape.h\"\n\nint total(const Shape *const *shapes, int n, int scale) {\n  int t = 0;\n  for (int i = 0; i < n; i++) {\n    t += shapes[i]->area() * scale;\n  }\n  return t;\n}\n\n" +
					"int one() {\n  Square sq(2);\n  const Shape *all[] = {&sq};\n  auto sum = total(all, 1, 2);\n  return sum + sq.area();\n}\n",
			},
			total: "total", one: "one", area: "area", square: "Square",
			use: "use.cc", totalLine: 3, oneLine: 11, callLine: 14, memberLine: 15,
			shapeFile: "shape.h", squareAreaLine: 8, squareLine: 5,
			declaration: "shape.h:17", inlay: true, typeHierarchy: true, hintsWant: []string{"total(«shapes:» all, «n:» 1, «scale:» 2)", "auto sum«: int» ="}, completionWant: "area",
		},
	}
}

// unresolvedOf returns err's CodeUnresolved data, and whether it is one.
func unresolvedOf(err error) (api.Unresolved, bool) {
	var data api.Unresolved
	e, ok := errors.AsType[*transport.Error](err)
	if !ok || e.Code != api.CodeUnresolved {
		return data, false
	}
	return data, json.Unmarshal(e.Data, &data) == nil
}

// TestTypeInfoLive: addressing by name (unique, dotted, in a file,
// ambiguous with candidates, a line 3 off, an unknown name with the
// nearest) and the type-information tools — declaration, highlights,
// signature help, inlay hints, type hierarchy, completion, symbol context
// — and a batch of them, on gopls, typescript-language-server, pyright
// and clangd; a tool the server does not offer is said so.
func TestTypeInfoLive(t *testing.T) {
	t.Parallel()
	for _, p := range typeInfoProjects() {
		t.Run(p.server, func(t *testing.T) {
			t.Parallel()
			servertest.Binary(t, p.binary)
			o, _ := liveProject(t, p.files)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			lines := strings.Split(p.files[p.use], "\n")
			// col is the 1-based column just after the first sub on line.
			col := func(line int, sub string) int {
				i := strings.Index(lines[line-1], sub)
				if i < 0 {
					t.Fatalf("%q not on line %d of %s", sub, line, p.use)
				}
				return len([]rune(lines[line-1][:i+len(sub)])) + 1
			}
			at := func(res api.LocationsResult, err error, file string, line int, what string) {
				t.Helper()
				if err != nil || !slices.ContainsFunc(res.Locations, func(l api.Location) bool { return l.File == file && l.Line == line }) {
					t.Errorf("%s: %+v, %v; want %s:%d", what, res, err, file, line)
				}
			}

			// Addressing.
			res, err := o.Definition(ctx, api.PositionParams{Symbol: p.total})
			if p.server == "clangd" {
				// At a definition clangd's definition is its declaration.
				at(res, err, "shape.h", 17, "definition of "+p.total+" by name")
			} else {
				at(res, err, p.use, p.totalLine, "definition of "+p.total+" by name")
			}
			if want := fmt.Sprintf("%s at %s:%d:", p.total, p.use, p.totalLine); err == nil && (!strings.Contains(res.Note, want) || !strings.Contains(res.Note, "resolved to function")) {
				t.Errorf("by name: the note does not say where it resolved (%s): %q", want, res.Note)
			}
			res, err = o.Definition(ctx, api.PositionParams{Symbol: p.square + "." + p.area})
			at(res, err, p.shapeFile, p.squareAreaLine, "definition of "+p.square+"."+p.area)
			res, err = o.Definition(ctx, api.PositionParams{File: p.use, Symbol: p.one})
			at(res, err, p.use, p.oneLine, "definition of "+p.one+" in "+p.use)
			_, err = o.Hover(ctx, api.PositionParams{Symbol: p.area})
			if data, ok := unresolvedOf(err); !ok || len(data.Candidates) < 3 || !strings.Contains(err.Error(), "ambiguous") {
				t.Errorf("%s alone: %v (%+v); want it ambiguous with its candidates", p.area, err, data)
			}
			res, err = o.References(ctx, api.PositionParams{File: p.use, Line: p.totalLine + 3, Symbol: p.total})
			if err != nil || !strings.Contains(res.Note, "used line "+fmt.Sprint(p.totalLine)) || len(res.Locations) < 2 {
				t.Errorf("references with the line 3 off: %+v, %v", res, err)
			}
			_, err = o.Hover(ctx, api.PositionParams{Symbol: p.total + "s"})
			if data, ok := unresolvedOf(err); !ok || !slices.Contains(data.Nearest, p.total) {
				t.Errorf("an unknown name: %v (%+v); want %s among the nearest", err, data, p.total)
			}

			// Declaration.
			call := api.PositionParams{File: p.use, Line: p.callLine, Symbol: p.total}
			res, err = o.Declaration(ctx, call)
			if p.declaration == "" {
				if err == nil || !strings.Contains(err.Error(), "does not offer textDocument/declaration") {
					t.Errorf("declaration: %+v, %v; want the server named as not offering it", res, err)
				}
			} else {
				file, line, _ := strings.Cut(p.declaration, ":")
				var n int
				fmt.Sscan(line, &n)
				at(res, err, file, n, "declaration")
			}

			// Highlights: total in its own file, declared and called.
			hs, err := o.DocumentHighlights(ctx, call)
			if err != nil || len(hs.Highlights) < 2 || !slices.ContainsFunc(hs.Highlights, func(h api.Highlight) bool { return h.Line == p.totalLine }) {
				t.Errorf("highlights: %+v, %v", hs, err)
			}

			// Signature help inside the call, at its second argument.
			sig, err := o.SignatureHelp(ctx, api.PositionParams{File: p.use, Line: p.callLine, Character: col(p.callLine, ", ")})
			if err != nil || len(sig.Signatures) == 0 || !strings.Contains(sig.Signatures[0].Label, "scale") ||
				sig.Signatures[0].ActiveParameter == nil || !strings.Contains(sig.Signatures[0].Parameters[*sig.Signatures[0].ActiveParameter], "shapes") &&
				!strings.Contains(sig.Signatures[0].Parameters[*sig.Signatures[0].ActiveParameter], "n") {
				t.Errorf("signature help: %+v, %v", sig, err)
			}

			// Inlay hints over one's body.
			hints, err := o.InlayHints(ctx, api.InlayHintsParams{File: p.use, StartLine: p.oneLine, EndLine: p.memberLine})
			switch {
			case !p.inlay:
				if err == nil || !strings.Contains(err.Error(), "does not offer textDocument/inlayHint") {
					t.Errorf("inlay hints: %+v, %v; want the server named as not offering them", hints, err)
				}
			case err != nil:
				t.Errorf("inlay hints: %v", err)
			default:
				for _, w := range p.hintsWant {
					if !strings.Contains(hints.Text, w) {
						t.Errorf("inlay hints: no %s in\n%s(%+v)", w, hints.Text, hints.Hints)
					}
				}
			}

			// Type hierarchy: Square's supertypes hold Shape.
			th, err := o.TypeHierarchy(ctx, api.TypeHierarchyParams{PositionParams: api.PositionParams{File: p.shapeFile, Line: p.squareLine, Symbol: p.square}, Direction: api.DirectionSupertypes})
			switch {
			case !p.typeHierarchy:
				if err == nil || !strings.Contains(err.Error(), "does not offer textDocument/prepareTypeHierarchy") {
					t.Errorf("type hierarchy: %+v, %v; want the server named as not offering it", th, err)
				}
			case err != nil || !slices.ContainsFunc(th.Types, func(tl api.TypeLocation) bool { return tl.Name == "Shape" && tl.File == p.shapeFile }):
				t.Errorf("type hierarchy: %+v, %v; want Shape", th, err)
			}

			// Completion after "sq.".
			cp, err := o.Completion(ctx, api.CompletionParams{PositionParams: api.PositionParams{File: p.use, Line: p.memberLine, Character: col(p.memberLine, "sq.")}, Limit: 50})
			if err != nil || !slices.ContainsFunc(cp.Items, func(c api.CompletionItem) bool {
				return c.Label == p.completionWant || strings.HasPrefix(c.Label, p.completionWant+"(")
			}) {
				t.Errorf("completion after sq.: %+v, %v; want %s", cp, err, p.completionWant)
			}
			cp, err = o.Completion(ctx, api.CompletionParams{PositionParams: api.PositionParams{File: p.use, Line: p.memberLine, Character: col(p.memberLine, "sq.")}, Prefix: p.completionWant[:2], Limit: 5, Resolve: true})
			if err != nil || len(cp.Items) == 0 || !strings.HasPrefix(strings.ToLower(cp.Items[0].Label), strings.ToLower(p.completionWant[:2])) {
				t.Errorf("completion with a prefix: %+v, %v", cp, err)
			}

			// A batch of them at once (service/batch, as lsp/batch and
			// lsp_batch ask it): each answered as alone, in order.
			questions := []func(context.Context) (any, error){
				func(ctx context.Context) (any, error) { return o.Definition(ctx, api.PositionParams{Symbol: p.total}) },
				func(ctx context.Context) (any, error) { return o.Hover(ctx, call) },
				func(ctx context.Context) (any, error) { return o.References(ctx, call) },
				func(ctx context.Context) (any, error) { return o.DocumentHighlights(ctx, call) },
				func(ctx context.Context) (any, error) { return o.Declaration(ctx, call) },
				func(ctx context.Context) (any, error) {
					return o.SignatureHelp(ctx, api.PositionParams{File: p.use, Line: p.callLine, Character: col(p.callLine, ", ")})
				},
				func(ctx context.Context) (any, error) {
					return o.Completion(ctx, api.CompletionParams{PositionParams: api.PositionParams{File: p.use, Line: p.memberLine, Character: col(p.memberLine, "sq.")}})
				},
				func(ctx context.Context) (any, error) { return o.SymbolContext(ctx, api.PositionParams{Symbol: p.one}) },
			}
			answers, err := batch.Run(ctx, questions, func(ctx context.Context, q func(context.Context) (any, error)) (any, error) { return q(ctx) })
			if err != nil || len(answers) != len(questions) {
				t.Fatalf("batch: %d answers, %v", len(answers), err)
			}
			for i, a := range answers {
				switch {
				case i == 4 && p.declaration == "":
					if a.Error == nil || !strings.Contains(a.Error.Message, "does not offer textDocument/declaration") {
						t.Errorf("batch answer %d: %+v; want the declaration named as not offered", i+1, a)
					}
				case a.Error != nil:
					t.Errorf("batch answer %d: %+v", i+1, a.Error)
				}
			}
			if r, ok := answers[2].Result.(api.LocationsResult); !ok || len(r.Locations) < 2 {
				t.Errorf("batch answer 3 (references): %+v", answers[2])
			}
			if r, ok := answers[7].Result.(api.SymbolContextResult); !ok || r.Definition == nil || r.Definition.Line != p.oneLine {
				t.Errorf("batch answer 8 (symbol context of %s): %+v", p.one, answers[7])
			}

			// The symbol's context, by name.
			sc, err := o.SymbolContext(ctx, api.PositionParams{Symbol: p.total})
			if err != nil || sc.Definition == nil || sc.Definition.Line != p.totalLine || !strings.Contains(sc.Source, p.total+"(") ||
				sc.ReferencesTotal < 2 || len(sc.Missing) > 0 ||
				!slices.ContainsFunc(sc.Callers, func(c api.Call) bool { return strings.Contains(c.Name, p.one) && c.Line == p.callLine }) {
				t.Errorf("symbol context: %+v, %v", sc, err)
			}
		})
	}
}
