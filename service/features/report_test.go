package features

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

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

// TestReportWrite: a write report lists the file and the other files the
// servers reported on.
func TestReportWrite(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "ERROR a\n", "b.fk": "ERROR b\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("ok")), map[string]lsptest.Behavior{"ok": {}})
	f.check(t, api.CheckParams{FilePath: "b.fk"})
	rep, err := f.Report(context.Background(), api.ReportParams{FilePath: "a.fk", Mode: "write"})
	if err != nil {
		t.Fatal(err)
	}
	want := "LSP errors detected in this file, please fix:\n<diagnostics file=\"a.fk\">\nERROR [1:1] error on line 1\n</diagnostics>\n\n" +
		"LSP errors detected in other files:\n<diagnostics file=\"b.fk\">\nERROR [1:1] error on line 1\n</diagnostics>\n"
	if rep.Text != want {
		t.Fatalf("report:\n%s\nwant:\n%s", rep.Text, want)
	}
	if _, err := f.Report(context.Background(), api.ReportParams{FilePath: "a.fk", Mode: "both"}); !isCode(err, transport.CodeInvalidParams) || !strings.Contains(err.Error(), "mode") {
		t.Fatalf("bad mode: %v", err)
	}
}

// TestWriteReportCountsTheRest: a write report with 8 other broken files
// names maxProjectDiagnosticsFiles (5) of them, by path, and says how
// many more there are.
func TestWriteReportCountsTheRest(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.fk": "fine\n"}
	for i := range 8 {
		files[fmt.Sprintf("imp%d.fk", i)] = "x ERROR\n"
	}
	f := newFake(t, files, lsptest.Config("", `"fake": `+lsptest.ServerEntry("ok")), map[string]lsptest.Behavior{"ok": {}})
	for i := range 8 {
		f.check(t, api.CheckParams{FilePath: fmt.Sprintf("imp%d.fk", i)})
	}
	rep, err := f.Report(context.Background(), api.ReportParams{FilePath: "a.fk", Mode: "write"})
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	for i := range 8 {
		if strings.Contains(rep.Text, fmt.Sprintf(`<diagnostics file="imp%d.fk">`, i)) {
			named = append(named, fmt.Sprint(i))
		}
	}
	if strings.Join(named, ",") != "0,1,2,3,4" || !strings.HasSuffix(rep.Text, "</diagnostics>\n... and 3 more files with errors\n") {
		t.Fatalf("report:\n%s", rep.Text)
	}
}

// TestFeedbackCutsMessages: the model's feedback block shows a message's
// first 200 characters and "…"; the JSON keeps it whole.
func TestFeedbackCutsMessages(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 150) + strings.Repeat("x", 100)
	f := newFake(t, map[string]string{"a.fk": "x ERROR\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("long")),
		map[string]lsptest.Behavior{"long": {Diagnose: func(text string) []protocol.Diagnostic {
			ds := lsptest.ErrorLines(text)
			for i := range ds {
				ds[i].Message = protocol.NewStringOrMarkupContentString(long)
			}
			return ds
		}}})
	rep, err := f.Report(context.Background(), api.ReportParams{FilePath: "a.fk", Mode: "edit"})
	if err != nil {
		t.Fatal(err)
	}
	want := "ERROR [1:3] " + strings.Repeat("é", 150) + strings.Repeat("x", 50) + "…\n"
	if !strings.Contains(rep.Text, want) || rep.Diagnostics["a.fk"][0].Message != long {
		t.Fatalf("report:\n%s\njson message: %q", rep.Text, rep.Diagnostics["a.fk"][0].Message)
	}
}

// TestReportCarriesNote: a report in a degraded tree says so in its text
// and its note, even with nothing found.
func TestReportCarriesNote(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.fk": "fine\n"}
	for i := range 5 {
		files[fmt.Sprintf("d%d/b.fk", i)] = "x\n"
	}
	f := newFake(t, files, lsptest.Config(`,"watchBudget":3`, `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {}})
	res, err := f.Report(t.Context(), api.ReportParams{FilePath: "a.fk", Mode: "edit"})
	if err != nil || !res.Checked || !strings.Contains(res.Note, "file watching is degraded") || !strings.HasPrefix(res.Text, "LSP note: file watching is degraded") {
		t.Fatalf("report: %+v, %v", res, err)
	}
}

// TestWriteReportImpact: a write report shows the files that depend on
// the change as other files, and says when it could not check them all.
func TestWriteReportImpact(t *testing.T) {
	t.Parallel()
	f := newFake(t, lsptest.Dependents(3, true), lsptest.Config("", `"fake": `+lsptest.ImportingEntry("ok")), map[string]lsptest.Behavior{"ok": {}})
	rep, err := f.Report(t.Context(), api.ReportParams{FilePath: "lib.fk", Mode: "write"})
	if err != nil || !strings.Contains(rep.Text, `<diagnostics file="a.fk">`) || strings.Contains(rep.Text, "could not check") {
		t.Fatalf("write report: %v\n%s", err, rep.Text)
	}
	unknown := strings.Replace(lsptest.ServerEntry("ok"), `, "impact": "self"`, "", 1)
	f = newFake(t, lsptest.Dependents(1, true), lsptest.Config("", `"fake": `+unknown), map[string]lsptest.Behavior{"ok": {}})
	rep, err = f.Report(t.Context(), api.ReportParams{FilePath: "lib.fk", Mode: "write"})
	if err != nil || !strings.Contains(rep.Text, "LSP could not check every file that depends on lib.fk") || !strings.Contains(rep.Text, "knows no way") {
		t.Fatalf("write report: %v\n%s", err, rep.Text)
	}
}

// TestGoWriteReport: an edit report of a clean a.go is empty; after a
// write to a.go that changes a signature, which breaks b.go, gopls's
// write report of a.go names b.go as another file.
func TestGoWriteReport(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	files, breaking := servertest.GoCrossFile()
	o := live(t, files, "")
	if report, err := o.Report(t.Context(), api.ReportParams{FilePath: "a.go", Mode: "edit"}); err != nil || !report.Checked || report.Text != "" {
		t.Fatalf("edit-mode report for a clean file: %+v %v", report, err)
	}
	lsptest.WriteFiles(t, o.Root(), map[string]string{"a.go": breaking})
	report, err := o.Report(t.Context(), api.ReportParams{FilePath: "a.go", Mode: "write"})
	if err != nil {
		t.Fatal(err)
	}
	want := "LSP errors detected in other files:\n<diagnostics file=\"b.go\">\nERROR [3:23] "
	if !strings.HasPrefix(report.Text, want) || len(report.Diagnostics["b.go"]) != 1 || len(report.Diagnostics["a.go"]) != 0 {
		t.Fatalf("report:\n%s\n%+v", report.Text, report.Diagnostics)
	}
}
