package client

import (
	"context"
	"fmt"
	"strings"

	"github.com/lspkit/lspkit/protocol"
)

// Definition returns where the symbol at pos is defined. Location and
// LocationLink results come back alike: a LocationLink gives its target URI
// and target selection range.
func (c *Client) Definition(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.Location, error) {
	res, err := protocol.DefinitionRequest.Call(ctx, c.conn, protocol.DefinitionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos})
	return c.locations(protocol.DefinitionRequest.Method(), res, err)
}

// TypeDefinition returns where the type of the symbol at pos is defined.
func (c *Client) TypeDefinition(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.Location, error) {
	res, err := protocol.TypeDefinitionRequest.Call(ctx, c.conn, protocol.TypeDefinitionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos})
	return c.locations(protocol.TypeDefinitionRequest.Method(), res, err)
}

// Implementation returns the implementations of the symbol at pos.
func (c *Client) Implementation(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.Location, error) {
	res, err := protocol.ImplementationRequest.Call(ctx, c.conn, protocol.ImplementationParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos})
	return c.locations(protocol.ImplementationRequest.Method(), res, err)
}

// locations flattens a definition-like result into Locations.
func (c *Client) locations(method string, res protocol.Nullable[protocol.DefinitionOrDefinitionLinkSlice], err error) ([]protocol.Location, error) {
	if err != nil {
		return nil, fmt.Errorf("client: %s: %s: %w", c.cfg.Name, method, err)
	}
	v, ok := res.Get()
	if !ok {
		return nil, nil
	}
	if links, ok := v.AsDefinitionLinkSlice(); ok {
		out := make([]protocol.Location, len(links))
		for i, l := range links {
			out[i] = protocol.Location{URI: l.TargetURI, Range: l.TargetSelectionRange}
		}
		return out, nil
	}
	def, _ := v.AsDefinition()
	if loc, ok := def.AsLocation(); ok {
		return []protocol.Location{loc}, nil
	}
	locs, _ := def.AsLocationSlice()
	return locs, nil
}

// References returns the references to the symbol at pos, with its
// declaration when includeDeclaration is set.
func (c *Client) References(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position, includeDeclaration bool) ([]protocol.Location, error) {
	params := protocol.ReferenceParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos,
		Context: protocol.ReferenceContext{IncludeDeclaration: includeDeclaration},
	}
	res, err := protocol.ReferencesRequest.Call(ctx, c.conn, params)
	if err != nil {
		return nil, fmt.Errorf("client: %s: references: %w", c.cfg.Name, err)
	}
	locs, _ := res.Get()
	return locs, nil
}

// Hover returns the hover text at pos as markdown (plain text and
// MarkedString code blocks are turned into markdown), and false when the
// server has nothing to say.
func (c *Client) Hover(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) (string, bool, error) {
	res, err := protocol.HoverRequest.Call(ctx, c.conn, protocol.HoverParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos})
	if err != nil {
		return "", false, fmt.Errorf("client: %s: hover: %w", c.cfg.Name, err)
	}
	h, ok := res.Get()
	if !ok {
		return "", false, nil
	}
	var text string
	if mc, ok := h.Contents.AsMarkupContent(); ok {
		text = mc.Value
	} else if ms, ok := h.Contents.AsMarkedString(); ok {
		text = markedString(ms)
	} else if list, ok := h.Contents.AsMarkedStringSlice(); ok {
		parts := make([]string, len(list))
		for i, ms := range list {
			parts[i] = markedString(ms)
		}
		text = strings.Join(parts, "\n\n")
	}
	return text, strings.TrimSpace(text) != "", nil
}

// markedString renders a MarkedString as markdown.
//
//lint:ignore SA1019 MarkedString is deprecated, but servers still send it.
func markedString(ms protocol.MarkedString) string {
	if s, ok := ms.AsString(); ok {
		return s
	}
	w, _ := ms.AsMarkedStringWithLanguage()
	return "```" + w.Language + "\n" + w.Value + "\n```"
}

// Symbol is a document symbol, hierarchical where the server gives a
// hierarchy (DocumentSymbol), flat with a container name where it gives
// SymbolInformation.
type Symbol struct {
	Name           string
	Kind           protocol.SymbolKind
	Detail         string
	Container      string
	Range          protocol.Range // the whole symbol
	SelectionRange protocol.Range // its name
	Children       []Symbol
}

// DocumentSymbols returns the symbols of a document.
func (c *Client) DocumentSymbols(ctx context.Context, uri protocol.DocumentURI) ([]Symbol, error) {
	res, err := protocol.DocumentSymbolRequest.Call(ctx, c.conn, protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}})
	if err != nil {
		return nil, fmt.Errorf("client: %s: documentSymbol: %w", c.cfg.Name, err)
	}
	v, ok := res.Get()
	if !ok {
		return nil, nil
	}
	if tree, ok := v.AsDocumentSymbolSlice(); ok {
		return fromDocumentSymbols(tree), nil
	}
	infos, _ := v.AsSymbolInformationSlice()
	out := make([]Symbol, len(infos))
	for i, si := range infos {
		out[i] = Symbol{Name: si.Name, Kind: si.Kind, Container: deref(si.ContainerName), Range: si.Location.Range, SelectionRange: si.Location.Range}
	}
	return out, nil
}

