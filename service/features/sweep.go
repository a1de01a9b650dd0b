package features

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/impact"
	"github.com/lspkit/lspkit/service/orchestrator"
)

// maxSweepFiles bounds the files one sweep checks.
const maxSweepFiles = 20000

// progressKey carries a Progress function in a context.
type progressKey struct{}

// Progress is told how far a long request (a sweep) is: done of total.
type Progress func(done, total int, message string)

// WithProgress returns a context whose long requests report their progress
// to fn.
func WithProgress(ctx context.Context, fn Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progress reports to ctx's Progress, if any.
func progress(ctx context.Context, done, total int, message string) {
	if fn, ok := ctx.Value(progressKey{}).(Progress); ok && fn != nil {
		fn(done, total, message)
	}
}

// DiagnosticsOf is lsp/diagnostics: the known files' diagnostics once the
// servers have the disk's files (the core's CurrentDiagnostics), or with
// p.Sweep every source file of the root checked first (Sweep).
func (f *Features) DiagnosticsOf(ctx context.Context, p api.DiagnosticsParams) (any, error) {
	if p.Sweep {
		return f.Sweep(ctx, p)
	}
	if len(p.Severities) > 0 {
		return nil, api.InvalidParams("severities: only for a sweep")
	}
	return f.core.CurrentDiagnostics(ctx)
}

// Sweep checks every source file under the root that a server handles
// (what the configuration excludes, hidden directories and installed
// dependencies left out): each server's files as they are on disk (the
// core's CheckOnDisk), with progress reported. Files a server did not
// settle, or past maxSweepFiles, make the answer incomplete, with the
// reason.
func (f *Features) Sweep(ctx context.Context, p api.DiagnosticsParams) (api.SweepResult, error) {
	for _, s := range p.Severities {
		if !api.ValidSeverity(s) {
			return api.SweepResult{}, api.InvalidParams("severities: unknown severity %q (expected error, warning, info or hint)", s)
		}
	}
	res := api.SweepResult{Diagnostics: api.FileDiagnostics{}, Complete: true}
	if f.cfg.Disabled {
		res.Complete, res.Reason = false, "LSP is disabled by configuration"
		return res, nil
	}
	f.core.Barrier(ctx)
	var servings []orchestrator.Serving // in the order first met
	files := map[orchestrator.Serving][]string{}
	var why []string
	complete := impact.Walk(f.root, impact.MaxWalkEntries, f.core.Skipped, func(path string) bool {
		servers := f.core.ServersOf(path)
		if len(servers) == 0 {
			return true
		}
		if res.Files++; res.Files > maxSweepFiles {
			return false
		}
		for _, sv := range servers {
			if _, ok := files[sv]; !ok {
				servings = append(servings, sv)
			}
			files[sv] = append(files[sv], path)
		}
		return true
	})
	if !complete {
		res.Files = min(res.Files, maxSweepFiles)
		why = append(why, fmt.Sprintf("the tree has more than %d source files or %d entries: the first %d files were swept", maxSweepFiles, impact.MaxWalkEntries, res.Files))
	}
	total := 0
	for _, fs := range files {
		total += len(fs)
	}
	var done int              // files checked so far, under progressMu
	var progressMu sync.Mutex // progress is told in order, one at a time
	var mu sync.Mutex
	var diags []api.Diagnostic
	checked := map[string]int{} // by file: servers that settled on it
	var wg conc.WaitGroup
	for _, sv := range servings {
		wg.Go(func() {
			ds, settled, reason := f.core.CheckOnDisk(ctx, sv, files[sv], func(n int) {
				progressMu.Lock()
				defer progressMu.Unlock()
				done += n
				progress(ctx, done, total, fmt.Sprintf("%d of %d files checked", done, total))
			})
			mu.Lock()
			defer mu.Unlock()
			diags = append(diags, ds...)
			for _, file := range settled {
				checked[file]++
			}
			if reason != "" {
				why = append(why, reason)
			}
		})
	}
	if p := wg.WaitAndRecover(); p != nil {
		f.log.Error("sweep: panic", "panic", p.String())
		why = append(why, fmt.Sprintf("internal error: %v", p.Value))
	}
	// A file counts as checked when every server for it settled.
	need := map[string]int{}
	for _, fs := range files {
		for _, file := range fs {
			need[file]++
		}
	}
	for file, n := range need {
		if checked[file] == n {
			res.Checked++
		}
	}
	for _, d := range f.core.Merge(diags, p.Severities) {
		res.Diagnostics[d.File] = append(res.Diagnostics[d.File], d)
	}
	if len(why) > 0 {
		slices.Sort(why)
		res.Complete, res.Reason = false, strings.Join(why, "; ")
	}
	f.log.Info("sweep", "files", res.Files, "checked", res.Checked, "complete", res.Complete)
	return res, nil
}
