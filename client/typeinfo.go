package client

import (
	"context"
	"fmt"

	"github.com/lspkit/lspkit/protocol"
)

// Declaration returns where the symbol at pos is declared (a C prototype,
// a Python stub), as Definition does for its definition.
func (c *Client) Declaration(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.Location, error) {
	res, err := protocol.DeclarationRequest.Call(ctx, c.conn, protocol.DeclarationParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos})
	if err != nil {
		return nil, fmt.Errorf("client: %s: declaration: %w", c.cfg.Name, err)
	}
	v, ok := res.Get()
	if !ok {
		return nil, nil
	}
	if links, ok := v.AsDeclarationLinkSlice(); ok {
		out := make([]protocol.Location, len(links))
		for i, l := range links {
			out[i] = protocol.Location{URI: l.TargetURI, Range: l.TargetSelectionRange}
		}
		return out, nil
	}
	decl, _ := v.AsDeclaration()
	if loc, ok := decl.AsLocation(); ok {
		return []protocol.Location{loc}, nil
	}
	locs, _ := decl.AsLocationSlice()
	return locs, nil
}

// DocumentHighlights returns the places in the document where the symbol
// at pos is read, written or named.
func (c *Client) DocumentHighlights(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.DocumentHighlight, error) {
	res, err := protocol.DocumentHighlightRequest.Call(ctx, c.conn, protocol.DocumentHighlightParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos})
	if err != nil {
		return nil, fmt.Errorf("client: %s: documentHighlight: %w", c.cfg.Name, err)
	}
	hs, _ := res.Get()
	return hs, nil
}

// SignatureHelp returns the signatures of the call around pos, and false
// when pos is in no call.
func (c *Client) SignatureHelp(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) (protocol.SignatureHelp, bool, error) {
	params := protocol.SignatureHelpParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos,
		Context: &protocol.SignatureHelpContext{TriggerKind: protocol.SignatureHelpTriggerKindInvoked}}
	res, err := protocol.SignatureHelpRequest.Call(ctx, c.conn, params)
	if err != nil {
		return protocol.SignatureHelp{}, false, fmt.Errorf("client: %s: signatureHelp: %w", c.cfg.Name, err)
	}
	h, ok := res.Get()
	return h, ok && len(h.Signatures) > 0, nil
}

// InlayHints returns the server's inlay hints in rng: inferred types,
// parameter names and the like.
func (c *Client) InlayHints(ctx context.Context, uri protocol.DocumentURI, rng protocol.Range) ([]protocol.InlayHint, error) {
	res, err := protocol.InlayHintRequest.Call(ctx, c.conn, protocol.InlayHintParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Range: rng})
	if err != nil {
		return nil, fmt.Errorf("client: %s: inlayHint: %w", c.cfg.Name, err)
	}
	hs, _ := res.Get()
	return hs, nil
}

// PrepareTypeHierarchy returns the type items at pos.
func (c *Client) PrepareTypeHierarchy(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.TypeHierarchyItem, error) {
	res, err := protocol.TypeHierarchyPrepareRequest.Call(ctx, c.conn, protocol.TypeHierarchyPrepareParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos})
	if err != nil {
		return nil, fmt.Errorf("client: %s: prepareTypeHierarchy: %w", c.cfg.Name, err)
	}
	items, _ := res.Get()
	return items, nil
}

// Supertypes returns the types item extends or implements.
func (c *Client) Supertypes(ctx context.Context, item protocol.TypeHierarchyItem) ([]protocol.TypeHierarchyItem, error) {
	res, err := protocol.TypeHierarchySupertypesRequest.Call(ctx, c.conn, protocol.TypeHierarchySupertypesParams{Item: item})
	if err != nil {
		return nil, fmt.Errorf("client: %s: typeHierarchy/supertypes: %w", c.cfg.Name, err)
	}
	items, _ := res.Get()
	return items, nil
}

// Subtypes returns the types that extend or implement item.
func (c *Client) Subtypes(ctx context.Context, item protocol.TypeHierarchyItem) ([]protocol.TypeHierarchyItem, error) {
	res, err := protocol.TypeHierarchySubtypesRequest.Call(ctx, c.conn, protocol.TypeHierarchySubtypesParams{Item: item})
	if err != nil {
		return nil, fmt.Errorf("client: %s: typeHierarchy/subtypes: %w", c.cfg.Name, err)
	}
	items, _ := res.Get()
	return items, nil
}

// Completion returns the completions at pos and whether the list is
// incomplete (typing more would ask again).
func (c *Client) Completion(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.CompletionItem, bool, error) {
	params := protocol.CompletionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos,
		Context: &protocol.CompletionContext{TriggerKind: protocol.CompletionTriggerKindInvoked}}
	res, err := protocol.CompletionRequest.Call(ctx, c.conn, params)
	if err != nil {
		return nil, false, fmt.Errorf("client: %s: completion: %w", c.cfg.Name, err)
	}
	v, ok := res.Get()
	if !ok {
		return nil, false, nil
	}
	if list, ok := v.AsCompletionList(); ok {
		return list.Items, list.IsIncomplete, nil
	}
	items, _ := v.AsCompletionItemSlice()
	return items, false, nil
}

// ResolveCompletion asks for the rest of a completion item (its
// documentation, its detail) where the server resolves items; it returns
// item as it is where the server does not.
func (c *Client) ResolveCompletion(ctx context.Context, item protocol.CompletionItem) (protocol.CompletionItem, error) {
	opts := c.ServerCapabilities().CompletionProvider
	if opts == nil || opts.ResolveProvider == nil || !*opts.ResolveProvider {
		return item, nil
	}
	res, err := protocol.CompletionResolveRequest.Call(ctx, c.conn, item)
	if err != nil {
		return item, fmt.Errorf("client: %s: completionItem/resolve: %w", c.cfg.Name, err)
	}
	return res, nil
}
