package orchestrator

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/service/api"
)

// maxReportLines bounds the diagnostic lines of one report across files.
const maxReportLines = 50

// Report checks a file and formats what the servers found for the model:
// the file itself ("edit"), or the file and then up to
// MaxProjectDiagnosticsFiles other files its change broke ("write",
// waiting as DiagnosticsAfter does). Nothing to report is empty text; a
// file not fully checked is said so, with the reason, and an answer that
// may be behind the tree (the check's note) says that.
func (o *Orchestrator) Report(ctx context.Context, p api.ReportParams) (api.ReportResult, error) {
	if p.Mode != "edit" && p.Mode != "write" {
		return api.ReportResult{}, api.InvalidParams("mode must be \"edit\" or \"write\", not %q", p.Mode)
	}
	before := o.Epoch()
	res, err := o.check(ctx, api.CheckParams{FilePath: p.FilePath, Text: p.Text, Impact: p.Mode == "write"})
	if err != nil {
		return api.ReportResult{}, err
	}
	out := api.ReportResult{Diagnostics: api.FileDiagnostics{}, Checked: res.Checked, Reason: res.Reason, Note: res.Note, Impact: res.Impact}
	file := ""
	if abs, ok := o.resolve(p.FilePath); ok {
		file = o.rel(abs)
	}
	// show keeps what the report shows of a file: with Delta, what the
	// previous check or report of it did not show.
	show := func(f string, ds []api.Diagnostic) {
		ds, repeated := o.shown.update(shownKey(ctx, f), ds, p.Delta)
		out.Repeated += repeated
		if len(ds) > 0 {
			out.Diagnostics[f] = ds
		}
	}
	if res.Checked {
		show(file, res.Diagnostics)
	} else if len(res.Diagnostics) > 0 {
		out.Diagnostics[file] = res.Diagnostics // partial: shown, not remembered as complete
	}
	var others []string
	more := 0 // other files with findings past maxProjectDiagnosticsFiles
	if p.Mode == "write" {
		o.settleAfter(ctx, before, defaultWait)
		all := o.Diagnostics()
		if res.Impact != nil {
			// The files that depend on the change, as the check found
			// them: servers that report open files only said nothing of
			// them otherwise.
			for _, f := range res.Impact.Files {
				if f.File != file {
					all[f.File] = o.merge(append(all[f.File], f.Diagnostics...), nil)
				}
			}
		}
		for _, f := range slices.Sorted(maps.Keys(all)) {
			switch {
			case f == file:
			case len(others) == o.cfg.MaxProjectDiagnosticsFiles:
				more++
			default:
				if show(f, all[f]); len(out.Diagnostics[f]) > 0 {
					others = append(others, f)
				}
			}
		}
	}
	out.Text = o.format(file, others, more, out.Diagnostics)
	if !res.Checked {
		// Never silence for a file that was not fully checked.
		if out.Text != "" {
			out.Text += "\n"
		}
		name := file
		if name == "" {
			name = p.FilePath
		}
		out.Text += fmt.Sprintf("LSP could not fully check %s: %s\n", escape(name), escape(res.Reason))
	}
	if res.Impact != nil && !res.Impact.Complete {
		// Never a silent "nothing else broke".
		if out.Text != "" {
			out.Text += "\n"
		}
		out.Text += fmt.Sprintf("LSP could not check every file that depends on %s: %s\n", escape(file), escape(res.Impact.Reason))
	}
	if out.Note != "" {
		// Never a silent answer that may be about an old tree.
		if out.Text != "" {
			out.Text += "\n"
		}
		out.Text += fmt.Sprintf("LSP note: %s\n", escape(out.Note))
	}
	if out.Repeated > 0 && p.Delta {
		if out.Text != "" {
			out.Text += "\n"
		}
		out.Text += fmt.Sprintf("(%d %s reported before %s still there)\n", out.Repeated, plural(out.Repeated, "finding", "findings"), plural(out.Repeated, "is", "are"))
	}
	return out, nil
}

// plural picks the singular for n == 1.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// format renders the report: the file's own block ("in this file"), then
// the other files' blocks, within the per-file and total line limits, and
// how many other files with findings it leaves out (more, past
// maxProjectDiagnosticsFiles, and those past the line limit).
func (o *Orchestrator) format(file string, others []string, more int, diags map[string][]api.Diagnostic) string {
	budget := maxReportLines
	var b strings.Builder
	if ds := diags[file]; len(ds) > 0 {
		b.WriteString("LSP errors detected in this file, please fix:\n")
		budget = o.block(&b, file, ds, budget)
	}
	if len(others) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("LSP errors detected in other files:\n")
		for i, f := range others {
			if budget <= 0 {
				more += len(others) - i
				break
			}
			budget = o.block(&b, f, diags[f], budget)
		}
		if more > 0 {
			fmt.Fprintf(&b, "... and %d more %s with errors\n", more, plural(more, "file", "files"))
		}
	}
	return b.String()
}

// block writes one file's <diagnostics> block, at most
// MaxDiagnosticsPerFile lines and the remaining budget, and returns what is
// left of the budget.
func (o *Orchestrator) block(b *strings.Builder, file string, ds []api.Diagnostic, budget int) int {
	fmt.Fprintf(b, "<diagnostics file=\"%s\">\n", escapeAttr(file))
	n := min(len(ds), o.cfg.MaxDiagnosticsPerFile, budget)
	for _, d := range ds[:n] {
		fmt.Fprintf(b, "%s [%d:%d] %s", strings.ToUpper(d.Severity), d.Line, d.Character, escape(api.FeedbackMessage(d.Message)))
		if d.Code != nil {
			fmt.Fprintf(b, " (%s)", escape(fmt.Sprint(d.Code)))
		}
		b.WriteString("\n")
	}
	if more := len(ds) - n; more > 0 {
		fmt.Fprintf(b, "... and %d more\n", more)
	}
	b.WriteString("</diagnostics>\n")
	return budget - n
}

// escape makes text safe inside the pseudo-XML block: <, > and &.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// escapeAttr also escapes the quote that ends an attribute.
func escapeAttr(s string) string { return strings.ReplaceAll(escape(s), `"`, "&quot;") }
