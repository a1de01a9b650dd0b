package lspserver

import (
	"reflect"
	"slices"

	"github.com/lspkit/lspkit/protocol"
)

// union is what the front end announces for the servers' capabilities:
// each request it routes, offered when any server offers it (with the
// first offering server's options; completion and signature trigger
// characters merged), UTF-16 positions, and incremental document sync with
// open, close and save. What it does not route yet is left out, so a
// client never asks for it: resolve requests (they carry no document to
// route by), commands, code lenses, semantic tokens, pull diagnostics
// (diagnostics are pushed, merged), workspace symbols, notebooks.
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
		InlayHintProvider: firstSet(caps, func(c *protocol.ServerCapabilities) protocol.ServerCapabilitiesInlayHintProvider {
			return c.InlayHintProvider
		}),
	}
	// Code actions: every server's, merged; offered as a plain yes (their
	// resolve is not routed).
	if slices.ContainsFunc(caps, func(c protocol.ServerCapabilities) bool { return !c.CodeActionProvider.IsZero() }) {
		out.CodeActionProvider = protocol.NewServerCapabilitiesCodeActionProviderBoolean(true)
	}
	for _, c := range caps {
		if c.CompletionProvider != nil {
			if out.CompletionProvider == nil {
				out.CompletionProvider = &protocol.CompletionOptions{}
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
