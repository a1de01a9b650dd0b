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
