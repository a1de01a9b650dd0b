package findings

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lspkit/lspkit/service/api"
)

func TestCompare(t *testing.T) {
	d := func(file string, line int, msg string) api.Diagnostic {
		return api.Diagnostic{File: file, Line: line, Character: 1, Severity: "error", Message: msg, Server: "gopls"}
	}
	before := []api.Diagnostic{
		d("a.go", 10, "undefined: x"),
		d("a.go", 20, "declared and not used: y"),
		d("b.go", 5, "undefined: x"),
	}
	// Two lines were inserted above line 10 of a.go: its old findings
	// moved down two lines; a second "undefined: x" was added above them;
	// the unused y was fixed; b.go is untouched.
	moved := func(file string) []int {
		if file != "a.go" {
			return nil
		}
		m := make([]int, 30)
		for i := range m {
			m[i] = i + 1
			if i+1 >= 8 {
				m[i] = i + 3
			}
		}
		return m
	}
	after := []api.Diagnostic{
		d("a.go", 3, "undefined: x"),
		d("a.go", 12, "undefined: x"),
		d("b.go", 5, "undefined: x"),
		d("c.go", 7, "too many arguments in call to f"),
	}
	introduced, fixed := Compare(before, after, moved)
	if diff := cmp.Diff([]api.Diagnostic{d("a.go", 3, "undefined: x"), d("c.go", 7, "too many arguments in call to f")}, introduced); diff != "" {
		t.Errorf("introduced (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]api.Diagnostic{d("a.go", 20, "declared and not used: y")}, fixed); diff != "" {
		t.Errorf("fixed (-want +got):\n%s", diff)
	}
	// Without the line map, the nearest old line pairs: still the one at
	// line 3 is new.
	if introduced, _ := Compare(before, after, nil); len(introduced) != 2 || introduced[0].Line != 3 {
		t.Errorf("introduced without a line map: %+v", introduced)
	}
	// A rewritten line (mapped to 0) keeps its finding old wherever it is.
	rewritten := func(string) []int { return []int{1, 2, 0} }
	if introduced, fixed := Compare([]api.Diagnostic{d("x.go", 3, "m")}, []api.Diagnostic{d("x.go", 4, "m")}, rewritten); len(introduced) != 0 || len(fixed) != 0 {
		t.Errorf("a finding on a rewritten line: introduced %+v, fixed %+v", introduced, fixed)
	}
}
