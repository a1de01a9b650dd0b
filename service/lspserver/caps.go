package lspserver

import (
	"reflect"
	"slices"

	"github.com/lspkit/lspkit/protocol"
)

// union is what the front end announces for the servers' capabilities:
// each request it routes, offered when any server offers it (with the
// first offering server's options; completion and signature trigger
// characters merged; resolves offered when a server resolves), UTF-16
// positions, and incremental document sync with open, close and save.
// What it does not route yet is left out, so a client never asks for it:
// semantic tokens, pull diagnostics (diagnostics are pushed, merged),
// notebooks.
func union(caps []protocol.ServerCapabilities) protocol.ServerCapabilities {
	out := protocol.ServerCapabilities{
		PositionEncoding: protocol.Ptr(protocol.PositionEncodingKindUTF16),
		TextDocumentSync: protocol.NewServerCapabilitiesTextDocumentSyncTextDocumentSyncOptions(protocol.TextDocumentSyncOptions{
			OpenClose: protocol.Ptr(true),
			Change:    protocol.Ptr(protocol.TextDocumentSyncKindIncremental),
			Save:      protocol.NewTextDocumentSyncOptionsSaveSaveOptions(protocol.SaveOptions{IncludeText: protocol.Ptr(false)}),
		}),
		HoverProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesHoverProvider { return c.HoverProvider }),
		DeclarationProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesDeclarationProvider {
			return c.DeclarationProvider
		}),
		DefinitionProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesDefinitionProvider {
			return c.DefinitionProvider
		}),
		TypeDefinitionProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesTypeDefinitionProvider {
			return c.TypeDefinitionProvider
		}),
		ImplementationProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesImplementationProvider {
			return c.ImplementationProvider
		}),
		ReferencesProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesReferencesProvider {
			return c.ReferencesProvider
		}),
		DocumentHighlightProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesDocumentHighlightProvider {
			return c.DocumentHighlightProvider
		}),
		DocumentSymbolProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesDocumentSymbolProvider {
			return c.DocumentSymbolProvider
		}),
		DocumentFormattingProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesDocumentFormattingProvider {
			return c.DocumentFormattingProvider
		}),
		DocumentRangeFormattingProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesDocumentRangeFormattingProvider {
			return c.DocumentRangeFormattingProvider
		}),
		RenameProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesRenameProvider {
			return c.RenameProvider
		}),
		FoldingRangeProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesFoldingRangeProvider {
			return c.FoldingRangeProvider
		}),
		SelectionRangeProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesSelectionRangeProvider {
			return c.SelectionRangeProvider
		}),
		CallHierarchyProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesCallHierarchyProvider {
			return c.CallHierarchyProvider
		}),
		TypeHierarchyProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesTypeHierarchyProvider {
			return c.TypeHierarchyProvider
		}),
	}
	// The requests whose items come back (a resolve, a hierarchy's next
	// step): offered as options of lspkit's own, resolvable when a server
	// resolves them; a server's registration options (its document
	// selector) are not the front end's.
	if offered(caps, protocol.InlayHintRequest.Method()) {
		out.InlayHintProvider = protocol.NewServerCapabilitiesInlayHintProviderInlayHintOptions(protocol.InlayHintOptions{
			ResolveProvider: protocol.Ptr(offered(caps, protocol.InlayHintResolveRequest.Method())),
		})
	}
	if offered(caps, protocol.CodeActionRequest.Method()) {
		out.CodeActionProvider = protocol.NewServerCapabilitiesCodeActionProviderCodeActionOptions(protocol.CodeActionOptions{
			ResolveProvider: protocol.Ptr(offered(caps, protocol.CodeActionResolveRequest.Method())),
		})
	}
	if offered(caps, protocol.CodeLensRequest.Method()) {
		out.CodeLensProvider = &protocol.CodeLensOptions{ResolveProvider: protocol.Ptr(offered(caps, protocol.CodeLensResolveRequest.Method()))}
	}
	if offered(caps, protocol.DocumentLinkRequest.Method()) {
		out.DocumentLinkProvider = &protocol.DocumentLinkOptions{ResolveProvider: protocol.Ptr(offered(caps, protocol.DocumentLinkResolveRequest.Method()))}
	}
	if offered(caps, protocol.WorkspaceSymbolRequest.Method()) {
		out.WorkspaceSymbolProvider = protocol.NewServerCapabilitiesWorkspaceSymbolProviderBoolean(true)
	}
	for _, c := range caps {
		if c.CompletionProvider != nil {
			if out.CompletionProvider == nil {
				out.CompletionProvider = &protocol.CompletionOptions{}
			}
			if c.CompletionProvider.ResolveProvider != nil && *c.CompletionProvider.ResolveProvider {
				out.CompletionProvider.ResolveProvider = protocol.Ptr(true)
			}
			out.CompletionProvider.TriggerCharacters = merge(out.CompletionProvider.TriggerCharacters, c.CompletionProvider.TriggerCharacters)
		}
		if c.SignatureHelpProvider != nil {
			if out.SignatureHelpProvider == nil {
				out.SignatureHelpProvider = &protocol.SignatureHelpOptions{}
			}
			out.SignatureHelpProvider.TriggerCharacters = merge(out.SignatureHelpProvider.TriggerCharacters, c.SignatureHelpProvider.TriggerCharacters)
			out.SignatureHelpProvider.RetriggerCharacters = merge(out.SignatureHelpProvider.RetriggerCharacters, c.SignatureHelpProvider.RetriggerCharacters)
		}
	}
	return out
}

// offered reports whether some server offers method.
func offered(caps []protocol.ServerCapabilities, method string) bool {
	return slices.ContainsFunc(caps, func(c protocol.ServerCapabilities) bool { return c.Supports(method) })
}

// firstSet is the first server's value of a capability that is set.
func firstSet[T any](caps []protocol.ServerCapabilities, get func(*protocol.ServerCapabilities) T) T {
	for i := range caps {
		v := get(&caps[i])
		if !reflect.ValueOf(&v).Elem().IsZero() {
			return v
		}
	}
	var zero T
	return zero
}

// merge appends to a the strings of b it lacks.
func merge(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}
