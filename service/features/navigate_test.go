package features

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// TestNavigation: definition, references, implementation, type definition,
// hover and symbols against gopls, 1-based and in code points (é🙂 precede
// the call on its line).
func TestNavigation(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	o := live(t, map[string]string{
		"go.mod": servertest.GoMod,
		"lib.go": "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n\n" +
			"// Greeter greets.\ntype Greeter interface{ Greet() string }\n\n// English says hello.\ntype English struct{}\n\n" +
			"// Greet greets in English.\nfunc (English) Greet() string { return \"hello\" }\n",
		"use.go": "package demo\n\nfunc Use() string { _ = \"é🙂\"; return Greeting(\"x\") }\n\nvar g Greeter = English{}\n",
	}, "")
	ctx := context.Background()
	at := func(file string, line, char int) api.PositionParams {
		return api.PositionParams{File: file, Line: line, Character: char}
	}
	res, err := o.Definition(ctx, at("use.go", 3, 38))
	if err != nil || len(res.Locations) != 1 || res.Locations[0] != (api.Location{File: "lib.go", Line: 4, Character: 6, EndLine: 4, EndCharacter: 14, Source: `func Greeting(name string) string { return "hello, " + name }`}) {
		t.Fatalf("definition: %+v %v", res, err)
	}
	res, err = o.References(ctx, at("lib.go", 4, 6))
	if err != nil || len(res.Locations) != 2 || !slices.Contains(res.Locations, api.Location{File: "use.go", Line: 3, Character: 38, EndLine: 3, EndCharacter: 46, Source: `func Use() string { _ = "é🙂"; return Greeting("x") }`}) {
		t.Fatalf("references: %+v %v", res, err)
	}
	res, err = o.TypeDefinition(ctx, at("use.go", 5, 5))
	if err != nil || len(res.Locations) != 1 || res.Locations[0] != (api.Location{File: "lib.go", Line: 7, Character: 6, EndLine: 7, EndCharacter: 13, Source: "type Greeter interface{ Greet() string }"}) {
		t.Fatalf("type definition: %+v %v", res, err)
	}
	res, err = o.Implementation(ctx, at("lib.go", 7, 6))
	if err != nil || len(res.Locations) != 1 || res.Locations[0] != (api.Location{File: "lib.go", Line: 10, Character: 6, EndLine: 10, EndCharacter: 13, Source: "type English struct{}"}) {
		t.Fatalf("implementation: %+v %v", res, err)
	}
	hov, err := o.Hover(ctx, at("use.go", 3, 38))
	if err != nil || hov.Content == nil || !strings.Contains(*hov.Content, "Greeting says hello.") {
		t.Fatalf("hover: %+v %v", hov, err)
	}
	if hov, err = o.Hover(ctx, at("use.go", 2, 1)); err != nil || hov.Content != nil {
		t.Fatalf("hover on a blank line: %+v %v", hov, err)
	}
	syms, err := o.DocumentSymbols(ctx, api.FileParams{File: "lib.go"})
	if err != nil || !slices.ContainsFunc(syms.Symbols, func(s api.Symbol) bool { return s.Name == "Greeting" && s.Kind == "function" && s.Range.StartLine == 4 }) ||
		!slices.ContainsFunc(syms.Symbols, func(s api.Symbol) bool { return s.Name == "Greeter" && s.Kind == "interface" }) {
		t.Fatalf("document symbols: %+v %v", syms, err)
	}
	ws, err := o.WorkspaceSymbols(ctx, api.QueryParams{Query: "Greeting"})
	if err != nil || !slices.ContainsFunc(ws.Symbols, func(s api.WorkspaceSymbol) bool {
		return s.Name == "Greeting" && s.File == "lib.go" && s.Range.StartLine == 4
	}) {
		t.Fatalf("workspace symbols: %+v %v", ws, err)
	}
}

