package orchestrator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc"
	"github.com/sourcegraph/conc/pool"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/impact"
)

// maxSweepFiles bounds the files one sweep checks.
const maxSweepFiles = 20000

// sweepBatch is how many files a sweep has open on one server at once.
const sweepBatch = 16

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
// servers have the disk's files (CurrentDiagnostics), or with p.Sweep
// every source file of the root checked first (Sweep).
func (o *Orchestrator) DiagnosticsOf(ctx context.Context, p api.DiagnosticsParams) (any, error) {
	if p.Sweep {
		return o.Sweep(ctx, p)
	}
	if len(p.Severities) > 0 {
		return nil, api.InvalidParams("severities: only for a sweep")
	}
	return o.CurrentDiagnostics(ctx)
}

// Sweep checks every source file under the root that a server handles
// (what the configuration excludes, hidden directories and installed
// dependencies left out): each server's files in batches of sweepBatch,
// opened as they are on disk, waited on until settled and closed again
// unless they were open, with progress reported. Files a server did not
// settle, or past maxSweepFiles, make the answer incomplete, with the
// reason.
func (o *Orchestrator) Sweep(ctx context.Context, p api.DiagnosticsParams) (api.SweepResult, error) {
	for _, s := range p.Severities {
		if !api.ValidSeverity(s) {
			return api.SweepResult{}, api.InvalidParams("severities: unknown severity %q (expected error, warning, info or hint)", s)
		}
	}
	res := api.SweepResult{Diagnostics: api.FileDiagnostics{}, Complete: true}
	if o.cfg.Disabled {
		res.Complete, res.Reason = false, "LSP is disabled by configuration"
		return res, nil
	}
	o.barrier(ctx)
	var groups []checkGroup
	index := map[string]int{}
	var why []string
	complete := impact.Walk(o.root, maxWalkEntries, o.skipped, func(path string) bool {
		targets := o.serversFor(path)
		if len(targets) == 0 {
			return true
		}
		if res.Files++; res.Files > maxSweepFiles {
			return false
		}
		for _, t := range targets {
			key := t.spec.ID + "\x00" + t.root
			i, ok := index[key]
			if !ok {
				i = len(groups)
				index[key] = i
				groups = append(groups, checkGroup{t: t})
			}
			groups[i].files = append(groups[i].files, checkFile{abs: path})
		}
		return true
	})
	if !complete {
		res.Files = min(res.Files, maxSweepFiles)
		why = append(why, fmt.Sprintf("the tree has more than %d source files or %d entries: the first %d files were swept", maxSweepFiles, maxWalkEntries, res.Files))
	}
	total := 0
	for _, g := range groups {
		total += len(g.files)
	}
	var done int              // files checked so far, under progressMu
	var progressMu sync.Mutex // progress is told in order, one at a time
	var mu sync.Mutex
	var diags []api.Diagnostic
	checked := map[string]int{} // by file: servers that settled on it
	var wg conc.WaitGroup
	for _, g := range groups {
		wg.Go(func() {
			ds, settled, reason := o.sweepOn(ctx, g, func(n int) {
				progressMu.Lock()
				defer progressMu.Unlock()
				done += n
				progress(ctx, done, total, fmt.Sprintf("%d of %d files checked", done, total))
			})
			mu.Lock()
			defer mu.Unlock()
			diags = append(diags, ds...)
			for _, f := range settled {
				checked[f]++
			}
			if reason != "" {
				why = append(why, reason)
			}
		})
	}
	if p := wg.WaitAndRecover(); p != nil {
		o.log.Error("sweep: panic", "panic", p.String())
		why = append(why, fmt.Sprintf("internal error: %v", p.Value))
	}
	// A file counts as checked when every server for it settled.
	need := map[string]int{}
	for _, g := range groups {
		for _, f := range g.files {
			need[f.abs]++
		}
	}
	for f, n := range need {
		if checked[f] == n {
			res.Checked++
		}
	}
	for _, d := range o.merge(diags, p.Severities) {
		res.Diagnostics[d.File] = append(res.Diagnostics[d.File], d)
	}
	if len(why) > 0 {
		slices.Sort(why)
		res.Complete, res.Reason = false, strings.Join(why, "; ")
	}
	o.log.Info("sweep", "files", res.Files, "checked", res.Checked, "complete", res.Complete)
	return res, nil
}

// sweepOn checks a group's files on its server, sweepBatch at a time, each
// batch within the server's timeout; it returns the findings, the files
// that settled, and why not all did.
func (o *Orchestrator) sweepOn(ctx context.Context, g checkGroup, advance func(n int)) ([]api.Diagnostic, []string, string) {
	s, err := o.session(g.t)
	if err != nil {
		advance(len(g.files))
		return nil, nil, fmt.Sprintf("%s: %v", g.t.spec.ID, err)
	}
	defer s.used()
	timeout := o.cfg.DiagnosticTimeout
	if s.cold() {
		timeout = o.cfg.FirstTouchTimeout
	}
	wait, cancel := context.WithTimeout(ctx, timeout)
	c, release, verdict, reason := s.awaitHeld(wait, false)
	cancel()
	if c == nil {
		advance(len(g.files))
		return nil, nil, fmt.Sprintf("%s is %s: %s", g.t.spec.ID, verdict, reason)
	}
	defer release()
	s.refresh(ctx, c, "")
	var diags []api.Diagnostic
	var settled []string
	var missed lateOrFailed
	var mu sync.Mutex
	start := time.Now()
	for batch := range slices.Chunk(g.files, sweepBatch) {
		bctx, cancel := context.WithTimeout(ctx, timeout)
		p := pool.New().WithMaxGoroutines(sweepBatch)
		for _, f := range batch {
			p.Go(func() {
				ds, err := s.checkDependent(bctx, c, f.abs)
				mu.Lock()
				defer mu.Unlock()
				diags = append(diags, ds...)
				if err == nil {
					settled = append(settled, f.abs)
				} else {
					missed.add(o.rel(f.abs), err)
				}
			})
		}
		p.Wait()
		cancel()
		advance(len(batch))
		if timeout == o.cfg.FirstTouchTimeout {
			s.warmed(c)
			timeout = o.cfg.DiagnosticTimeout
		}
		if ctx.Err() != nil {
			break
		}
	}
	for _, f := range g.files[len(settled)+len(missed.late)+len(missed.failed):] {
		missed.add(o.rel(f.abs), errLate) // the caller gave up before their batch
	}
	return diags, settled, strings.Join(missed.reasons(g.t.spec.ID, len(g.files), time.Since(start).Milliseconds(), "files"), "; ")
}
