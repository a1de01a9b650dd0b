package orchestrator

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// Diagnostics returns every known file's diagnostics (severity-filtered,
// files with none left out), keyed by path relative to the root. A file
// that no longer exists is left out, and its document closed and
// forgotten.
func (o *Orchestrator) Diagnostics() api.FileDiagnostics {
	var all []api.Diagnostic
	for _, s := range o.liveSessions() {
		c := s.current()
		if c == nil {
			continue
		}
		for uri, ds := range c.AllDiagnostics() {
			if path, err := uri.Path(); err == nil {
				if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
					s.forgetGone(c, uri, path)
					continue
				}
			}
			all = append(all, o.convert(s.spec.ID, c, uri, ds, "")...)
		}
	}
	out := api.FileDiagnostics{}
	for _, d := range o.Merge(all, nil) {
		out[d.File] = append(out[d.File], d)
	}
	return out
}

// defaultWait is how long DiagnosticsAfter waits when not told.
const defaultWait = time.Second

// DiagnosticsAfter waits (at most p.WaitMs, default 1000) until every
// server that was sent a change after p.AfterEpoch has settled — the changed
// documents' versions, then a brief quiet spell for the reports on other
// files (importers) that follow — and returns Diagnostics.
func (o *Orchestrator) DiagnosticsAfter(ctx context.Context, p api.DiagnosticsAfterParams) (api.FileDiagnostics, error) {
	wait := defaultWait
	if p.WaitMs != nil {
		if *p.WaitMs < 0 {
			return nil, api.InvalidParams("waitMs must be ≥ 0")
		}
		wait = time.Duration(*p.WaitMs) * time.Millisecond
	}
	o.waitHolds(ctx)
	o.barrier(ctx)
	o.SettleAfter(ctx, p.AfterEpoch, wait)
	out := o.Diagnostics()
	for _, f := range o.impactSince(ctx, p.AfterEpoch).Files {
		out[f.File] = o.Merge(append(out[f.File], f.Diagnostics...), nil)
	}
	return out, nil
}

// impactSince is the impact of the changes sent to the servers after
// epoch (the files they hold from disk): the files that depend on them,
// checked within the diagnostic timeout.
func (o *Orchestrator) impactSince(ctx context.Context, epoch uint64) api.Impact {
	ctx, cancel := context.WithTimeout(ctx, o.cfg.DiagnosticTimeout)
	defer cancel()
	sessions := o.liveSessions()
	parts := make([]*impactPart, len(sessions))
	var wg conc.WaitGroup
	for i, s := range sessions {
		c := s.current()
		if c == nil {
			continue
		}
		var files []checkFile
		s.mu.Lock()
		for uri, ch := range s.changes {
			if ch.epoch > epoch && ch.disk {
				if path, err := uri.Path(); err == nil {
					files = append(files, checkFile{abs: path})
				}
			}
		}
		s.mu.Unlock()
		if len(files) == 0 {
			continue
		}
		wg.Go(func() {
			for i := range files {
				if src, err := readSource(files[i].abs, o.maxFileBytes()); err == nil {
					files[i].src = src
				}
			}
			part := s.impact(ctx, c, files, o.cfg.ImpactMaxFiles, nil)
			parts[i] = &part
		})
	}
	if p := wg.WaitAndRecover(); p != nil {
		o.log.Error("impact: panic", "panic", p.String())
	}
	imp := o.joinImpact(parts, nil)
	if imp == nil {
		return api.Impact{}
	}
	if !imp.Complete {
		o.log.Warn("impact incomplete", "reason", imp.Reason)
	}
	return *imp
}

// CurrentDiagnostics is lsp/diagnostics: Diagnostics once the servers
// have the files as they are on disk — what the watcher saw sent, the
// documents whose files changed re-sent, and their findings (and the
// findings on other files they change) waited for, within the diagnostic
// timeout.
func (o *Orchestrator) CurrentDiagnostics(ctx context.Context) (api.FileDiagnostics, error) {
	before := o.Epoch()
	o.RefreshFromDisk(ctx)
	o.SettleAfter(ctx, before, o.cfg.DiagnosticTimeout)
	return o.Diagnostics(), nil
}

// SettleAfter waits, at most wait, until every session sent a change after
// epoch has settled.
func (o *Orchestrator) SettleAfter(ctx context.Context, epoch uint64, wait time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var wg conc.WaitGroup
	for _, s := range o.liveSessions() {
		wg.Go(func() { s.settleAfter(ctx, epoch) })
	}
	if p := wg.WaitAndRecover(); p != nil {
		o.log.Error("diagnosticsAfter: panic", "panic", p.String())
	}
}

// RefreshFromDisk passes every change on disk to the servers (the
// barrier, and each server's refresh), then re-checks the documents open
// in a server whose file differs from what the server has (edited outside
// lspkit). A document a check gave the text of is back to the disk's
// text: that text was the check's alone.
func (o *Orchestrator) RefreshFromDisk(ctx context.Context) {
	o.waitHolds(ctx)
	o.barrier(ctx)
	for _, s := range o.liveSessions() {
		if c := s.current(); c != nil {
			s.refresh(ctx, c, "")
		}
	}
	seen := map[string]bool{}
	for _, s := range o.liveSessions() {
		c := s.current()
		if c == nil {
			continue
		}
		for _, uri := range s.fromDisk() {
			path, err := uri.Path()
			if err != nil || seen[path] {
				continue
			}
			have, open := c.DocumentText(uri)
			disk, err := os.ReadFile(path)
			if !open || err != nil || string(disk) == have {
				continue
			}
			seen[path] = true
			if _, err := o.check(ctx, api.CheckParams{FilePath: path}); err != nil {
				o.log.Warn("refresh from disk", "file", o.rel(path), "err", err)
			}
		}
	}
}

// waitHolds waits, within ctx, until no check of given text holds a
// session (a what-if giving the server the disk's texts back): what
// follows reads the servers' findings on the disk.
func (o *Orchestrator) waitHolds(ctx context.Context) {
	for _, s := range o.liveSessions() {
		if release, err := s.hold(ctx, false); err == nil {
			release()
		}
	}
}

// fromDisk returns the documents whose text came from the file on disk.
func (s *session) fromDisk() []protocol.DocumentURI {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []protocol.DocumentURI
	for uri, ch := range s.changes {
		if ch.disk {
			out = append(out, uri)
		}
	}
	slices.Sort(out)
	return out
}
