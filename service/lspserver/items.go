package lspserver

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/transport"
)

// Items that come back. A completion item, code action, inlay hint, code
// lens, document link or hierarchy item a server answers may be sent back
// to it (a resolve, a hierarchy's next step) with nothing that names its
// document or its server. lspkit keeps both in the item's data, beside the
// server's own:
//
//	"data": {"lspkit": {"server": "gopls", "uri": "file:///…"}, "data": <the server's>}
//
// and a request bringing the item back goes to that server, with the
// document's text as the client has it and the server's own data.

// origin is where an item came from.
type origin struct {
	Server string               `json:"server"`
	URI    protocol.DocumentURI `json:"uri"`
}

// taggedData is an item's data as the client holds it.
type taggedData struct {
	LSPKit *origin        `json:"lspkit"`
	Data   jsontext.Value `json:"data,omitzero"`
}

// tag returns data kept with its origin.
func tag(o origin, data jsontext.Value) jsontext.Value {
	b, err := json.Marshal(taggedData{LSPKit: &o, Data: data})
	if err != nil {
		return data // unreachable: both parts are valid JSON
	}
	return b
}

// untag reads an item's data: its origin and the server's own data; false
// when lspkit did not tag it.
func untag(data jsontext.Value) (origin, jsontext.Value, bool) {
	var t taggedData
	if len(data) == 0 || json.Unmarshal(data, &t) != nil || t.LSPKit == nil || t.LSPKit.Server == "" {
		return origin{}, nil, false
	}
	return *t.LSPKit, t.Data, true
}

// resolvesActions reports whether the client resolves code actions' edits
// itself (codeAction/resolve); if not, lspkit resolves them before it
// answers.
func (s *Server) resolvesActions() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	td := s.clientCaps.TextDocument
	if td == nil || td.CodeAction == nil || td.CodeAction.ResolveSupport == nil {
		return false
	}
	return slices.Contains(td.CodeAction.ResolveSupport.Properties, "edit")
}

// notOurs is the answer to an item lspkit did not give out.
func notOurs(method string) error {
	return &transport.Error{Code: transport.CodeInvalidParams, Message: method + ": the item carries no data lspkit gave it (its server is unknown): send back an item as it was answered"}
}

// back sends t's request about an item to the server it came from, for
// the document it came from (the client's text when it has it open).
func back[P, R any](ctx context.Context, s *Server, o origin, t protocol.RequestType[P, R], params P) (R, error) {
	var zero R
	held, _, err := s.hold(ctx, o.URI, t.Method(), true)
	if err != nil {
		return zero, s.unanswered(ctx, o.URI, t.Method(), err)
	}
	var h *orchestrator.Held
	for i := range held {
		if held[i].Server == o.Server && h == nil {
			h = &held[i]
			continue
		}
		held[i].Release()
	}
	if h == nil {
		return zero, &transport.Error{Code: transport.CodeInvalidParams, Message: fmt.Sprintf("%s: %s does not offer it for %s now", t.Method(), o.Server, o.URI)}
	}
	defer h.Release()
	r, err := client.Forward(ctx, h.Client, t, params)
	if err != nil {
		if ctx.Err() != nil {
			return zero, cancelled(ctx)
		}
		return zero, forwardError(h.Server, t.Method(), err)
	}
	return r, nil
}

// firstFrom asks the first server of uri offering t's method (an empty
// answer, with a log message saying why, when none can) and says which
// server answered and the client's document versions it answered for.
func firstFrom[P, R any](ctx context.Context, s *Server, uri protocol.DocumentURI, t protocol.RequestType[P, R], params P) (R, string, versions, error) {
	var zero R
	held, vs, err := s.hold(ctx, uri, t.Method(), false)
	if err != nil {
		return zero, "", nil, s.unanswered(ctx, uri, t.Method(), err)
	}
	defer held[0].Release()
	r, err := client.Forward(ctx, held[0].Client, t, params)
	if err != nil {
		if ctx.Err() != nil {
			return zero, "", nil, cancelled(ctx)
		}
		return zero, "", nil, forwardError(held[0].Server, t.Method(), err)
	}
	return r, held[0].Server, vs, nil
}

