package address

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSegments(t *testing.T) {
	for in, want := range map[string][]string{
		"(*Mux).Handle":             {"Mux", "Handle"},
		"(Mux).Handle":              {"Mux", "Handle"},
		"chi.Mux.Handle":            {"chi", "Mux", "Handle"},
		"ns::Foo::bar":              {"ns", "Foo", "bar"},
		"Foo#bar":                   {"Foo", "bar"},
		"Foo.bar()":                 {"Foo", "bar"},
		"click.core.Command.invoke": {"click", "core", "Command", "invoke"},
		"  ":                        {},
	} {
		if got := Segments(in); !slices.Equal(got, want) {
			t.Errorf("Segments(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatch(t *testing.T) {
	syms := []Symbol{
		{Path: []string{"Mux", "Handle"}, Kind: "method", File: "mux.go", Line: 10, Character: 16},
		{Path: []string{"Router", "Handle"}, Kind: "method", File: "chi.go", Line: 70, Character: 2},
		{Path: []string{"Context", "URLParam"}, Kind: "method", File: "context.go", Line: 5, Character: 19},
		{Path: []string{"URLParam"}, Kind: "function", File: "context.go", Line: 20, Character: 6},
		{Path: []string{"Command", "invoke"}, Kind: "method", File: "src/click/core.py", Line: 900, Character: 9},
		{Path: []string{"Group", "invoke"}, Kind: "method", File: "src/click/core.py", Line: 1500, Character: 9},
		{Path: []string{"Command"}, Kind: "class", File: "src/click/core.py", Line: 800, Character: 7},
		{Path: []string{"Command"}, Kind: "class", File: "src/click/core.py", Line: 800, Character: 7}, // a second server
	}
	at := func(ms []Symbol) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Dotted())
		}
		return out
	}
	for _, tc := range []struct {
		query, kind string
		want        []string
	}{
		{"Handle", "", []string{"Mux.Handle", "Router.Handle"}},
		{"Router.Handle", "", []string{"Router.Handle"}},
		{"Context.URLParam", "", []string{"Context.URLParam"}},
		{"URLParam", "function", []string{"URLParam"}},
		{"URLParam", "method", []string{"Context.URLParam"}},
		{"click.core.Command.invoke", "", []string{"Command.invoke"}},
		{"core.invoke", "", []string{"Command.invoke", "Group.invoke"}},
		{"Command", "", []string{"Command"}},
		{"command", "", []string{"Command"}}, // case aside when nothing else matches
		{"Command", "struct", []string{"Command"}},
		{"Nope.Handle", "", nil},
		{"Absent", "", nil},
	} {
		if got := at(Match(tc.query, tc.kind, syms)); !slices.Equal(got, tc.want) {
			t.Errorf("Match(%q, %q) = %q, want %q", tc.query, tc.kind, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"URLParam", "URLParamFromCtx", "RouteContext", "Handle", "HandleFunc", "Mount"}
	if diff := cmp.Diff([]string{"URLParam"}, Nearest("URLParm", names, 5)); diff != "" {
		t.Errorf("Nearest URLParm (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Handle", "HandleFunc"}, Nearest("handle", names, 5)); diff != "" {
		t.Errorf("Nearest handle (-want +got):\n%s", diff)
	}
	if got := Nearest("Zebra", names, 5); len(got) != 0 {
		t.Errorf("Nearest Zebra = %q, want none", got)
	}
}
