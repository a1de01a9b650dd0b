package lspserver

import (
	"slices"
	"testing"

	"github.com/lspkit/lspkit/protocol"
)

// TestLegends: two servers' legends merged (the first's order, then what
// the second adds) and each server's tokens renumbered into the union: a
// type's index and each modifier's bit; a token whose type is outside its
// server's legend dropped, its position carried to the next.
func TestLegends(t *testing.T) {
	provider := func(types, mods []string, ranges bool) protocol.ServerCapabilities {
		return protocol.ServerCapabilities{SemanticTokensProvider: protocol.NewServerCapabilitiesSemanticTokensProviderSemanticTokensOptions(protocol.SemanticTokensOptions{
			Legend: protocol.SemanticTokensLegend{TokenTypes: types, TokenModifiers: mods}, Range: protocol.NewBooleanOrEmptyObjectBoolean(ranges),
			Full: protocol.NewSemanticTokensOptionsFullBoolean(true)})}
	}
	l := newLegends([]string{"a", "none", "b"}, []protocol.ServerCapabilities{
		provider([]string{"function", "variable"}, []string{"readonly"}, false),
		{},
		provider([]string{"variable", "keyword"}, []string{"static", "readonly"}, true),
	})
	if !slices.Equal(l.union.TokenTypes, []string{"function", "variable", "keyword"}) || !slices.Equal(l.union.TokenModifiers, []string{"readonly", "static"}) || !l.rangeOffered {
		t.Fatalf("union %+v, ranges %v", l.union, l.rangeOffered)
	}
	// a's numbering is the union's.
	if got := l.renumber("a", []uint32{0, 2, 3, 1, 1}); !slices.Equal(got, []uint32{0, 2, 3, 1, 1}) {
		t.Errorf("a: %v", got)
	}
	// b: keyword 1 → 2, variable 0 → 1; static (bit 0) → bit 1, readonly
	// (bit 1) → bit 0; a type 9 token dropped, its deltas carried.
	got := l.renumber("b", []uint32{
		0, 2, 3, 1, 0b01, // keyword, static
		1, 4, 1, 9, 0, // dropped: line 1, column 4
		0, 3, 2, 0, 0b11, // variable at line 1, column 7, static and readonly
		0, 4, 1, 9, 0, // dropped: same line, 4 on
		1, 5, 1, 1, 0b10, // keyword at line 2, column 5, readonly
	})
	want := []uint32{0, 2, 3, 2, 0b10, 1, 7, 2, 1, 0b11, 1, 5, 1, 2, 0b01}
	if !slices.Equal(got, want) {
		t.Errorf("b renumbered:\n got %v\nwant %v", got, want)
	}
	if newLegends([]string{"none"}, []protocol.ServerCapabilities{{}}) != nil {
		t.Error("legends without a server offering tokens")
	}
}
