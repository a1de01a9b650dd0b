package orchestrator

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
)

func diag(file string, line int, msg string, code any) api.Diagnostic {
	return api.Diagnostic{File: file, Line: line, Character: 5, Severity: "error", Message: msg, Code: code}
}

func TestReportFormat(t *testing.T) {
	t.Parallel()
	o := &Orchestrator{cfg: config.Default()}
	got := o.format("src/utils.ts", nil, 0, map[string][]api.Diagnostic{
		"src/utils.ts": {diag("src/utils.ts", 42, "Type 'string' is not assignable to type 'number'.", 2322), diag("src/utils.ts", 43, "a < b && c > d", nil)},
	})
	want := "LSP errors detected in this file, please fix:\n" +
		"<diagnostics file=\"src/utils.ts\">\n" +
		"ERROR [42:5] Type 'string' is not assignable to type 'number'. (2322)\n" +
		"ERROR [43:5] a &lt; b &amp;&amp; c &gt; d\n" +
		"</diagnostics>\n"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := o.format("a.go", nil, 0, map[string][]api.Diagnostic{}); got != "" {
		t.Fatalf("nothing to report: %q", got)
	}
}

// TestReportLimits: 20 per file then "... and N more"; 50 lines in total.
func TestReportLimits(t *testing.T) {
	t.Parallel()
	o := &Orchestrator{cfg: config.Default()}
	diags := map[string][]api.Diagnostic{}
	var others []string
	for f := range 4 {
		name := fmt.Sprintf("f%d.go", f)
		for i := range 25 {
			diags[name] = append(diags[name], diag(name, i+1, "bad", nil))
		}
		if f > 0 {
			others = append(others, name)
		}
	}
	got := o.format("f0.go", others, 0, diags)
	lines := strings.Count(got, "ERROR [")
	if lines != 50 {
		t.Fatalf("%d diagnostic lines, want 50:\n%s", lines, got)
	}
	if strings.Count(got, "... and 5 more") != 2 || !strings.Contains(got, "... and 15 more") || strings.Contains(got, "f3.go") ||
		!strings.HasSuffix(got, "</diagnostics>\n... and 1 more file with errors\n") {
		t.Fatalf("limits:\n%s", got)
	}
	if !strings.Contains(got, "\nLSP errors detected in other files:\n<diagnostics file=\"f1.go\">") {
		t.Fatalf("sections:\n%s", got)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	o, err := New(Options{Root: filepath.Join(parent, "."), Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Shutdown(context.Background()) }) // before the directory goes (Windows)
	cases := map[string]bool{
		"a.go": true, "./x/../a.go": true, filepath.Join(o.Root(), "b/c.go"): true,
		"../a.go": false, o.Root() + "2/a.go": false, "/etc/passwd": false, "": false,
	}
	if runtime.GOOS == "windows" {
		// Rooted on the current drive, a drive without a root, another
		// spelling of the root (case), backslashes.
		cases[`\windows\win.ini`] = false
		cases[filepath.VolumeName(o.Root())+"a.go"] = false
		cases[strings.ToUpper(o.Root())+`\A.GO`] = true
		cases[`x\..\a.go`] = true
	}
	for path, in := range cases {
		if _, ok := o.resolve(path); ok != in {
			t.Errorf("resolve(%q) inside = %v", path, ok)
		}
	}
	p := filepath.FromSlash
	if !within(p("/ws"), p("/ws")) || within(p("/ws"), p("/ws2")) || within(p("/ws"), p("/")) || !within(p("/ws"), p("/ws/a/b")) {
		t.Error("within is not segment-safe")
	}
}

// TestFileDiagnosticsOrder: lsp/diagnostics keys come in ascending order.
func TestFileDiagnosticsOrder(t *testing.T) {
	t.Parallel()
	f := api.FileDiagnostics{}
	for _, name := range []string{"z.go", "a.go", "m/b.go", "m/a.go", "b.go", "c.go"} {
		f[name] = []api.Diagnostic{diag(name, 1, "x", nil)}
	}
	want := `{"a.go":`
	for range 20 {
		out, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		dec := jsontext.NewDecoder(bytes.NewReader(out))
		dec.ReadToken()
		for dec.PeekKind() == '"' {
			tok, _ := dec.ReadToken()
			keys = append(keys, tok.String())
			dec.SkipValue()
		}
		if !slices.IsSorted(keys) || len(keys) != 6 || !strings.HasPrefix(string(out), want) {
			t.Fatalf("keys %v in %s", keys, out)
		}
	}
}

// TestDeltaReport: a delta report shows only what the previous check or
// report of the file did not; a fixed-then-reintroduced error is new
// again; the same holds for a delta check.
func TestDeltaReport(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "x\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {}})
	report := func(text string) api.ReportResult {
		t.Helper()
		res, err := f.Report(t.Context(), api.ReportParams{FilePath: "a.fk", Text: &text, Mode: "edit", Delta: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	lines := func(r api.ReportResult) []int {
		var out []int
		for _, d := range r.Diagnostics["a.fk"] {
			out = append(out, d.Line)
		}
		return out
	}
	steps := []struct {
		text     string
		shown    []int
		repeated int
		says     string
	}{
		{"ERROR\nERROR\n", []int{1, 2}, 0, "[1:1] error on line 1"},
		{"ERROR\nERROR\n", nil, 2, "(2 findings reported before are still there)"},
		{"ERROR\nERROR\nERROR\n", []int{3}, 2, "[3:1] error on line 3"},
		{"x\n", nil, 0, ""},
		{"ERROR\n", []int{1}, 0, "[1:1] error on line 1"},
	}
	for i, s := range steps {
		r := report(s.text)
		if fmt.Sprint(lines(r)) != fmt.Sprint(s.shown) || r.Repeated != s.repeated || !strings.Contains(r.Text, s.says) || (s.says == "") != (r.Text == "") {
			t.Errorf("step %d: shown %v repeated %d text %q; want %v, %d, %q", i, lines(r), r.Repeated, r.Text, s.shown, s.repeated, s.says)
		}
	}
	// A delta check after the report: nothing new, one repeated.
	text := "ERROR\n"
	res := f.check(t, api.CheckParams{FilePath: "a.fk", Text: &text, Delta: true})
	if !res.Checked || len(res.Diagnostics) != 0 || res.Repeated != 1 {
		t.Errorf("delta check: %+v", res)
	}
	// Without delta everything is shown, and remembered.
	if res := f.check(t, api.CheckParams{FilePath: "a.fk", Text: &text}); len(res.Diagnostics) != 1 || res.Repeated != 0 {
		t.Errorf("full check: %+v", res)
	}
}

// TestReportUnchecked: a report on a file no server fully checked says so
// (never the empty text that means no findings).
func TestReportUnchecked(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"notes.xyz": "x\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {}})
	res, err := f.Report(t.Context(), api.ReportParams{FilePath: "notes.xyz", Mode: "edit"})
	if err != nil || res.Checked || !strings.HasPrefix(res.Text, "LSP could not fully check notes.xyz: no language server handles .xyz files") {
		t.Fatalf("%+v %v", res, err)
	}
}
