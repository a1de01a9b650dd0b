package lspserver_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/protocol"
)

// decode reads an answer into v, failing the test on an error.
func decode[T any](t *testing.T, what string, res jsontext.Value, err error) T {
	t.Helper()
	var v T
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal(res, &v); err != nil {
		t.Fatalf("%s: %s: %v", what, res, err)
	}
	return v
}

// TestLSPServerItems: the items a server answers come back to it — each
// resolve and each hierarchy step reaches the server that made the item,
// with the server's own data unchanged (the fakes refuse anything else) —
// with two servers on the file, whose code lenses, links, code actions and
// references are merged. A code action resolved through lspkit names the
// client's document version; for a client that cannot resolve actions,
// lspkit resolves them before it answers.
func TestLSPServerItems(t *testing.T) {
	for _, clientResolves := range []bool{true, false} {
		name := "client resolves"
		if !clientResolves {
			name = "lspkit resolves"
		}
		t.Run(name, func(t *testing.T) {
			e, root := startBoth(t, map[string]string{"a.fk": "one\n", "b.fk": "class Greeter\n  def greet\n"}, lsptest.Behavior{Name: "a", Items: true, Symbols: true}, lsptest.Behavior{Name: "b", Items: true, Symbols: true})
			uri, _ := protocol.FileURI(filepath.Join(root, "a.fk"))
			caps := map[string]any{}
			if clientResolves {
				caps = map[string]any{"textDocument": map[string]any{"codeAction": map[string]any{"resolveSupport": map[string]any{"properties": []string{"edit"}}},
					"definition": map[string]any{"linkSupport": true}}}
			}
			res, err := e.call(t, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps})
			init := decode[protocol.InitializeResult](t, "initialize", res, err)
			c := init.Capabilities
			if c.CompletionProvider == nil || c.CompletionProvider.ResolveProvider == nil || !*c.CompletionProvider.ResolveProvider ||
				c.CodeLensProvider == nil || c.DocumentLinkProvider == nil || c.CallHierarchyProvider.IsZero() || c.TypeHierarchyProvider.IsZero() ||
				!c.Supports(protocol.CodeActionResolveRequest.Method()) || !c.Supports(protocol.InlayHintResolveRequest.Method()) {
				t.Fatalf("capabilities: %s", res)
			}
			e.notify(t, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "fk", "version": 7, "text": "one\ntwo\nthree\n"}})
			doc := map[string]any{"uri": uri}
			at := map[string]any{"textDocument": doc, "position": map[string]any{"line": 0, "character": 0}}
			whole := map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 3, "character": 0}}

			// Completion: both servers' items, each resolved by its own.
			res, err = e.call(t, protocol.CompletionRequest.Method(), at)
			list := decode[protocol.CompletionList](t, "completion", res, err)
			var labels []string
			for _, it := range list.Items {
				labels = append(labels, it.Label)
				res, err := e.call(t, protocol.CompletionResolveRequest.Method(), it)
				item := decode[protocol.CompletionItem](t, "completionItem/resolve", res, err)
				by, _, _ := strings.Cut(it.Label, ".")
				if item.Detail == nil || *item.Detail != "resolved by "+by {
					t.Errorf("completionItem/resolve of %s: %s", it.Label, res)
				}
				// Twice: the resolved item still carries its origin.
				if _, err := e.call(t, protocol.CompletionResolveRequest.Method(), item); err != nil {
					t.Errorf("resolving the resolved item again: %v", err)
				}
			}
			if !slices.Equal(labels, []string{"a.item", "b.item"}) {
				t.Fatalf("completion: %s", res)
			}

			// Definition: both servers name the same place — once, as a
			// link for a client that takes links, else as a location.
			res, err = e.call(t, protocol.DefinitionRequest.Method(), at)
			if err != nil || strings.Count(string(res), string(uri)) != 1 || strings.Contains(string(res), "targetUri") != clientResolves {
				t.Errorf("definition: %s %v, want one target, a link: %v", res, err, clientResolves)
			}
			// Hover: both servers' answers, joined.
			res, err = e.call(t, protocol.HoverRequest.Method(), at)
			if err != nil || strings.Count(string(res), "one") != 2 || !strings.Contains(string(res), "---") {
				t.Errorf("hover: %s %v, want both servers' answers joined", res, err)
			}

			// Code actions of both servers; each resolved by its own.
			res, err = e.call(t, protocol.CodeActionRequest.Method(), map[string]any{"textDocument": doc, "range": whole, "context": map[string]any{"diagnostics": []any{}}})
			actions := decode[[]protocol.CodeAction](t, "codeAction", res, err)
			var titles []string
			for _, a := range actions {
				titles = append(titles, a.Title)
				if clientResolves {
					if a.Edit != nil {
						t.Errorf("%s: resolved though the client resolves", a.Title)
					}
					res, err := e.call(t, protocol.CodeActionResolveRequest.Method(), a)
					a = decode[protocol.CodeAction](t, "codeAction/resolve", res, err)
				}
				by, _, _ := strings.Cut(a.Title, ":")
				if a.Edit == nil || len(a.Edit.DocumentChanges) != 1 {
					t.Fatalf("%s: no edit: %+v", a.Title, a)
				}
				te, _ := a.Edit.DocumentChanges[0].AsTextDocumentEdit()
				v, _ := te.TextDocument.Version.Get()
				if v != 7 || !strings.Contains(formatEdits(te), by+" was here") {
					t.Errorf("%s: edit %+v version %d, want %s's insertion for the client's version 7", a.Title, te, v, by)
				}
			}
			if !slices.Equal(titles, []string{"a: note", "b: note"}) {
				t.Errorf("code actions %q, want a's and b's", titles)
			}

			// Code lenses and links: both servers', each resolved by its own.
			res, err = e.call(t, protocol.CodeLensRequest.Method(), map[string]any{"textDocument": doc})
			lenses := decode[[]protocol.CodeLens](t, "codeLens", res, err)
			var got []string
			for _, l := range lenses {
				res, err := e.call(t, protocol.CodeLensResolveRequest.Method(), l)
				got = append(got, decode[protocol.CodeLens](t, "codeLens/resolve", res, err).Command.Title)
			}
			if !slices.Equal(got, []string{"a lens", "b lens"}) {
				t.Errorf("resolved lenses %q, want a's and b's", got)
			}
			res, err = e.call(t, protocol.DocumentLinkRequest.Method(), map[string]any{"textDocument": doc})
			links := decode[[]protocol.DocumentLink](t, "documentLink", res, err)
			got = nil
			for _, l := range links {
				res, err := e.call(t, protocol.DocumentLinkResolveRequest.Method(), l)
				got = append(got, string(*decode[protocol.DocumentLink](t, "documentLink/resolve", res, err).Target))
			}
			if !slices.Equal(got, []string{"https://a.example/", "https://b.example/"}) {
				t.Errorf("resolved links %q", got)
			}

			// An inlay hint and its resolve.
			res, err = e.call(t, protocol.InlayHintRequest.Method(), map[string]any{"textDocument": doc, "range": whole})
			hints := decode[[]protocol.InlayHint](t, "inlayHint", res, err)
			if len(hints) != 1 {
				t.Fatalf("inlay hints: %s", res)
			}
			res, err = e.call(t, protocol.InlayHintResolveRequest.Method(), hints[0])
			if h := decode[protocol.InlayHint](t, "inlayHint/resolve", res, err); !strings.Contains(string(res), `"by a"`) {
				t.Errorf("inlayHint/resolve: %+v", h)
			}

			// Call hierarchy, two steps; type hierarchy, two steps.
			res, err = e.call(t, protocol.CallHierarchyPrepareRequest.Method(), at)
			calls := decode[[]protocol.CallHierarchyItem](t, "prepareCallHierarchy", res, err)
			res, err = e.call(t, protocol.CallHierarchyIncomingCallsRequest.Method(), map[string]any{"item": calls[0]})
			in := decode[[]protocol.CallHierarchyIncomingCall](t, "incomingCalls", res, err)
			res, err = e.call(t, protocol.CallHierarchyOutgoingCallsRequest.Method(), map[string]any{"item": in[0].From})
			out := decode[[]protocol.CallHierarchyOutgoingCall](t, "outgoingCalls", res, err)
			if calls[0].Name != "a.fn" || in[0].From.Name != "a.caller" || out[0].To.Name != "a.callee" {
				t.Errorf("call hierarchy: %s ← %s → %s", calls[0].Name, in[0].From.Name, out[0].To.Name)
			}
			res, err = e.call(t, protocol.TypeHierarchyPrepareRequest.Method(), at)
			types := decode[[]protocol.TypeHierarchyItem](t, "prepareTypeHierarchy", res, err)
			res, err = e.call(t, protocol.TypeHierarchySupertypesRequest.Method(), map[string]any{"item": types[0]})
			supers := decode[[]protocol.TypeHierarchyItem](t, "supertypes", res, err)
			res, err = e.call(t, protocol.TypeHierarchySubtypesRequest.Method(), map[string]any{"item": supers[0]})
			subs := decode[[]protocol.TypeHierarchyItem](t, "subtypes", res, err)
			if types[0].Name != "a.Type" || supers[0].Name != "a.Super" || subs[0].Name != "a.Sub" {
				t.Errorf("type hierarchy: %s, %s, %s", types[0].Name, supers[0].Name, subs[0].Name)
			}

			// References: both servers', the shared one once.
			res, err = e.call(t, protocol.ReferencesRequest.Method(), map[string]any{"textDocument": doc, "position": map[string]any{"line": 0, "character": 0}, "context": map[string]any{"includeDeclaration": true}})
			refs := decode[[]protocol.Location](t, "references", res, err)
			var lines []uint32
			for _, r := range refs {
				lines = append(lines, r.Range.Start.Line)
			}
			if !slices.Equal(lines, []uint32{0, 1, 2}) {
				t.Errorf("references on lines %v, want 0, 1 (a's), 2 (b's)", lines)
			}

			// Workspace symbols: both servers asked, a symbol they both name
			// once.
			res, err = e.call(t, protocol.WorkspaceSymbolRequest.Method(), map[string]any{"query": "Greet"})
			syms := decode[[]protocol.SymbolInformation](t, "workspace/symbol", res, err)
			var names []string
			for _, s := range syms {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, []string{"Greeter", "greet"}) {
				t.Errorf("workspace symbols %q, want Greeter and greet once each", names)
			}

			// An item lspkit did not give: refused, with why.
			_, err = e.call(t, protocol.CompletionResolveRequest.Method(), map[string]any{"label": "x", "data": map[string]any{"by": "a"}})
			if code(err) != -32602 || !strings.Contains(err.Error(), "no data lspkit gave") {
				t.Errorf("resolving a foreign item: %v, want -32602 saying why", err)
			}
		})
	}
}

// formatEdits is a text document edit's new texts, joined.
func formatEdits(te protocol.TextDocumentEdit) string {
	var out []string
	for _, e := range te.Edits {
		if x, ok := e.AsTextEdit(); ok {
			out = append(out, x.NewText)
		}
	}
	return strings.Join(out, "|")
}