// CompletionItemResolve asks the server the item came from.
func (s *Server) CompletionItemResolve(ctx context.Context, p *protocol.CompletionItem) (protocol.CompletionItem, error) {
	return resolve(ctx, s, protocol.CompletionResolveRequest, *p, func(i *protocol.CompletionItem) *jsontext.Value { return &i.Data })
}

// resolve sends an item back to the server it came from, with the
// server's own data, and gives the answer the item's origin again.
func resolve[T any](ctx context.Context, s *Server, t protocol.RequestType[T, T], item T, data func(*T) *jsontext.Value) (T, error) {
	o, own, ok := untag(*data(&item))
	if !ok {
		return item, notOurs(t.Method())
	}
	q := item
	*data(&q) = own
	r, err := back(ctx, s, o, t, q)
	if err != nil {
		return item, err
	}
	*data(&r) = tag(o, *data(&r))
	return r, nil
}

// TextDocumentCodeAction asks every server of the file and merges their
// actions in server order; each action keeps its origin for its resolve.
// A client that cannot resolve actions gets them resolved (their edits
// filled in) before the answer.
func (s *Server) TextDocumentCodeAction(ctx context.Context, p *protocol.CodeActionParams) (protocol.Nullable[[]protocol.CommandOrCodeAction], error) {
	answers, vs, err := eachFrom(ctx, s, p.TextDocument.URI, protocol.CodeActionRequest, *p)
	if err != nil || len(answers) == 0 {
		return protocol.Nullable[[]protocol.CommandOrCodeAction]{}, err
	}
	var all []protocol.CommandOrCodeAction
	for _, a := range answers {
		v, ok := a.r.Get()
		if !ok {
			continue
		}
		o := origin{Server: a.server, URI: p.TextDocument.URI}
		for _, x := range v {
			ca, ok := x.AsCodeAction()
			if !ok {
				all = append(all, x)
				continue
			}
			if ca.Edit == nil && ca.Command == nil && !s.resolvesActions() {
				ca.Data = tag(o, ca.Data)
				resolved, err := s.CodeActionResolve(ctx, &ca)
				if err != nil {
					s.log.Warn("lsp: resolving a code action", "server", a.server, "title", ca.Title, "err", err)
					continue // an action with nothing to do is not offered
				}
				ca = resolved
			}
			if ca.Edit != nil {
				vs.apply(ca.Edit)
			}
			ca.Data = tag(o, ca.Data)
			all = append(all, protocol.NewCommandOrCodeActionCodeAction(ca))
		}
	}
	return protocol.NewNullable(all), nil
}

// CodeActionResolve asks the server the action came from; the edit names
// the client's document versions.
func (s *Server) CodeActionResolve(ctx context.Context, p *protocol.CodeAction) (protocol.CodeAction, error) {
	o, data, ok := untag(p.Data)
	if !ok {
		return *p, notOurs(protocol.CodeActionResolveRequest.Method())
	}
	ca := *p
	ca.Data = data
	_, vs := s.snapshot("")
	r, err := back(ctx, s, o, protocol.CodeActionResolveRequest, ca)
	if err != nil {
		return *p, err
	}
	if r.Edit != nil {
		vs.apply(r.Edit)
	}
	r.Data = tag(o, r.Data)
	return r, nil
}

// TextDocumentInlayHint asks the file's first server offering hints; each
// hint keeps its origin for its resolve.
func (s *Server) TextDocumentInlayHint(ctx context.Context, p *protocol.InlayHintParams) (protocol.Nullable[[]protocol.InlayHint], error) {
	return prepare(ctx, s, p.TextDocument.URI, protocol.InlayHintRequest, *p, func(h *protocol.InlayHint) *jsontext.Value { return &h.Data })
}

// InlayHintResolve asks the server the hint came from.
func (s *Server) InlayHintResolve(ctx context.Context, p *protocol.InlayHint) (protocol.InlayHint, error) {
	return resolve(ctx, s, protocol.InlayHintResolveRequest, *p, func(h *protocol.InlayHint) *jsontext.Value { return &h.Data })
}

