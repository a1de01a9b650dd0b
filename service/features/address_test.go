package features

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// TestAddressFake: a symbol without a line resolves through the file's
// or the workspace's symbols — one match answered with where, several the
// candidates, none the nearest names (and where the name occurs
// undeclared); a line a few lines off its symbol resolves to the nearest
// line, two as near are candidates, none within 5 lines an error.
func TestAddressFake(t *testing.T) {
	f := newFake(t, map[string]string{
		"a.fk": "class Router\n  def Handle\n  def Mount\ndef Handle\ndef URLParam\n",
		"b.fk": "class Mux\n  def Handle\ndef helper\nx Handle\n\n\n\n\n\nlast\n",
	}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("symbols")), map[string]lsptest.Behavior{"symbols": {Symbols: true}})
	f.check(t, api.CheckParams{FilePath: "a.fk"}) // the server runs
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	at := func(p api.PositionParams) (api.LocationsResult, error) { return f.Definition(ctx, p) }
	for _, tc := range []struct {
		name    string
		p       api.PositionParams
		want    string // file:line:character
		note    string
		code    int64
		err     string
		cands   int
		nearest []string
	}{
		{name: "unique", p: api.PositionParams{Symbol: "URLParam"}, want: "a.fk:5:5", note: "`URLParam` resolved to function URLParam at a.fk:5:5"},
		{name: "dotted", p: api.PositionParams{Symbol: "Router.Handle"}, want: "a.fk:2:7", note: "method Router.Handle at a.fk:2:7"},
		{name: "kind", p: api.PositionParams{Symbol: "Handle", Kind: "function"}, want: "a.fk:4:5"},
		{name: "in a file", p: api.PositionParams{File: "b.fk", Symbol: "Handle"}, want: "b.fk:2:7", note: "method Mux.Handle at b.fk:2:7"},
		{name: "ambiguous", p: api.PositionParams{Symbol: "Handle"}, code: api.CodeUnresolved, err: "ambiguous in the workspace: 3 matches", cands: 3},
		{name: "unknown", p: api.PositionParams{Symbol: "URLParm"}, code: api.CodeUnresolved, err: `no symbol "URLParm" is declared in the workspace; nearest names: URLParam`, nearest: []string{"URLParam"}},
		{name: "undeclared in a file", p: api.PositionParams{File: "b.fk", Symbol: "x"}, code: api.CodeUnresolved, err: "it occurs on line 4: pass line"},
		{name: "line off", p: api.PositionParams{File: "a.fk", Line: 1, Symbol: "Mount"}, want: "a.fk:3:7", note: `"Mount" is not on line 1; used line 3 (2 below)`},
		{name: "line between two", p: api.PositionParams{File: "a.fk", Line: 3, Symbol: "Handle"}, code: api.CodeUnresolved, err: "but on lines 2 and 4, as near", cands: 2},
		{name: "line too far", p: api.PositionParams{File: "b.fk", Line: 10, Symbol: "helper"}, code: transport.CodeInvalidParams, err: "nor within 5 lines"},
		{name: "character without line", p: api.PositionParams{Symbol: "x", Character: 3}, code: transport.CodeInvalidParams, err: "character is given without a line"},
		{name: "nothing", p: api.PositionParams{File: "a.fk"}, code: transport.CodeInvalidParams, err: "or give the symbol alone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := at(tc.p)
			if tc.code != 0 {
				data, _ := unresolvedOf(err)
				if !isCode(err, tc.code) || !strings.Contains(err.Error(), tc.err) || len(data.Candidates) != tc.cands || !slices.Equal(data.Nearest, tc.nearest) {
					t.Fatalf("%+v: %+v, %v (%+v); want code %d with %q, %d candidates, nearest %v", tc.p, res, err, data, tc.code, tc.err, tc.cands, tc.nearest)
				}
				return
			}
			if err != nil || len(res.Locations) != 1 {
				t.Fatalf("%+v: %+v, %v", tc.p, res, err)
			}
			l := res.Locations[0]
			if got := fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Character); got != tc.want || !strings.Contains(res.Note, tc.note) {
				t.Fatalf("%+v: at %s, note %q; want %s, note with %q", tc.p, got, res.Note, tc.want, tc.note)
			}
		})
	}
}
