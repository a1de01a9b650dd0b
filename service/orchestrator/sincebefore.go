package orchestrator

import (
	"context"
	"fmt"
	"strings"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/findings"
)

// sinceBefore keeps, of a one-file check's impact, the findings the
// change brought: the files that depend on it and have findings now are
// checked again beside the file's text before the change (before), on
// the same servers, and what they had then too is left out (counted in
// Impact.Old). A file that could not be checked so keeps all its
// findings, and Impact.BeforeUnknown says which.
func (o *Orchestrator) sinceBefore(ctx context.Context, res api.CheckResult, file, before string, p api.CheckParams) (api.CheckResult, error) {
	imp := res.Impact
	var only []string
	for _, f := range imp.Files {
		only = append(only, f.File)
	}
	then, err := o.check(ctx, api.CheckParams{Files: map[string]string{file: before}, Impact: true, ImpactOnly: only,
		Severities: p.Severities, TimeoutMs: p.TimeoutMs, ImpactMaxFiles: len(only)})
	if err != nil {
		return res, fmt.Errorf("the files that depend on %s, before the change: %w", file, err)
	}
	compared := map[string]bool{}
	old := map[string][]api.Diagnostic{}
	if then.Impact != nil {
		if then.Checked {
			for _, f := range then.Impact.CheckedFiles {
				compared[f] = true
			}
		}
		for _, f := range then.Impact.Files {
			old[f.File] = f.Diagnostics
		}
	}
	files := []api.ImpactFile{}
	var unknown []string
	for _, f := range imp.Files {
		if !compared[f.File] {
			unknown = append(unknown, f.File)
			files = append(files, f)
			continue
		}
		brought, _ := findings.Compare(old[f.File], f.Diagnostics, nil)
		imp.Old += len(f.Diagnostics) - len(brought)
		if len(brought) > 0 {
			files = append(files, api.ImpactFile{File: f.File, Diagnostics: brought})
		}
	}
	imp.Files = files
	if len(unknown) > 0 {
		why := "they could not be checked as they were before the change"
		if !then.Checked {
			why += ": " + then.Reason
		}
		imp.BeforeUnknown = fmt.Sprintf("whether the change brought the findings of %s is not known: %s", listed(unknown), why)
	}
	return res, nil
}

// listed names files, the first five and how many more.
func listed(files []string) string {
	if len(files) <= 5 {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:5], ", "), len(files)-5)
}