func fromDocumentSymbols(in []protocol.DocumentSymbol) []Symbol {
	out := make([]Symbol, len(in))
	for i, ds := range in {
		out[i] = Symbol{Name: ds.Name, Kind: ds.Kind, Detail: deref(ds.Detail), Range: ds.Range, SelectionRange: ds.SelectionRange, Children: fromDocumentSymbols(ds.Children)}
	}
	return out
}

// WorkspaceSymbol is a symbol found by a workspace-wide query. A server may
// give only the file (no range) for some symbols.
type WorkspaceSymbol struct {
	Name      string
	Kind      protocol.SymbolKind
	Container string
	URI       protocol.DocumentURI
	Range     *protocol.Range
}

// WorkspaceSymbols returns the symbols matching query across the workspace.
func (c *Client) WorkspaceSymbols(ctx context.Context, query string) ([]WorkspaceSymbol, error) {
	res, err := protocol.WorkspaceSymbolRequest.Call(ctx, c.conn, protocol.WorkspaceSymbolParams{Query: query})
	if err != nil {
		return nil, fmt.Errorf("client: %s: workspace/symbol: %w", c.cfg.Name, err)
	}
	v, ok := res.Get()
	if !ok {
		return nil, nil
	}
	var out []WorkspaceSymbol
	if infos, ok := v.AsSymbolInformationSlice(); ok {
		for _, si := range infos {
			out = append(out, WorkspaceSymbol{Name: si.Name, Kind: si.Kind, Container: deref(si.ContainerName), URI: si.Location.URI, Range: protocol.Ptr(si.Location.Range)})
		}
		return out, nil
	}
	syms, _ := v.AsWorkspaceSymbolSlice()
	for _, ws := range syms {
		s := WorkspaceSymbol{Name: ws.Name, Kind: ws.Kind, Container: deref(ws.ContainerName)}
		if loc, ok := ws.Location.AsLocation(); ok {
			s.URI, s.Range = loc.URI, protocol.Ptr(loc.Range)
		} else if only, ok := ws.Location.AsLocationURIOnly(); ok {
			s.URI = only.URI
		}
		out = append(out, s)
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// PrepareCallHierarchy returns the call-hierarchy items at pos: the
// function or method there, as the server names it for the calls requests.
func (c *Client) PrepareCallHierarchy(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position) ([]protocol.CallHierarchyItem, error) {
	res, err := protocol.CallHierarchyPrepareRequest.Call(ctx, c.conn, protocol.CallHierarchyPrepareParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos})
	if err != nil {
		return nil, fmt.Errorf("client: %s: %s: %w", c.cfg.Name, protocol.CallHierarchyPrepareRequest.Method(), err)
	}
	items, _ := res.Get()
	return items, nil
}

// Call is one edge of the call hierarchy: the other end (the caller for
// incoming calls, the callee for outgoing ones) and where the calls are.
// For incoming calls the ranges are in the caller's file; for outgoing
// ones in the file of the item asked about.
type Call struct {
	Item   protocol.CallHierarchyItem
	Ranges []protocol.Range
}

// IncomingCalls returns the callers of item.
func (c *Client) IncomingCalls(ctx context.Context, item protocol.CallHierarchyItem) ([]Call, error) {
	res, err := protocol.CallHierarchyIncomingCallsRequest.Call(ctx, c.conn, protocol.CallHierarchyIncomingCallsParams{Item: item})
	if err != nil {
		return nil, fmt.Errorf("client: %s: %s: %w", c.cfg.Name, protocol.CallHierarchyIncomingCallsRequest.Method(), err)
	}
	calls, _ := res.Get()
	out := make([]Call, len(calls))
	for i, call := range calls {
		out[i] = Call{Item: call.From, Ranges: call.FromRanges}
	}
	return out, nil
}

// OutgoingCalls returns what item calls.
func (c *Client) OutgoingCalls(ctx context.Context, item protocol.CallHierarchyItem) ([]Call, error) {
	res, err := protocol.CallHierarchyOutgoingCallsRequest.Call(ctx, c.conn, protocol.CallHierarchyOutgoingCallsParams{Item: item})
	if err != nil {
		return nil, fmt.Errorf("client: %s: %s: %w", c.cfg.Name, protocol.CallHierarchyOutgoingCallsRequest.Method(), err)
	}
	calls, _ := res.Get()
	out := make([]Call, len(calls))
	for i, call := range calls {
		out[i] = Call{Item: call.To, Ranges: call.FromRanges}
	}
	return out, nil
}

// Rename asks the server for the edit that renames the symbol at pos to
// newName; nothing is applied. A server with nothing to rename there
// answers with no edit (ok false).
func (c *Client) Rename(ctx context.Context, uri protocol.DocumentURI, pos protocol.Position, newName string) (protocol.WorkspaceEdit, bool, error) {
	res, err := protocol.RenameRequest.Call(ctx, c.conn, protocol.RenameParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: pos, NewName: newName})
	if err != nil {
		return protocol.WorkspaceEdit{}, false, fmt.Errorf("client: %s: %s: %w", c.cfg.Name, protocol.RenameRequest.Method(), err)
	}
	edit, ok := res.Get()
	return edit, ok, nil
}
