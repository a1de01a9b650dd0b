package features

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// CallHierarchy returns the callers (incoming) or callees (outgoing) of
// the function or method at a position. Incoming calls are listed one per
// call site, at the call; outgoing calls one per callee, at its
// declaration.
func (f *Features) CallHierarchy(ctx context.Context, p api.CallHierarchyParams) (api.CallHierarchyResult, error) {
	return bounded(f, ctx, api.MethodCallHierarchy, func(ctx context.Context) (api.CallHierarchyResult, error) { return f.callHierarchy(ctx, p) })
}

// callHierarchy is CallHierarchy without its bound.
func (f *Features) callHierarchy(ctx context.Context, p api.CallHierarchyParams) (api.CallHierarchyResult, error) {
	out := api.CallHierarchyResult{Calls: []api.Call{}}
	if p.Direction != api.DirectionIncoming && p.Direction != api.DirectionOutgoing {
		return out, api.InvalidParams("direction must be %q or %q, not %q", api.DirectionIncoming, api.DirectionOutgoing, p.Direction)
	}
	op, pos, note, err := f.at(ctx, p.PositionParams, protocol.CallHierarchyPrepareRequest.Method())
	if err != nil {
		return out, err
	}
	defer op.Release()
	out.Note = note
	items, err := op.Client.PrepareCallHierarchy(ctx, op.URI, pos)
	if err != nil {
		return out, err
	}
	if len(items) == 0 {
		line, col := op.Client.Mapper().Place(op.Lines, pos)
		out.Note = api.JoinNotes(out.Note, fmt.Sprintf("no function or method at %s:%d:%d", op.File, line, col))
		return out, nil
	}
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.Name
	}
	out.Function = strings.Join(names, ", ")
	texts := map[protocol.DocumentURI][]string{}
	lines := func(uri protocol.DocumentURI) []string {
		l, ok := texts[uri]
		if !ok {
			l = f.linesOf(op.Client, uri)
			texts[uri] = l
		}
		return l
	}
	m := op.Client.Mapper()
	seen := map[api.Call]bool{}
	add := func(item protocol.CallHierarchyItem, uri protocol.DocumentURI, at protocol.Position) {
		path, err := uri.Path()
		if err != nil {
			return
		}
		ls := lines(uri)
		line, char := m.Place(ls, at)
		call := api.Call{Name: item.Name, Kind: kindName(item.Kind), Detail: deref(item.Detail), File: f.core.Rel(path), Line: line, Character: char, Source: sourceLine(ls, line)}
		if !seen[call] {
			seen[call] = true
			out.Calls = append(out.Calls, call)
		}
	}
	for _, item := range items {
		if p.Direction == api.DirectionIncoming {
			calls, err := op.Client.IncomingCalls(ctx, item)
			if err != nil {
				return out, err
			}
			for _, call := range calls {
				if len(call.Ranges) == 0 {
					add(call.Item, call.Item.URI, call.Item.SelectionRange.Start)
				}
				for _, r := range call.Ranges {
					add(call.Item, call.Item.URI, r.Start)
				}
			}
			continue
		}
		calls, err := op.Client.OutgoingCalls(ctx, item)
		if err != nil {
			return out, err
		}
		for _, call := range calls {
			add(call.Item, call.Item.URI, call.Item.SelectionRange.Start)
		}
	}
	slices.SortStableFunc(out.Calls, func(a, b api.Call) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Character - b.Character
	})
	return out, nil
}
