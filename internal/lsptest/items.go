package lsptest

import (
	"context"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// itemsCapabilities are what Behavior.Items announces.
var itemsCapabilities = map[string]jsontext.Value{
	"completionProvider":    jsontext.Value(`{"resolveProvider":true}`),
	"codeActionProvider":    jsontext.Value(`{"resolveProvider":true}`),
	"inlayHintProvider":     jsontext.Value(`{"resolveProvider":true}`),
	"codeLensProvider":      jsontext.Value(`{"resolveProvider":true}`),
	"documentLinkProvider":  jsontext.Value(`{"resolveProvider":true}`),
	"callHierarchyProvider": jsontext.Value(`true`),
	"typeHierarchyProvider": jsontext.Value(`true`),
	"referencesProvider":    jsontext.Value(`true`),
}

// mine is the data the fake puts in each item it answers; a request that
// brings an item back must bring this data, unchanged.
func (s *server) mine() jsontext.Value {
	return jsontext.Value(fmt.Sprintf(`{"by":%q}`, s.b.Name))
}

// checkMine refuses an item that carries data the fake did not give.
func (s *server) checkMine(method string, data jsontext.Value) error {
	var v struct {
		By string `json:"by"`
	}
	if json.Unmarshal(data, &v) != nil || v.By != s.b.Name {
		return &transport.Error{Code: transport.CodeInvalidParams, Message: fmt.Sprintf("%s: %s got data it did not give: %s", method, s.b.Name, data)}
	}
	return nil
}

func line0(n uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: n}, End: protocol.Position{Line: n, Character: 1}}
}

// TextDocumentCompletion answers one item, NAME.item.
func (s *server) TextDocumentCompletion(_ context.Context, p *protocol.CompletionParams) (protocol.Nullable[protocol.CompletionResult], error) {
	items := []protocol.CompletionItem{{Label: s.b.Name + ".item", Data: s.mine()}}
	return protocol.NewNullable(protocol.NewCompletionResultCompletionList(protocol.CompletionList{Items: items})), nil
}

// CompletionItemResolve gives the item its detail, "resolved by NAME".
func (s *server) CompletionItemResolve(_ context.Context, p *protocol.CompletionItem) (protocol.CompletionItem, error) {
	if err := s.checkMine(protocol.MethodCompletionItemResolve, p.Data); err != nil {
		return *p, err
	}
	p.Detail = protocol.Ptr("resolved by " + s.b.Name)
	return *p, nil
}

// TextDocumentCodeAction (Items) offers one action without its edit,
// "NAME: note": its resolve inserts "NAME was here\n" at the start.
func (s *server) itemsCodeAction(p *protocol.CodeActionParams) []protocol.CommandOrCodeAction {
	return []protocol.CommandOrCodeAction{protocol.NewCommandOrCodeActionCodeAction(protocol.CodeAction{
		Title: s.b.Name + ": note", Kind: protocol.Ptr(protocol.CodeActionKindRefactor), Data: s.mine(),
	})}
}

// CodeActionResolve fills in the action's edit, for the document the
// fake was asked about, with the version it has.
func (s *server) CodeActionResolve(_ context.Context, p *protocol.CodeAction) (protocol.CodeAction, error) {
	if err := s.checkMine(protocol.MethodCodeActionResolve, p.Data); err != nil {
		return *p, err
	}
	s.mu.Lock()
	uri, v := s.lastAsked, s.versions[s.lastAsked]
	s.mu.Unlock()
	p.Edit = &protocol.WorkspaceEdit{DocumentChanges: []protocol.WorkspaceEditDocumentChangesElem{
		protocol.NewWorkspaceEditDocumentChangesElemTextDocumentEdit(protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{URI: uri, Version: protocol.NewNullable(v)},
			Edits:        []protocol.TextDocumentEditEditsElem{protocol.NewTextDocumentEditEditsElemTextEdit(protocol.TextEdit{NewText: s.b.Name + " was here\n"})},
		}),
	}}
	return *p, nil
}

// TextDocumentInlayHint answers one hint, NAME, at the start.
func (s *server) TextDocumentInlayHint(_ context.Context, p *protocol.InlayHintParams) (protocol.Nullable[[]protocol.InlayHint], error) {
	return protocol.NewNullable([]protocol.InlayHint{{Label: protocol.NewInlayHintLabelString(s.b.Name), Data: s.mine()}}), nil
}

// InlayHintResolve gives the hint its tooltip, "by NAME".
func (s *server) InlayHintResolve(_ context.Context, p *protocol.InlayHint) (protocol.InlayHint, error) {
	if err := s.checkMine(protocol.MethodInlayHintResolve, p.Data); err != nil {
		return *p, err
	}
	p.Tooltip = protocol.NewStringOrMarkupContentString("by " + s.b.Name)
	return *p, nil
}

// TextDocumentCodeLens answers one lens on the first line, without its
// command.
func (s *server) TextDocumentCodeLens(_ context.Context, p *protocol.CodeLensParams) (protocol.Nullable[[]protocol.CodeLens], error) {
	return protocol.NewNullable([]protocol.CodeLens{{Range: line0(0), Data: s.mine()}}), nil
}

// CodeLensResolve gives the lens its command, titled "NAME lens".
func (s *server) CodeLensResolve(_ context.Context, p *protocol.CodeLens) (protocol.CodeLens, error) {
	if err := s.checkMine(protocol.MethodCodeLensResolve, p.Data); err != nil {
		return *p, err
	}
	p.Command = &protocol.Command{Title: s.b.Name + " lens", Command: s.b.Name + ".lens"}
	return *p, nil
}