// TestNavigationErrors: the orchestrator's errors say what is wrong, with
// the contract's codes.
func TestNavigationErrors(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "one\ntwo\nidle(id, x.id) + é\n", "dir/x": "", "notes.xyz": "x\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("ok")), map[string]lsptest.Behavior{"ok": {}})
	ctx := context.Background()
	for _, tc := range []struct {
		p    api.PositionParams
		code int64
		want string
	}{
		{api.PositionParams{File: "a.fk", Line: 0, Character: 1}, transport.CodeInvalidParams, "line must be ≥ 1"},
		{api.PositionParams{File: "a.fk", Line: 9, Character: 1}, transport.CodeInvalidParams, "line 9 is past the end of a.fk (3 lines)"},
		{api.PositionParams{File: "a.fk", Line: 2, Character: 80}, transport.CodeInvalidParams, "character 80 is past the end of line 2 (3 characters)"},
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "dle"}, transport.CodeInvalidParams, `symbol "dle" does not occur on line 3`},
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "id", Occurrence: 3}, transport.CodeInvalidParams, `occurrence 3: "id" appears 2 times on line 3 of a.fk`},
		{api.PositionParams{File: "a.fk", Line: 1}, transport.CodeInvalidParams, "character is required"},
		{api.PositionParams{File: "a.fk", Line: 2, Symbol: "nope"}, transport.CodeInvalidParams, `symbol "nope" does not occur on line 2`},
		{api.PositionParams{File: "", Line: 1, Character: 1}, transport.CodeInvalidParams, "file is required"},
		{api.PositionParams{File: "../x.fk", Line: 1, Character: 1}, api.CodeOutsideRoot, "outside the workspace root"},
		{api.PositionParams{File: "missing.fk", Line: 1, Character: 1}, api.CodeNotFound, "no such file: missing.fk"},
		{api.PositionParams{File: "dir", Line: 1, Character: 1}, transport.CodeInvalidParams, "dir is a directory"},
		{api.PositionParams{File: "notes.xyz", Line: 1, Character: 1}, api.CodeNoServer, "no language server handles .xyz files"},
	} {
		_, err := f.Definition(ctx, tc.p)
		if !isCode(err, tc.code) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want code %d with %q", tc.p, err, tc.code, tc.want)
		}
	}
	res, err := f.Definition(ctx, api.PositionParams{File: "a.fk", Line: 2, Symbol: "two"})
	if err != nil || len(res.Locations) != 1 || res.Locations[0].File != "a.fk" || res.Locations[0].Line != 2 || res.Note != "" || res.Locations[0].Source != "two" {
		t.Fatalf("definition: %+v %v", res, err)
	}
	// Whole identifiers: "id" is not the one inside "idle"; several on the
	// line are chosen among with occurrence, and the answer says when none
	// was given. (The fake's definition is the position asked about.)
	for _, tc := range []struct {
		p    api.PositionParams
		col  int
		note string
	}{
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "id"}, 6, `"id" appears 2 times on line 3; used the first; pass occurrence`},
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "id", Occurrence: 2}, 12, ""},
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "idle"}, 1, ""},
		{api.PositionParams{File: "a.fk", Line: 3, Symbol: "+"}, 16, ""},
		{api.PositionParams{File: "a.fk", Line: 3, Character: 19}, 19, ""}, // the end of the line, after é
	} {
		res, err := f.Definition(ctx, tc.p)
		if err != nil || len(res.Locations) != 1 || res.Locations[0].Character != tc.col || res.Note != tc.note {
			t.Errorf("%+v: %+v %v, want column %d, note %q", tc.p, res, err, tc.col, tc.note)
		}
	}
	hov, err := f.Hover(ctx, api.PositionParams{File: "a.fk", Line: 1, Character: 1})
	if err != nil || hov.Content == nil || *hov.Content != "line 1: one" {
		t.Fatalf("hover: %+v %v", hov, err)
	}
	if _, err := f.References(ctx, api.PositionParams{File: "a.fk", Line: 1, Character: 1}); !isCode(err, api.CodeNoServer) || !strings.Contains(err.Error(), "fake does not offer textDocument/references") {
		t.Fatalf("references from a server without them: %v", err)
	}
}

// TestSourceLine: a location's source is its line, trimmed, at most 200
// characters (not bytes).
func TestSourceLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 250)
	lines := []string{"\tfunc F() {  ", long}
	for line, want := range map[int]string{1: "func F() {", 2: strings.Repeat("é", 200), 0: "", 3: ""} {
		if got := sourceLine(lines, line); got != want {
			t.Errorf("line %d: %q", line, got)
		}
	}
}

// TestTimeoutBounds: a server that never answers a navigation request
// fails it with the contract's timeout code, naming the bound it hit —
// navigationTimeout for the question as a whole, requestTimeout for the
// one request — instead of holding the question until its caller gives up.
func TestTimeoutBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ options, want string }{
		{`,"navigationTimeout":300`, "lsp/hover: no answer within navigationTimeout (300 ms)"},
		{`,"requestTimeout":300`, "no answer to textDocument/hover within 300 ms (requestTimeout)"},
	} {
		f := newFake(t, map[string]string{"a.fk": "x\n"}, lsptest.Config(tc.options, `"fake": `+lsptest.ServerEntry("mute")),
			map[string]lsptest.Behavior{"mute": {HangOn: "textDocument/hover"}})
		f.check(t, api.CheckParams{FilePath: "a.fk"}) // started, the file open
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := f.Hover(ctx, api.PositionParams{File: "a.fk", Line: 1, Character: 1})
		cancel()
		if !isCode(err, api.CodeTimeout) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want code %d saying %q", tc.options, err, api.CodeTimeout, tc.want)
		}
		if _, err := f.Definition(context.Background(), api.PositionParams{File: "a.fk", Line: 1, Character: 1}); err != nil {
			t.Errorf("%s: a request the server answers: %v", tc.options, err)
		}
	}
}
