package findings

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/service/api"
)

func diag(file string, line int, msg string, code any) api.Diagnostic {
	return api.Diagnostic{File: file, Line: line, Character: 5, Severity: "error", Message: msg, Code: code}
}

func TestFeedbackText(t *testing.T) {
	f := Feedback{Changed: []string{"src/utils.ts"}, PerFile: 20, Lines: 50, Diagnostics: api.FileDiagnostics{
		"src/utils.ts": {diag("src/utils.ts", 42, "Type 'string' is not assignable to type 'number'.", 2322), diag("src/utils.ts", 43, "a < b && c > d", nil)},
	}}
	want := "LSP errors detected in this file, please fix:\n" +
		"<diagnostics file=\"src/utils.ts\">\n" +
		"ERROR [42:5] Type 'string' is not assignable to type 'number'. (2322)\n" +
		"ERROR [43:5] a &lt; b &amp;&amp; c &gt; d\n" +
		"</diagnostics>\n"
	if got := f.Text(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := (Feedback{Changed: []string{"a.go"}, PerFile: 20, Lines: 50}).Text(); got != "" {
		t.Fatalf("nothing to report: %q", got)
	}
	// Several changed files, one of them clean; another file broken.
	f = Feedback{Changed: []string{"a.go", "b.go"}, Others: []string{"c.go"}, PerFile: 20, Lines: 50, Diagnostics: api.FileDiagnostics{
		"b.go": {diag("b.go", 3, "undefined: x", nil)}, "c.go": {diag("c.go", 9, "not enough arguments in call to f", nil)},
	}}
	want = "LSP errors detected in the files you edited, please fix:\n<diagnostics file=\"b.go\">\nERROR [3:5] undefined: x\n</diagnostics>\n\n" +
		"LSP errors detected in other files:\n<diagnostics file=\"c.go\">\nERROR [9:5] not enough arguments in call to f\n</diagnostics>\n"
	if got := f.Text(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestFeedbackLimits: PerFile lines a file then "... and N more"; Lines in
// all, and the other files past them named.
func TestFeedbackLimits(t *testing.T) {
	diags := api.FileDiagnostics{}
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
	got := Feedback{Changed: []string{"f0.go"}, Others: others, More: 2, Diagnostics: diags, PerFile: 20, Lines: 50}.Text()
	if lines := strings.Count(got, "ERROR ["); lines != 50 {
		t.Fatalf("%d diagnostic lines, want 50:\n%s", lines, got)
	}
	if strings.Count(got, "... and 5 more") != 2 || !strings.Contains(got, "... and 15 more") || strings.Contains(got, "<diagnostics file=\"f3.go\">") ||
		!strings.HasSuffix(got, "</diagnostics>\n... and errors in f3.go\n... and 2 more files with errors\n") {
		t.Fatalf("limits:\n%s", got)
	}
	if !strings.Contains(got, "\nLSP errors detected in other files:\n<diagnostics file=\"f1.go\">") {
		t.Fatalf("sections:\n%s", got)
	}
}