// TextDocumentDocumentLink answers one link on the first line, without
// its target.
func (s *server) TextDocumentDocumentLink(_ context.Context, p *protocol.DocumentLinkParams) (protocol.Nullable[[]protocol.DocumentLink], error) {
	return protocol.NewNullable([]protocol.DocumentLink{{Range: line0(0), Data: s.mine()}}), nil
}

// DocumentLinkResolve gives the link its target, https://NAME.example/.
func (s *server) DocumentLinkResolve(_ context.Context, p *protocol.DocumentLink) (protocol.DocumentLink, error) {
	if err := s.checkMine(protocol.MethodDocumentLinkResolve, p.Data); err != nil {
		return *p, err
	}
	p.Target = protocol.Ptr(protocol.URI("https://" + s.b.Name + ".example/"))
	return *p, nil
}

// TextDocumentPrepareCallHierarchy answers one item, NAME.fn.
func (s *server) TextDocumentPrepareCallHierarchy(_ context.Context, p *protocol.CallHierarchyPrepareParams) (protocol.Nullable[[]protocol.CallHierarchyItem], error) {
	return protocol.NewNullable([]protocol.CallHierarchyItem{{Name: s.b.Name + ".fn", Kind: protocol.SymbolKindFunction, URI: p.TextDocument.URI, Range: line0(0), SelectionRange: line0(0), Data: s.mine()}}), nil
}

// CallHierarchyIncomingCalls answers one caller, NAME.caller.
func (s *server) CallHierarchyIncomingCalls(_ context.Context, p *protocol.CallHierarchyIncomingCallsParams) (protocol.Nullable[[]protocol.CallHierarchyIncomingCall], error) {
	if err := s.checkMine(protocol.MethodCallHierarchyIncomingCalls, p.Item.Data); err != nil {
		return protocol.Nullable[[]protocol.CallHierarchyIncomingCall]{}, err
	}
	from := protocol.CallHierarchyItem{Name: s.b.Name + ".caller", Kind: protocol.SymbolKindFunction, URI: p.Item.URI, Range: line0(1), SelectionRange: line0(1), Data: s.mine()}
	return protocol.NewNullable([]protocol.CallHierarchyIncomingCall{{From: from, FromRanges: []protocol.Range{line0(1)}}}), nil
}

// CallHierarchyOutgoingCalls answers one callee, NAME.callee.
func (s *server) CallHierarchyOutgoingCalls(_ context.Context, p *protocol.CallHierarchyOutgoingCallsParams) (protocol.Nullable[[]protocol.CallHierarchyOutgoingCall], error) {
	if err := s.checkMine(protocol.MethodCallHierarchyOutgoingCalls, p.Item.Data); err != nil {
		return protocol.Nullable[[]protocol.CallHierarchyOutgoingCall]{}, err
	}
	to := protocol.CallHierarchyItem{Name: s.b.Name + ".callee", Kind: protocol.SymbolKindFunction, URI: p.Item.URI, Range: line0(2), SelectionRange: line0(2), Data: s.mine()}
	return protocol.NewNullable([]protocol.CallHierarchyOutgoingCall{{To: to, FromRanges: []protocol.Range{line0(0)}}}), nil
}

// TextDocumentPrepareTypeHierarchy answers one item, NAME.Type.
func (s *server) TextDocumentPrepareTypeHierarchy(_ context.Context, p *protocol.TypeHierarchyPrepareParams) (protocol.Nullable[[]protocol.TypeHierarchyItem], error) {
	return protocol.NewNullable([]protocol.TypeHierarchyItem{{Name: s.b.Name + ".Type", Kind: protocol.SymbolKindClass, URI: p.TextDocument.URI, Range: line0(0), SelectionRange: line0(0), Data: s.mine()}}), nil
}

// TypeHierarchySupertypes answers one supertype, NAME.Super.
func (s *server) TypeHierarchySupertypes(_ context.Context, p *protocol.TypeHierarchySupertypesParams) (protocol.Nullable[[]protocol.TypeHierarchyItem], error) {
	if err := s.checkMine(protocol.MethodTypeHierarchySupertypes, p.Item.Data); err != nil {
		return protocol.Nullable[[]protocol.TypeHierarchyItem]{}, err
	}
	return protocol.NewNullable([]protocol.TypeHierarchyItem{{Name: s.b.Name + ".Super", Kind: protocol.SymbolKindClass, URI: p.Item.URI, Range: line0(1), SelectionRange: line0(1), Data: s.mine()}}), nil
}

// TypeHierarchySubtypes answers one subtype, NAME.Sub.
func (s *server) TypeHierarchySubtypes(_ context.Context, p *protocol.TypeHierarchySubtypesParams) (protocol.Nullable[[]protocol.TypeHierarchyItem], error) {
	if err := s.checkMine(protocol.MethodTypeHierarchySubtypes, p.Item.Data); err != nil {
		return protocol.Nullable[[]protocol.TypeHierarchyItem]{}, err
	}
	return protocol.NewNullable([]protocol.TypeHierarchyItem{{Name: s.b.Name + ".Sub", Kind: protocol.SymbolKindClass, URI: p.Item.URI, Range: line0(2), SelectionRange: line0(2), Data: s.mine()}}), nil
}

// TextDocumentReferences answers the document's first character (every
// Items fake does) and a line of its own: line 1 for "a", 2 otherwise.
func (s *server) TextDocumentReferences(_ context.Context, p *protocol.ReferenceParams) (protocol.Nullable[[]protocol.Location], error) {
	own := uint32(2)
	if s.b.Name == "a" {
		own = 1
	}
	return protocol.NewNullable([]protocol.Location{{URI: p.TextDocument.URI, Range: line0(0)}, {URI: p.TextDocument.URI, Range: line0(own)}}), nil
}
