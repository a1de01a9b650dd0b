package orchestrator

import (
	"context"
	"os"
	"strings"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// The core's tests ask a server where a feature (package features) would:
// through Hold, as features do, with the position read plainly (a line,
// and a character or the first occurrence of a symbol on it).

// ask holds the first server of p's file that offers method and returns
// the server's position for p.
func ask(ctx context.Context, o *Orchestrator, p api.PositionParams, method string) (Held, protocol.Position, error) {
	hs, err := o.Hold(ctx, p.File, nil, method, false)
	if err != nil {
		return Held{}, protocol.Position{}, err
	}
	h := hs[0]
	line := ""
	if p.Line >= 1 && p.Line <= len(h.Lines) {
		line = h.Lines[p.Line-1]
	}
	col := p.Character - 1
	if p.Symbol != "" {
		col = len([]rune(line[:wordAt(line, p.Symbol)]))
	}
	return h, protocol.Position{Line: uint32(p.Line - 1), Character: h.Client.Mapper().Column(line, col)}, nil
}

// hover is the server's hover at p, with the hold's note.
func hover(ctx context.Context, o *Orchestrator, p api.PositionParams) (api.HoverResult, error) {
	h, pos, err := ask(ctx, o, p, protocol.HoverRequest.Method())
	if err != nil {
		return api.HoverResult{}, err
	}
	defer h.Release()
	text, ok, err := h.Client.Hover(ctx, h.URI, pos)
	if err != nil || !ok {
		return api.HoverResult{Note: h.Note}, err
	}
	return api.HoverResult{Content: &text, Note: h.Note}, nil
}

// definition is where the server says the symbol at p is defined.
func definition(ctx context.Context, o *Orchestrator, p api.PositionParams) (api.LocationsResult, error) {
	h, pos, err := ask(ctx, o, p, protocol.DefinitionRequest.Method())
	if err != nil {
		return api.LocationsResult{}, err
	}
	defer h.Release()
	locs, err := h.Client.Definition(ctx, h.URI, pos)
	if err != nil {
		return api.LocationsResult{Note: h.Note}, err
	}
	out := api.LocationsResult{Note: h.Note}
	for _, l := range locs {
		path, err := l.URI.Path()
		if err != nil {
			continue
		}
		data, _ := os.ReadFile(path)
		line, char := h.Client.Mapper().Place(strings.Split(string(data), "\n"), l.Range.Start)
		out.Locations = append(out.Locations, api.Location{File: o.Rel(path), Line: line, Character: char})
	}
	return out, nil
}

// wordAt is the byte offset of the first occurrence of word in line as a
// whole identifier (0 when there is none).
func wordAt(line, word string) int {
	ident := func(b byte) bool {
		return b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
	}
	for from := 0; from < len(line); {
		i := strings.Index(line[from:], word)
		if i < 0 {
			break
		}
		i += from
		end := i + len(word)
		if (i == 0 || !ident(line[i-1])) && (end == len(line) || !ident(line[end])) {
			return i
		}
		from = i + 1
	}
	return 0
}