// TextDocumentCodeLens asks every server of the file offering lenses and
// merges them in server order; each keeps its origin for its resolve.
func (s *Server) TextDocumentCodeLens(ctx context.Context, p *protocol.CodeLensParams) (protocol.Nullable[[]protocol.CodeLens], error) {
	return merged(ctx, s, p.TextDocument.URI, protocol.CodeLensRequest, *p, func(l *protocol.CodeLens) *jsontext.Value { return &l.Data })
}

// CodeLensResolve asks the server the lens came from.
func (s *Server) CodeLensResolve(ctx context.Context, p *protocol.CodeLens) (protocol.CodeLens, error) {
	return resolve(ctx, s, protocol.CodeLensResolveRequest, *p, func(l *protocol.CodeLens) *jsontext.Value { return &l.Data })
}

// TextDocumentDocumentLink asks every server of the file offering links
// and merges them; each keeps its origin for its resolve.
func (s *Server) TextDocumentDocumentLink(ctx context.Context, p *protocol.DocumentLinkParams) (protocol.Nullable[[]protocol.DocumentLink], error) {
	return merged(ctx, s, p.TextDocument.URI, protocol.DocumentLinkRequest, *p, func(l *protocol.DocumentLink) *jsontext.Value { return &l.Data })
}

// merged asks every server of uri offering t's method and concatenates
// their items in server order, each keeping its origin.
func merged[P, T any](ctx context.Context, s *Server, uri protocol.DocumentURI, t protocol.RequestType[P, protocol.Nullable[[]T]], params P, data func(*T) *jsontext.Value) (protocol.Nullable[[]T], error) {
	answers, _, err := eachFrom(ctx, s, uri, t, params)
	if err != nil || len(answers) == 0 {
		return protocol.Nullable[[]T]{}, err
	}
	all := []T{}
	for _, a := range answers {
		items, _ := a.r.Get()
		o := origin{Server: a.server, URI: uri}
		for _, it := range items {
			*data(&it) = tag(o, *data(&it))
			all = append(all, it)
		}
	}
	return protocol.NewNullable(all), nil
}

// DocumentLinkResolve asks the server the link came from.
func (s *Server) DocumentLinkResolve(ctx context.Context, p *protocol.DocumentLink) (protocol.DocumentLink, error) {
	return resolve(ctx, s, protocol.DocumentLinkResolveRequest, *p, func(l *protocol.DocumentLink) *jsontext.Value { return &l.Data })
}

// TextDocumentPrepareCallHierarchy asks the file's first server offering
// call hierarchy; each item keeps its origin for the calls asked of it.
func (s *Server) TextDocumentPrepareCallHierarchy(ctx context.Context, p *protocol.CallHierarchyPrepareParams) (protocol.Nullable[[]protocol.CallHierarchyItem], error) {
	return prepare(ctx, s, p.TextDocument.URI, protocol.CallHierarchyPrepareRequest, *p, func(i *protocol.CallHierarchyItem) *jsontext.Value { return &i.Data })
}

// CallHierarchyIncomingCalls asks the server the item came from; the
// callers keep it as their origin, for the next step.
func (s *Server) CallHierarchyIncomingCalls(ctx context.Context, p *protocol.CallHierarchyIncomingCallsParams) (protocol.Nullable[[]protocol.CallHierarchyIncomingCall], error) {
	return step(ctx, s, protocol.CallHierarchyIncomingCallsRequest, *p, func(p *protocol.CallHierarchyIncomingCallsParams) *jsontext.Value { return &p.Item.Data },
		func(c *protocol.CallHierarchyIncomingCall) (protocol.DocumentURI, *jsontext.Value) {
			return c.From.URI, &c.From.Data
		})
}

