package lspserver_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
)

const (
	itemsGoLib = `package lib

import "strings"

// Shape is a shape.
type Shape interface{ Area() float64 }

// Square is a square.
type Square struct{ Side float64 }

// Area is the square's area.
func (s Square) Area() float64 { return s.Side * s.Side }

// Upper is s in capitals.
func Upper(s string) string { return strings.ToUpper(s) }
`
	itemsGoMain = `package main

import (
	"fmt"

	"example.com/demo/lib"
)

func main() {
	fmt.Println(lib.Upper("x"))
	var _ lib.Shape = lib.Square{Side: 2}
}
`
)

// TestLSPItemsLive: through lspkit lsp on gopls, with a client that pulls
// diagnostics and resolves code actions: pulled findings (clean; an error
// after a change; clean again), completion, workspace symbols, a call
// hierarchy's callers, a type hierarchy's supertypes, document links and
// code actions resolved on the server they came from, gopls's work-done
// progress relayed; on
// typescript-language-server, a completion item resolved with its
// documentation; semantic tokens on both, renumbered into the legend
// lspkit announces. LSPKIT_LSP_LIVE=1 (.ci/run) runs it.
func TestLSPItemsLive(t *testing.T) {
	if os.Getenv("LSPKIT_LSP_LIVE") == "" {
		t.Skip("LSPKIT_LSP_LIVE=1 runs it (.ci/run's lspkit lsp step)")
	}
	caps := map[string]any{
		"textDocument": map[string]any{"diagnostic": map[string]any{}, "codeAction": map[string]any{"resolveSupport": map[string]any{"properties": []string{"edit"}},
			"dataSupport": true, "codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{"valueSet": []string{"", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source"}}}}},
		"workspace": map[string]any{"diagnostics": map[string]any{"refreshSupport": true}},
		"window":    map[string]any{"workDoneProgress": true},
	}
	t.Run("gopls", func(t *testing.T) {
		servertest.Binary(t, "gopls")
		e, root := startLive(t, diskCase{servers: []string{"gopls"}, files: map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n"},
			open: "main.go", openText: itemsGoMain, lib: "lib/lib.go", libText: func(int) string { return itemsGoLib }}, 1)
		uri, _ := protocol.FileURI(filepath.Join(root, "main.go"))
		libURI, _ := protocol.FileURI(filepath.Join(root, "lib", "lib.go"))
		res, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps})
		init := decode[protocol.InitializeResult](t, "initialize", res, err)
		if init.Capabilities.DiagnosticProvider.IsZero() || init.Capabilities.CallHierarchyProvider.IsZero() || init.Capabilities.WorkspaceSymbolProvider.IsZero() {
			t.Fatalf("capabilities: %s", res)
		}
		e.notify(t, protocol.InitializedNotification.Method(), map[string]any{})
		open := func(u protocol.DocumentURI, text string) {
			e.notify(t, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": 1, "text": text}})
		}
		open(uri, itemsGoMain)
		doc := map[string]any{"uri": uri}
		pos := func(u protocol.DocumentURI, line, char int) map[string]any {
			return map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": line, "character": char}}
		}
		pull := func() report {
			res, err := e.call(t, protocol.DocumentDiagnosticRequest.Method(), map[string]any{"textDocument": doc})
			return decode[report](t, "textDocument/diagnostic", res, err)
		}

		// Pulled findings: clean; broken by a change; clean again.
		if r := pull(); r.Kind != "full" || len(r.Items) != 0 {
			t.Fatalf("pull of the clean file: %+v", r)
		}
		broken := strings.Replace(itemsGoMain, "lib.Upper(", "lib.Uper(", 1)
		e.notify(t, protocol.DidChangeTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": broken}}})
		if r := pull(); len(r.Items) != 1 || !strings.Contains(messageOf(r.Items[0]), "Uper") {
			t.Fatalf("pull after the change: %+v, want the undefined lib.Uper", r)
		}
		e.notify(t, protocol.DidChangeTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3}, "contentChanges": []any{map[string]any{"text": itemsGoMain}}})
		if r := pull(); len(r.Items) != 0 {
			t.Fatalf("pull after the fix: %+v", r)
		}

		// Completion after "lib.".
		res, err = e.call(t, protocol.CompletionRequest.Method(), pos(uri, 9, 17))
		list := decode[protocol.CompletionList](t, "completion", res, err)
		if !slices.ContainsFunc(list.Items, func(i protocol.CompletionItem) bool { return i.Label == "Upper" }) {
			t.Errorf("completion after lib.: %d items, no Upper", len(list.Items))
		}

		// Workspace symbols.
		res, err = e.call(t, protocol.WorkspaceSymbolRequest.Method(), map[string]any{"query": "Upper"})
		syms := decode[[]protocol.SymbolInformation](t, "workspace/symbol", res, err)
		if !slices.ContainsFunc(syms, func(s protocol.SymbolInformation) bool { return s.Name == "Upper" && s.Location.URI == libURI }) {
			t.Errorf("workspace symbols for Upper: %s", res)
		}

		// Callers of lib.Upper, from its use in main.
		res, err = e.call(t, protocol.CallHierarchyPrepareRequest.Method(), pos(uri, 9, 18))
		items := decode[[]protocol.CallHierarchyItem](t, "prepareCallHierarchy", res, err)
		if len(items) != 1 || items[0].Name != "Upper" {
			t.Fatalf("prepareCallHierarchy: %s", res)
		}
		res, err = e.call(t, protocol.CallHierarchyIncomingCallsRequest.Method(), map[string]any{"item": items[0]})
		calls := decode[[]protocol.CallHierarchyIncomingCall](t, "incomingCalls", res, err)
		if len(calls) != 1 || calls[0].From.Name != "main" {
			t.Errorf("incoming calls of Upper: %s", res)
		}

		// Square's supertypes: Shape.
		res, err = e.call(t, protocol.TypeHierarchyPrepareRequest.Method(), pos(libURI, 8, 6))
		types := decode[[]protocol.TypeHierarchyItem](t, "prepareTypeHierarchy", res, err)
		if len(types) != 1 || types[0].Name != "Square" {
			t.Fatalf("prepareTypeHierarchy: %s", res)
		}
		res, err = e.call(t, protocol.TypeHierarchySupertypesRequest.Method(), map[string]any{"item": types[0]})
		supers := decode[[]protocol.TypeHierarchyItem](t, "supertypes", res, err)
		if !slices.ContainsFunc(supers, func(i protocol.TypeHierarchyItem) bool { return i.Name == "Shape" }) {
			t.Errorf("supertypes of Square: %s", res)
		}

		// Semantic tokens, renumbered into the legend lspkit announced:
		// Upper, on line 10, is a function.
		st, ok := init.Capabilities.SemanticTokensProvider.AsSemanticTokensOptions()
		if !ok {
			t.Fatalf("no semantic tokens offered: %s", res)
		}
		res, err = e.call(t, protocol.SemanticTokensRequest.Method(), map[string]any{"textDocument": doc})
		tokens := decode[protocol.SemanticTokens](t, "semanticTokens/full", res, err)
		if kind := tokenAt(tokens.Data, st.Legend, 9, 17); kind != "function" {
			t.Errorf("the token at Upper: %q, want function (legend %v, %d numbers)", kind, st.Legend.TokenTypes, len(tokens.Data))
		}

		// Document links: the imports.
		res, err = e.call(t, protocol.DocumentLinkRequest.Method(), map[string]any{"textDocument": doc})
		links := decode[[]protocol.DocumentLink](t, "documentLink", res, err)
		if len(links) == 0 {
			t.Errorf("document links of main.go: %s", res)
		}

		// Code actions on the call's argument; each without an edit or
		// command is resolved by gopls into one.
		res, err = e.call(t, protocol.CodeActionRequest.Method(), map[string]any{"textDocument": doc,
			"range":   map[string]any{"start": map[string]any{"line": 9, "character": 13}, "end": map[string]any{"line": 9, "character": 28}},
			"context": map[string]any{"diagnostics": []any{}}})
		actions := decode[[]protocol.CodeAction](t, "codeAction", res, err)
		resolved := 0
		for _, a := range actions {
			if a.Edit != nil || a.Command != nil {
				continue
			}
			res, err := e.call(t, protocol.CodeActionResolveRequest.Method(), a)
			r := decode[protocol.CodeAction](t, "codeAction/resolve of "+a.Title, res, err)
			if r.Edit == nil && r.Command == nil {
				t.Errorf("%s resolved to nothing: %s", a.Title, res)
			}
			resolved++
		}
		t.Logf("%d code actions, %d resolved through lspkit", len(actions), resolved)
		if len(actions) == 0 {
			t.Errorf("no code action on lib.Upper(\"x\")")
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if n := len(e.diags[uri]); n != 0 {
			t.Errorf("%d publishes to a client that pulls", n)
		}
		// gopls's work-done progress (loading the workspace), relayed.
		var titles []string
		for _, p := range e.progress {
			if v := string(p.Value); strings.Contains(v, `"begin"`) {
				titles = append(titles, v)
			}
		}
		if !slices.ContainsFunc(titles, func(v string) bool { return strings.Contains(v, `"title":"gopls: `) }) {
			t.Errorf("no progress of gopls relayed: %q", titles)
		}
		t.Logf("progress relayed: %q", titles)
	})
	t.Run("typescript", func(t *testing.T) {
		servertest.Binary(t, "typescript-language-server")
		main := "import { shout } from \"./lib\";\n\nshout(\"x\");\n"
		lib := "/** Shouts s. */\nexport function shout(s: string): string { return s.toUpperCase(); }\n"
		e, root := startLive(t, diskCase{servers: []string{"typescript"}, files: map[string]string{"package.json": `{"name": "demo", "private": true}`, "tsconfig.json": `{"compilerOptions": {"strict": true}}`},
			open: "main.ts", openText: main, lib: "lib.ts", libText: func(int) string { return lib }}, 1)
		uri, _ := protocol.FileURI(filepath.Join(root, "main.ts"))
		res, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps})
		init := decode[protocol.InitializeResult](t, "initialize", res, err)
		if cp := init.Capabilities.CompletionProvider; cp == nil || cp.ResolveProvider == nil || !*cp.ResolveProvider {
			t.Fatalf("completion not resolvable: %s", res)
		}
		e.notify(t, protocol.InitializedNotification.Method(), map[string]any{})
		e.notify(t, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "typescript", "version": 1, "text": main + "sh"}})
		res, err = e.call(t, protocol.CompletionRequest.Method(), map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 3, "character": 2}})
		list := decode[protocol.CompletionList](t, "completion", res, err)
		i := slices.IndexFunc(list.Items, func(i protocol.CompletionItem) bool { return i.Label == "shout" })
		if i < 0 {
			t.Fatalf("completion of sh: %d items, no shout", len(list.Items))
		}
		// Semantic tokens: shout, called on line 3, is a function.
		if st, ok := init.Capabilities.SemanticTokensProvider.AsSemanticTokensOptions(); !ok {
			t.Errorf("no semantic tokens offered")
		} else {
			res, err := e.call(t, protocol.SemanticTokensRequest.Method(), map[string]any{"textDocument": map[string]any{"uri": uri}})
			tokens := decode[protocol.SemanticTokens](t, "semanticTokens/full", res, err)
			if kind := tokenAt(tokens.Data, st.Legend, 2, 0); kind != "function" {
				t.Errorf("the token at shout: %q, want function (legend %v, %d numbers)", kind, st.Legend.TokenTypes, len(tokens.Data))
			}
		}
		res, err = e.call(t, protocol.CompletionResolveRequest.Method(), list.Items[i])
		item := decode[protocol.CompletionItem](t, "completionItem/resolve", res, err)
		if item.Detail == nil || !strings.Contains(*item.Detail, "shout(s: string): string") || !strings.Contains(string(res), "Shouts s.") {
			t.Errorf("resolved shout: %s", res)
		}
	})
}

func messageOf(d protocol.Diagnostic) string {
	m, _ := d.Message.AsString()
	return m
}

// tokenAt is the type of the semantic token starting at line, char.
func tokenAt(data []uint32, legend protocol.SemanticTokensLegend, line, char uint32) string {
	var l, c uint32
	for i := 0; i+4 < len(data); i += 5 {
		if data[i] > 0 {
			l, c = l+data[i], data[i+1]
		} else {
			c += data[i+1]
		}
		if l == line && c == char && int(data[i+3]) < len(legend.TokenTypes) {
			return legend.TokenTypes[data[i+3]]
		}
	}
	return ""
}
