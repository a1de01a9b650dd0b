package features

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/findings"
)

// maxReportLines bounds the diagnostic lines of one report across files.
const maxReportLines = 50

// reportWait is how long a write report waits for the servers' reports
// on other files, as lsp/diagnosticsAfter does when not told.
const reportWait = time.Second

// Report checks a file and formats what the servers found for the model:
// the file itself ("edit"), or the file and then up to
// MaxProjectDiagnosticsFiles other files its change broke ("write",
// waiting as DiagnosticsAfter does). Nothing to report is empty text; a
// file not fully checked is said so, with the reason, and an answer that
// may be behind the tree (the check's note) says that.
func (f *Features) Report(ctx context.Context, p api.ReportParams) (api.ReportResult, error) {
	if p.Mode != "edit" && p.Mode != "write" {
		return api.ReportResult{}, api.InvalidParams("mode must be \"edit\" or \"write\", not %q", p.Mode)
	}
	before := f.core.Epoch()
	// The check keeps what it shows of the file (with Delta, only what
	// the previous check or report of it did not show); a partial answer
	// is shown, not remembered as complete.
	res, err := f.core.Check(ctx, api.CheckParams{FilePath: p.FilePath, Text: p.Text, Impact: p.Mode == "write", Delta: p.Delta})
	if err != nil {
		return api.ReportResult{}, err
	}
	out := api.ReportResult{Diagnostics: api.FileDiagnostics{}, Checked: res.Checked, Reason: res.Reason, Note: res.Note, Impact: res.Impact, Repeated: res.Repeated}
	file := ""
	if abs, err := f.core.Resolve(p.FilePath); err == nil {
		file = f.core.Rel(abs)
	}
	if len(res.Diagnostics) > 0 {
		out.Diagnostics[file] = res.Diagnostics
	}
	// show keeps what the report shows of another file: with Delta, what
	// the previous check or report of it did not show.
	show := func(other string, ds []api.Diagnostic) {
		ds, repeated := f.core.ShowFindings(ctx, other, ds, p.Delta)
		out.Repeated += repeated
		if len(ds) > 0 {
			out.Diagnostics[other] = ds
		}
	}
	var others []string
	more := 0 // other files with findings past maxProjectDiagnosticsFiles
	if p.Mode == "write" {
		f.core.SettleAfter(ctx, before, reportWait)
		all := f.core.Diagnostics()
		if res.Impact != nil {
			// The files that depend on the change, as the check found
			// them: servers that report open files only said nothing of
			// them otherwise.
			for _, dep := range res.Impact.Files {
				if dep.File != file {
					all[dep.File] = f.core.Merge(append(all[dep.File], dep.Diagnostics...), nil)
				}
			}
		}
		for _, other := range slices.Sorted(maps.Keys(all)) {
			switch {
			case other == file:
			case len(others) == f.cfg.MaxProjectDiagnosticsFiles:
				more++
			default:
				if show(other, all[other]); len(out.Diagnostics[other]) > 0 {
					others = append(others, other)
				}
			}
		}
	}
	out.Text = findings.Feedback{Changed: []string{file}, Others: others, More: more, Diagnostics: out.Diagnostics,
		PerFile: f.cfg.MaxDiagnosticsPerFile, Lines: maxReportLines}.Text()
	if !res.Checked {
		// Never silence for a file that was not fully checked.
		if out.Text != "" {
			out.Text += "\n"
		}
		name := file
		if name == "" {
			name = p.FilePath
		}
		out.Text += fmt.Sprintf("LSP could not fully check %s: %s\n", findings.Escape(name), findings.Escape(res.Reason))
	}
	if res.Impact != nil && !res.Impact.Complete {
		// Never a silent "nothing else broke".
		if out.Text != "" {
			out.Text += "\n"
		}
		out.Text += fmt.Sprintf("LSP could not check every file that depends on %s: %s\n", findings.Escape(file), findings.Escape(res.Impact.Reason))
	}
	if out.Note != "" {
		// Never a silent answer that may be about an old tree.
		if out.Text != "" {
			out.Text += "\n"
		}
		out.Text += fmt.Sprintf("LSP note: %s\n", findings.Escape(out.Note))
	}
	if out.Repeated > 0 && p.Delta {
		if out.Text != "" {
			out.Text += "\n"
		}
		out.Text += fmt.Sprintf("(%d %s reported before %s still there)\n", out.Repeated, api.Plural(out.Repeated, "finding", "findings"), api.Plural(out.Repeated, "is", "are"))
	}
	return out, nil
}