// CallHierarchyOutgoingCalls asks the server the item came from; the
// callees keep it as their origin.
func (s *Server) CallHierarchyOutgoingCalls(ctx context.Context, p *protocol.CallHierarchyOutgoingCallsParams) (protocol.Nullable[[]protocol.CallHierarchyOutgoingCall], error) {
	return step(ctx, s, protocol.CallHierarchyOutgoingCallsRequest, *p, func(p *protocol.CallHierarchyOutgoingCallsParams) *jsontext.Value { return &p.Item.Data },
		func(c *protocol.CallHierarchyOutgoingCall) (protocol.DocumentURI, *jsontext.Value) {
			return c.To.URI, &c.To.Data
		})
}

// TextDocumentPrepareTypeHierarchy asks the file's first server offering
// type hierarchy; each item keeps its origin.
func (s *Server) TextDocumentPrepareTypeHierarchy(ctx context.Context, p *protocol.TypeHierarchyPrepareParams) (protocol.Nullable[[]protocol.TypeHierarchyItem], error) {
	return prepare(ctx, s, p.TextDocument.URI, protocol.TypeHierarchyPrepareRequest, *p, func(i *protocol.TypeHierarchyItem) *jsontext.Value { return &i.Data })
}

// TypeHierarchySupertypes asks the server the item came from.
func (s *Server) TypeHierarchySupertypes(ctx context.Context, p *protocol.TypeHierarchySupertypesParams) (protocol.Nullable[[]protocol.TypeHierarchyItem], error) {
	return step(ctx, s, protocol.TypeHierarchySupertypesRequest, *p, func(p *protocol.TypeHierarchySupertypesParams) *jsontext.Value { return &p.Item.Data }, typeItem)
}

// TypeHierarchySubtypes asks the server the item came from.
func (s *Server) TypeHierarchySubtypes(ctx context.Context, p *protocol.TypeHierarchySubtypesParams) (protocol.Nullable[[]protocol.TypeHierarchyItem], error) {
	return step(ctx, s, protocol.TypeHierarchySubtypesRequest, *p, func(p *protocol.TypeHierarchySubtypesParams) *jsontext.Value { return &p.Item.Data }, typeItem)
}

func typeItem(i *protocol.TypeHierarchyItem) (protocol.DocumentURI, *jsontext.Value) {
	return i.URI, &i.Data
}

// prepare asks the file's first server offering t's method; each item it
// answers keeps its origin.
func prepare[P, T any](ctx context.Context, s *Server, uri protocol.DocumentURI, t protocol.RequestType[P, protocol.Nullable[[]T]], params P, data func(*T) *jsontext.Value) (protocol.Nullable[[]T], error) {
	r, server, _, err := firstFrom(ctx, s, uri, t, params)
	items, ok := r.Get()
	if err != nil || !ok {
		return r, err
	}
	for i := range items {
		*data(&items[i]) = tag(origin{Server: server, URI: uri}, *data(&items[i]))
	}
	return protocol.NewNullable(items), nil
}

// step sends a hierarchy item back to the server it came from (the
// hierarchy's next step); the items answered keep that server as their
// origin, with their own documents.
func step[P, R any](ctx context.Context, s *Server, t protocol.RequestType[P, protocol.Nullable[[]R]], params P, in func(*P) *jsontext.Value, out func(*R) (protocol.DocumentURI, *jsontext.Value)) (protocol.Nullable[[]R], error) {
	o, own, ok := untag(*in(&params))
	if !ok {
		return protocol.Nullable[[]R]{}, notOurs(t.Method())
	}
	*in(&params) = own
	r, err := back(ctx, s, o, t, params)
	items, ok := r.Get()
	if err != nil || !ok {
		return r, err
	}
	for i := range items {
		uri, data := out(&items[i])
		*data = tag(origin{Server: o.Server, URI: uri}, *data)
	}
	return protocol.NewNullable(items), nil
}

