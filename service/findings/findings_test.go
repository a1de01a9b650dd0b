package findings

import (
	"fmt"
	"testing"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// TestConvert: positions become the contract's 1-based columns (UTF-16
// units counted as characters), severities and codes are named, a
// diagnostic without a severity is an error.
func TestConvert(t *testing.T) {
	warn := protocol.DiagnosticSeverityWarning
	src := "ok"
	ds := []protocol.Diagnostic{
		{Range: protocol.Range{Start: protocol.Position{Line: 1, Character: 2}, End: protocol.Position{Line: 1, Character: 3}}, Message: protocol.NewStringOrMarkupContentString("bad"), Code: protocol.NewIntegerOrStringInteger(7)},
		{Range: protocol.Range{Start: protocol.Position{Line: 0, Character: 0}}, Severity: &warn, Message: protocol.NewStringOrMarkupContentString("meh"), Source: &src},
	}
	got := Convert("srv", client.Mapper{}, "a.go", "line one\né€x\n", ds)
	if len(got) != 2 || got[0].Line != 2 || got[0].Character != 3 || got[0].Severity != "error" || fmt.Sprint(got[0].Code) != "7" || got[0].Server != "srv" ||
		got[1].Severity != "warning" || got[1].Source != "ok" || got[1].Code != nil || got[1].File != "a.go" {
		t.Fatalf("%+v", got)
	}
}

// TestMerge: other severities left out, a finding two servers both
// report kept once, the rest ordered by file, line, column.
func TestMerge(t *testing.T) {
	d := func(file string, line, col int, sev, msg string) api.Diagnostic {
		return api.Diagnostic{File: file, Line: line, Character: col, Severity: sev, Message: msg}
	}
	in := []api.Diagnostic{d("b.go", 1, 1, "error", "x"), d("a.go", 2, 1, "error", "y"), d("a.go", 1, 5, "error", "z"), d("a.go", 1, 5, "error", "z"), d("a.go", 1, 1, "hint", "h")}
	got := Merge(in, []string{"error"})
	var order []string
	for _, g := range got {
		order = append(order, fmt.Sprintf("%s:%d:%d", g.File, g.Line, g.Character))
	}
	if fmt.Sprint(order) != "[a.go:1:5 a.go:2:1 b.go:1:1]" {
		t.Fatalf("%v", order)
	}
}

// TestShown: a delta shows what the last record did not have and counts
// the rest; a fixed-then-back finding is new again; Forget drops a
// caller's records.
func TestShown(t *testing.T) {
	var s Shown
	a := api.Diagnostic{Line: 1, Message: "a"}
	b := api.Diagnostic{Line: 2, Message: "b"}
	steps := []struct {
		now      []api.Diagnostic
		shown    int
		repeated int
	}{{[]api.Diagnostic{a}, 1, 0}, {[]api.Diagnostic{a, b}, 1, 1}, {nil, 0, 0}, {[]api.Diagnostic{a}, 1, 0}}
	for i, st := range steps {
		got, rep := s.Update("c1\x00f", nil, st.now, true)
		if len(got) != st.shown || rep != st.repeated {
			t.Fatalf("step %d: shown %v, repeated %d", i, got, rep)
		}
	}
	if got, rep := s.Update("c1\x00f", nil, []api.Diagnostic{a}, false); len(got) != 1 || rep != 0 {
		t.Fatalf("without delta: %v %d", got, rep)
	}
	// Lines an edit moved: the old finding stays old, one alike on the
	// new line is new.
	before, after := "x\nA\n", "A\nx\nA\n"
	s.Update("c1\x00g", &before, []api.Diagnostic{{Line: 2, Message: "a"}}, false)
	got, rep := s.Update("c1\x00g", &after, []api.Diagnostic{{Line: 1, Message: "a"}, {Line: 3, Message: "a"}}, true)
	if len(got) != 1 || got[0].Line != 1 || rep != 1 {
		t.Fatalf("lines moved: shown %v, repeated %d; want line 1 shown, 1 repeated", got, rep)
	}
	s.Update("c2\x00f", nil, []api.Diagnostic{a}, false)
	s.Forget("c1\x00")
	if s.Len() != 1 {
		t.Fatalf("%d records after Forget, want 1", s.Len())
	}
}
