package lspserver

import (
	"context"
	"errors"
	"slices"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// Semantic tokens. Each server numbers its token types and modifiers by
// its own legend; the client knows one. lspkit announces the union of the
// servers' legends (each server's types and modifiers in its order, those
// of the next server it lacks after them) and renumbers each server's
// tokens into it. Whole documents and ranges are answered; deltas are not
// offered (a client asks for the whole document again).

// legends are the fronted servers' semantic token legends, renumbered
// into the union announced.
type legends struct {
	union protocol.SemanticTokensLegend
	// types and mods map each server's indices to the union's: a token
	// type's index, a modifier's bit.
	types, mods map[string][]uint32
	// rangeOffered: the union offers ranges (some server does).
	rangeOffered bool
}

// semanticLegend is a server's legend and what it offers, if it offers
// semantic tokens.
func semanticLegend(c protocol.ServerCapabilities) (protocol.SemanticTokensLegend, bool, bool) {
	if o, ok := c.SemanticTokensProvider.AsSemanticTokensOptions(); ok {
		return o.Legend, !o.Range.IsZero() && o.Range != protocol.NewBooleanOrEmptyObjectBoolean(false), true
	}
	if o, ok := c.SemanticTokensProvider.AsSemanticTokensRegistrationOptions(); ok {
		return o.Legend, !o.Range.IsZero() && o.Range != protocol.NewBooleanOrEmptyObjectBoolean(false), true
	}
	return protocol.SemanticTokensLegend{}, false, false
}

// newLegends merges the servers' legends (caps[i] is ids[i]'s).
func newLegends(ids []string, caps []protocol.ServerCapabilities) *legends {
	l := &legends{types: map[string][]uint32{}, mods: map[string][]uint32{}}
	index := func(list *[]string, name string) uint32 {
		if i := slices.Index(*list, name); i >= 0 {
			return uint32(i)
		}
		*list = append(*list, name)
		return uint32(len(*list) - 1)
	}
	for i, c := range caps {
		legend, ranges, ok := semanticLegend(c)
		if !ok {
			continue
		}
		l.rangeOffered = l.rangeOffered || ranges
		for _, t := range legend.TokenTypes {
			l.types[ids[i]] = append(l.types[ids[i]], index(&l.union.TokenTypes, t))
		}
		for _, m := range legend.TokenModifiers {
			l.mods[ids[i]] = append(l.mods[ids[i]], index(&l.union.TokenModifiers, m))
		}
	}
	if len(l.types) == 0 {
		return nil
	}
	if l.union.TokenModifiers == nil {
		l.union.TokenModifiers = []string{}
	}
	return l
}

// options are the semantic tokens lspkit offers.
func (l *legends) options() protocol.ServerCapabilitiesSemanticTokensProvider {
	return protocol.NewServerCapabilitiesSemanticTokensProviderSemanticTokensOptions(protocol.SemanticTokensOptions{
		Legend: l.union,
		Range:  protocol.NewBooleanOrEmptyObjectBoolean(l.rangeOffered),
		Full:   protocol.NewSemanticTokensOptionsFullBoolean(true),
	})
}

// renumber rewrites server's tokens (five numbers each: line, start,
// length, type, modifiers) into the union's numbering; a type or modifier
// outside the server's legend is dropped.
func (l *legends) renumber(server string, data []uint32) []uint32 {
	types, mods := l.types[server], l.mods[server]
	out := make([]uint32, 0, len(data))
	var carryLine, carryStart uint32 // the deltas of tokens dropped, added to the next
	for i := 0; i+4 < len(data); i += 5 {
		dLine, dStart, length, typ, bits := data[i], data[i+1], data[i+2], data[i+3], data[i+4]
		if int(typ) >= len(types) {
			if dLine > 0 {
				carryLine += dLine
				carryStart = dStart
			} else {
				carryStart += dStart
			}
			continue
		}
		if carryLine > 0 || carryStart > 0 {
			if dLine > 0 {
				dLine += carryLine
			} else {
				dLine = carryLine
				dStart += carryStart
			}
			carryLine, carryStart = 0, 0
		}
		var m uint32
		for b := 0; b < 32 && bits != 0; b++ {
			if bits&(1<<b) != 0 {
				bits &^= 1 << b
				if b < len(mods) && mods[b] < 32 {
					m |= 1 << mods[b]
				}
			}
		}
		out = append(out, dLine, dStart, length, types[typ], m)
	}
	return out
}

// TextDocumentSemanticTokensFull asks the file's first server offering
// semantic tokens and renumbers them into the union's legend.
func (s *Server) TextDocumentSemanticTokensFull(ctx context.Context, p *protocol.SemanticTokensParams) (protocol.Nullable[protocol.SemanticTokens], error) {
	r, server, _, err := firstFrom(ctx, s, p.TextDocument.URI, protocol.SemanticTokensRequest, *p)
	return s.renumbered(server, r, err)
}

// TextDocumentSemanticTokensRange asks the file's first server offering
// ranges; a file whose server offers only whole documents gets those (a
// server may answer for more than the range).
func (s *Server) TextDocumentSemanticTokensRange(ctx context.Context, p *protocol.SemanticTokensRangeParams) (protocol.Nullable[protocol.SemanticTokens], error) {
	held, _, err := s.hold(ctx, p.TextDocument.URI, protocol.SemanticTokensRangeRequest.Method(), false)
	if err == nil {
		held[0].Release()
		r, server, _, err := firstFrom(ctx, s, p.TextDocument.URI, protocol.SemanticTokensRangeRequest, *p)
		return s.renumbered(server, r, err)
	}
	if te, ok := errors.AsType[*transport.Error](err); ok && te.Code == api.CodeNoServer {
		r, server, _, err := firstFrom(ctx, s, p.TextDocument.URI, protocol.SemanticTokensRequest, protocol.SemanticTokensParams{TextDocument: p.TextDocument})
		return s.renumbered(server, r, err)
	}
	return protocol.Nullable[protocol.SemanticTokens]{}, s.unanswered(ctx, p.TextDocument.URI, protocol.SemanticTokensRangeRequest.Method(), err)
}

func (s *Server) renumbered(server string, r protocol.Nullable[protocol.SemanticTokens], err error) (protocol.Nullable[protocol.SemanticTokens], error) {
	tokens, ok := r.Get()
	s.mu.Lock()
	l := s.legends
	s.mu.Unlock()
	if err != nil || !ok || l == nil {
		return r, err
	}
	return protocol.NewNullable(protocol.SemanticTokens{Data: l.renumber(server, tokens.Data)}), nil
}