// WorkspaceSymbol asks every fronted server offering workspace symbols, at
// once, and merges their answers in server order, a symbol two servers
// name at the same place once: one kind of symbol when all answered with
// it, else SymbolInformation (lspkit asks its servers for full locations).
func (s *Server) WorkspaceSymbol(ctx context.Context, p *protocol.WorkspaceSymbolParams) (protocol.Nullable[protocol.SymbolInformationSliceOrWorkspaceSymbolSlice], error) {
	s.mu.Lock()
	ids := slices.Clone(s.symbolServers)
	s.mu.Unlock()
	answers := make([]protocol.Nullable[protocol.SymbolInformationSliceOrWorkspaceSymbolSlice], len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			h, err := s.b.HoldServer(ctx, id)
			if err != nil {
				errs[i] = err
				return
			}
			defer h.Release()
			answers[i], errs[i] = client.Forward(ctx, h.Client, protocol.WorkspaceSymbolRequest, *p)
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return protocol.Nullable[protocol.SymbolInformationSliceOrWorkspaceSymbolSlice]{}, cancelled(ctx)
	}
	var infos []protocol.SymbolInformation
	var symbols []protocol.WorkspaceSymbol
	for i, a := range answers {
		if errs[i] != nil {
			s.log.Warn("lsp: a server failed", "server", ids[i], "method", protocol.WorkspaceSymbolRequest.Method(), "err", errs[i])
			continue
		}
		v, ok := a.Get()
		if !ok {
			continue
		}
		if si, ok := v.AsSymbolInformationSlice(); ok {
			for _, x := range si {
				if !slices.ContainsFunc(infos, func(y protocol.SymbolInformation) bool { return sameSymbol(x, y) }) {
					infos = append(infos, x)
				}
			}
		}
		if ws, ok := v.AsWorkspaceSymbolSlice(); ok {
			symbols = append(symbols, ws...) // each with its server's data: not merged
		}
	}
	if len(infos) == 0 {
		return protocol.NewNullable(protocol.NewSymbolInformationSliceOrWorkspaceSymbolSliceWorkspaceSymbolSlice(orEmpty(symbols))), nil
	}
	for _, ws := range symbols {
		loc, ok := ws.Location.AsLocation()
		if !ok {
			continue // a location without a range: lspkit does not ask for those
		}
		infos = append(infos, protocol.SymbolInformation{Name: ws.Name, Kind: ws.Kind, Tags: ws.Tags, ContainerName: ws.ContainerName, Location: loc})
	}
	return protocol.NewNullable(protocol.NewSymbolInformationSliceOrWorkspaceSymbolSliceSymbolInformationSlice(infos)), nil
}

// sameSymbol reports whether two servers named the same symbol at the same
// place (two servers of one language, over the same files).
func sameSymbol(a, b protocol.SymbolInformation) bool {
	return a.Name == b.Name && a.Kind == b.Kind && a.Location == b.Location
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// answerFrom is one server's answer.
type answerFrom[R any] struct {
	server string
	r      R
}

// eachFrom is each, with the server of each answer.
func eachFrom[P, R any](ctx context.Context, s *Server, uri protocol.DocumentURI, t protocol.RequestType[P, R], params P) ([]answerFrom[R], versions, error) {
	held, vs, err := s.hold(ctx, uri, t.Method(), true)
	if err != nil {
		return nil, nil, s.unanswered(ctx, uri, t.Method(), err)
	}
	out := make([]R, len(held))
	errs := make([]error, len(held))
	var wg sync.WaitGroup
	for i, h := range held {
		wg.Go(func() {
			defer h.Release()
			out[i], errs[i] = client.Forward(ctx, h.Client, t, params)
		})
	}
	wg.Wait()
	var ok []answerFrom[R]
	for i := range held {
		if errs[i] != nil {
			s.log.Warn("lsp: a server failed", "server", held[i].Server, "method", t.Method(), "err", errs[i])
			if ctx.Err() == nil {
				s.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("lspkit: %s for %s: %s", t.Method(), uri, forwardError(held[i].Server, t.Method(), errs[i]).Error()))
			}
			continue
		}
		ok = append(ok, answerFrom[R]{server: held[i].Server, r: out[i]})
	}
	if len(ok) == 0 && len(errs) > 0 {
		if ctx.Err() != nil {
			return nil, nil, cancelled(ctx)
		}
		return nil, nil, forwardError(held[0].Server, t.Method(), errs[0])
	}
	return ok, vs, nil
}
