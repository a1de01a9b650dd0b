package orchestrator

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
)

func diag(file string, line int, msg string, code any) api.Diagnostic {
	return api.Diagnostic{File: file, Line: line, Character: 5, Severity: "error", Message: msg, Code: code}
}

func TestReportFormat(t *testing.T) {
	o := &Orchestrator{cfg: config.Default()}
	got := o.format("src/utils.ts", nil, map[string][]api.Diagnostic{
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
	if got := o.format("a.go", nil, map[string][]api.Diagnostic{}); got != "" {
		t.Fatalf("nothing to report: %q", got)
	}
}

// TestReportLimits: 20 per file then "... and N more"; 50 lines in total.
func TestReportLimits(t *testing.T) {
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
	got := o.format("f0.go", others, diags)
	lines := strings.Count(got, "ERROR [")
	if lines != 50 {
		t.Fatalf("%d diagnostic lines, want 50:\n%s", lines, got)
	}
	if strings.Count(got, "... and 5 more") != 2 || !strings.Contains(got, "... and 15 more") || strings.Contains(got, "f3.go") {
		t.Fatalf("limits:\n%s", got)
	}
	if !strings.Contains(got, "\nLSP errors detected in other files:\n<diagnostics file=\"f1.go\">") {
		t.Fatalf("sections:\n%s", got)
	}
}

func TestResolve(t *testing.T) {
	parent := t.TempDir()
	o, err := New(Options{Root: filepath.Join(parent, "."), Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	for path, in := range map[string]bool{
		"a.go": true, "./x/../a.go": true, filepath.Join(o.Root(), "b/c.go"): true,
		"../a.go": false, o.Root() + "2/a.go": false, "/etc/passwd": false, "": false,
	} {
		if _, ok := o.resolve(path); ok != in {
			t.Errorf("resolve(%q) inside = %v", path, ok)
		}
	}
	if !within("/ws", "/ws") || within("/ws", "/ws2") || within("/ws", "/") || !within("/ws", "/ws/a/b") {
		t.Error("within is not segment-safe")
	}
}

// TestFileDiagnosticsOrder: lsp/diagnostics keys come in ascending order.
func TestFileDiagnosticsOrder(t *testing.T) {
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
