package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/features"
)

// The checking tools: lsp_check_file (with a change's impact),
// lsp_diagnostics and lsp_workspace_diagnostics.

// CheckInput is lsp_check_file's input.
type CheckInput struct {
	File      string `json:"file" jsonschema:"path from the project root"`
	Text      string `json:"text,omitempty" jsonschema:"instead of the disk's"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
	Delta     bool   `json:"delta,omitempty" jsonschema:"only findings the previous check did not show"`
	Impact    *bool  `json:"impact,omitempty" jsonschema:"after a change, the files it broke too (default true)"`
	// Files is a what-if of several files.
	Files map[string]string `json:"files,omitempty" jsonschema:"path → proposed content"`
}

func (m *mcpTools) checkFile(ctx context.Context, _ *mcp.CallToolRequest, in CheckInput) (*mcp.CallToolResult, api.CheckResult, error) {
	var t *string
	if in.Text != "" {
		t = &in.Text
	}
	res, err := m.o.Check(ctx, api.CheckParams{FilePath: in.File, Text: t, TimeoutMs: in.TimeoutMs, Delta: in.Delta, Files: in.Files, ImpactAfterChange: in.Impact == nil || *in.Impact})
	if err != nil {
		return nil, api.CheckResult{}, err
	}
	res.Diagnostics, res.Servers = nonNil(res.Diagnostics), nonNil(res.Servers)
	if in.File == "" {
		in.File = strings.Join(slices.Sorted(maps.Keys(in.Files)), ", ")
	}
	var b strings.Builder
	m.renderDiagnostics(&b, res.Diagnostics)
	severities := strings.Join(m.o.Config().IncludeSeverities, " or ")
	switch {
	case !res.Checked && len(res.Servers) == 0:
		fmt.Fprintf(&b, "not checked: %s\n", res.Reason)
	case len(res.Diagnostics) == 0 && res.Checked && res.Repeated == 0:
		fmt.Fprintf(&b, "no %s in %s\n", severities, in.File)
	case len(res.Diagnostics) == 0 && res.Checked:
		fmt.Fprintf(&b, "no new %s in %s\n", severities, in.File)
	case !res.Checked:
		fmt.Fprintf(&b, "not fully checked: %s\n", res.Reason)
	}
	if res.Note != "" {
		b.WriteString(res.Note + "\n")
	}
	if res.Repeated > 0 {
		fmt.Fprintf(&b, "(%d %s shown before %s still there)\n", res.Repeated, api.Plural(res.Repeated, "finding", "findings"), api.Plural(res.Repeated, "is", "are"))
	}
	for _, s := range res.Servers {
		cold := ""
		if s.Cold != "" {
			cold = "; started cold: it had been " + s.Cold
		}
		fmt.Fprintf(&b, "[%s: %s in %d ms%s%s]\n", s.ID, s.Verdict, s.MS, prefixed(s.Reason), cold)
	}
	m.renderImpact(&b, res.Impact)
	return text(b.String()), res, nil
}

// impactShownInFull is how many other files an impact shows every finding
// of; the rest get a line each.
const impactShownInFull = 5

// renderImpact writes what a change did to other files: the first files'
// findings, a line for each further file, how many were checked, and why
// not all of them were, if not.
func (m *mcpTools) renderImpact(b *strings.Builder, imp *api.Impact) {
	if imp == nil {
		return
	}
	switch {
	case len(imp.Files) > 0 && imp.BeforeUnknown == "":
		fmt.Fprintf(b, "other files this change broke (%d):\n", len(imp.Files))
	case len(imp.Files) > 0:
		fmt.Fprintf(b, "other files with findings after this change (%d); %s:\n", len(imp.Files), imp.BeforeUnknown)
	}
	for i, f := range imp.Files {
		if i < impactShownInFull {
			m.renderDiagnostics(b, f.Diagnostics)
			continue
		}
		fmt.Fprintf(b, "%s: %d %s, the first at line %d: %s\n", f.File, len(f.Diagnostics), api.Plural(len(f.Diagnostics), "finding", "findings"), f.Diagnostics[0].Line, api.FeedbackMessage(f.Diagnostics[0].Message))
	}
	if imp.Old > 0 {
		fmt.Fprintf(b, "(%d %s the files that depend on the change had before it too not shown)\n", imp.Old, api.Plural(imp.Old, "finding", "findings"))
	}
	switch {
	case !imp.Complete:
		fmt.Fprintf(b, "not every file that depends on the change was checked (%d checked): %s\n", imp.Checked, imp.Reason)
	case len(imp.Files) == 0 && imp.Old > 0:
		fmt.Fprintf(b, "%d %s that %s on the change checked: it broke none of them\n", imp.Checked, api.Plural(imp.Checked, "file", "files"), api.Plural(imp.Checked, "depends", "depend"))
	case len(imp.Files) == 0:
		fmt.Fprintf(b, "%d %s that %s on the change checked: none has findings\n", imp.Checked, api.Plural(imp.Checked, "file", "files"), api.Plural(imp.Checked, "depends", "depend"))
	default:
		fmt.Fprintf(b, "(%d %s that %s on the change checked)\n", imp.Checked, api.Plural(imp.Checked, "file", "files"), api.Plural(imp.Checked, "depends", "depend"))
	}
}

func prefixed(reason string) string {
	if reason == "" {
		return ""
	}
	return "; " + reason
}

// renderDiagnostics writes findings (writeFindings), in the long form
// when m asks for it.
func (m *mcpTools) renderDiagnostics(b *strings.Builder, ds []api.Diagnostic) {
	writeFindings(b, ds, m.long)
}

// DiagnosticsInput is lsp_diagnostics' input.
type DiagnosticsInput struct {
	File string `json:"file,omitempty" jsonschema:"check it first"`
}

// DiagnosticsOutput is lsp_diagnostics' answer.
type DiagnosticsOutput struct {
	Diagnostics api.FileDiagnostics `json:"diagnostics" jsonschema:"diagnostics by file (relative to the root); files without any are left out"`
}

func (m *mcpTools) diagnostics(ctx context.Context, _ *mcp.CallToolRequest, in DiagnosticsInput) (*mcp.CallToolResult, DiagnosticsOutput, error) {
	before := m.o.Epoch()
	if in.File != "" {
		if _, err := m.o.Check(ctx, api.CheckParams{FilePath: in.File}); err != nil {
			return nil, DiagnosticsOutput{}, err
		}
	}
	m.o.RefreshFromDisk(ctx)
	files, err := m.o.DiagnosticsAfter(ctx, api.DiagnosticsAfterParams{AfterEpoch: before})
	if err != nil {
		return nil, DiagnosticsOutput{}, err
	}
	if files == nil {
		files = api.FileDiagnostics{}
	}
	var b strings.Builder
	for _, f := range slices.Sorted(maps.Keys(files)) {
		m.renderDiagnostics(&b, files[f])
	}
	switch {
	case len(files) > 0:
	case !slices.ContainsFunc(m.o.Status(), func(s api.ServerStatus) bool { return s.Root != "" }):
		b.WriteString("no file has been checked yet, so nothing is known: check a file (lsp_check_file, or give file here) first\n")
	default:
		fmt.Fprintf(&b, "no %s reported in the files checked so far\n", strings.Join(m.o.Config().IncludeSeverities, " or "))
	}
	return text(b.String()), DiagnosticsOutput{Diagnostics: files}, nil
}

// WorkspaceDiagnosticsInput is lsp_workspace_diagnostics' input.
type WorkspaceDiagnosticsInput struct {
	Severities []string `json:"severities,omitempty" jsonschema:"error, warning, info, hint (default: configured)"`
}

func (m *mcpTools) workspaceDiagnostics(ctx context.Context, req *mcp.CallToolRequest, in WorkspaceDiagnosticsInput) (*mcp.CallToolResult, api.SweepResult, error) {
	if token := req.Params.GetProgressToken(); token != nil {
		ctx = features.WithProgress(ctx, func(done, total int, message string) {
			// Progress is a courtesy: a client that cannot take it
			// still gets the answer.
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(done), Total: float64(total), Message: message})
		})
	}
	res, err := m.o.Sweep(ctx, api.DiagnosticsParams{Sweep: true, Severities: in.Severities})
	if err != nil {
		return nil, api.SweepResult{}, err
	}
	var b strings.Builder
	for _, f := range slices.Sorted(maps.Keys(res.Diagnostics)) {
		m.renderDiagnostics(&b, res.Diagnostics[f])
	}
	severities := strings.Join(in.Severities, " or ")
	if severities == "" {
		severities = strings.Join(m.o.Config().IncludeSeverities, " or ")
	}
	fmt.Fprintf(&b, "%d of %d source files checked; %d with %s\n", res.Checked, res.Files, len(res.Diagnostics), severities)
	if !res.Complete {
		fmt.Fprintf(&b, "not complete: %s\n", res.Reason)
	}
	return text(b.String()), res, nil
}
