package findings

import (
	"fmt"
	"strings"

	"github.com/lspkit/lspkit/service/api"
)

// Feedback is the block of findings a model is shown after a change, as
// text (lsp/report's, a burst's): the changed files' findings first, then
// the other files', each file's in a <diagnostics> block of its own.
type Feedback struct {
	// Changed are the files the change was made to, in the order their
	// blocks come; Others the other files with findings, after them.
	Changed, Others []string
	// More counts other files with findings left out before the text.
	More int
	// Diagnostics are the findings by file.
	Diagnostics api.FileDiagnostics
	// PerFile bounds the lines of one file's block, Lines those of the
	// whole text; past either, "... and N more".
	PerFile, Lines int
}

// Text renders the feedback: "" when no file has a finding.
func (f Feedback) Text() string {
	budget := f.Lines
	var b strings.Builder
	var changed []string
	for _, file := range f.Changed {
		if len(f.Diagnostics[file]) > 0 {
			changed = append(changed, file)
		}
	}
	if len(changed) > 0 {
		if len(f.Changed) == 1 {
			b.WriteString("LSP errors detected in this file, please fix:\n")
		} else {
			b.WriteString("LSP errors detected in the files you edited, please fix:\n")
		}
		for _, file := range changed {
			budget = f.block(&b, file, budget)
		}
	}
	more := f.More
	if len(f.Others) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("LSP errors detected in other files:\n")
		var left []string
		for i, other := range f.Others {
			if budget <= 0 {
				left = f.Others[i:]
				break
			}
			budget = f.block(&b, other, budget)
		}
		if len(left) > 0 {
			fmt.Fprintf(&b, "... and errors in %s\n", listFiles(left, 10))
		}
		if more > 0 {
			fmt.Fprintf(&b, "... and %d more %s with errors\n", more, api.Plural(more, "file", "files"))
		}
	}
	return b.String()
}

// listFiles names files, the first n of them and how many more.
func listFiles(files []string, n int) string {
	if len(files) <= n {
		return Escape(strings.Join(files, ", "))
	}
	return Escape(strings.Join(files[:n], ", ")) + fmt.Sprintf(" and %d more files", len(files)-n)
}

// block writes one file's <diagnostics> block, at most PerFile lines and
// the remaining budget, and returns what is left of the budget.
func (f Feedback) block(b *strings.Builder, file string, budget int) int {
	ds := f.Diagnostics[file]
	fmt.Fprintf(b, "<diagnostics file=\"%s\">\n", EscapeAttr(file))
	n := min(len(ds), f.PerFile, budget)
	for _, d := range ds[:n] {
		fmt.Fprintf(b, "%s [%d:%d] %s", strings.ToUpper(d.Severity), d.Line, d.Character, Escape(api.FeedbackMessage(d.Message)))
		if d.Code != nil {
			fmt.Fprintf(b, " (%s)", Escape(fmt.Sprint(d.Code)))
		}
		b.WriteString("\n")
	}
	if more := len(ds) - n; more > 0 {
		fmt.Fprintf(b, "... and %d more\n", more)
	}
	b.WriteString("</diagnostics>\n")
	return budget - n
}

// Escape makes text safe inside the pseudo-XML block: <, > and &.
func Escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// EscapeAttr also escapes the quote that ends an attribute.
func EscapeAttr(s string) string { return strings.ReplaceAll(Escape(s), `"`, "&quot;") }
