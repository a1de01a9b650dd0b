package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/findings"
	"github.com/lspkit/lspkit/transport"
)

// Check makes every server for the file see its text (the file on disk
// unless p.Text is given), waits until each has settled or its timeout
// (p.TimeoutMs, when > 0, replaces the configured ones) and returns the
// merged, filtered, sorted diagnostics with each server's verdict.
// Checked is false, with the reason, whenever no server fully checked the
// file: outside the root, no server for its type, a binary file, LSP
// disabled, or every server unavailable, broken or out of time. An empty
// path is invalid params. With p.Delta, findings the previous check or
// report of the file showed are left out and counted in Repeated.
func (o *Orchestrator) Check(ctx context.Context, p api.CheckParams) (api.CheckResult, error) {
	res, err := o.check(ctx, p)
	if err == nil && res.Checked {
		res.Diagnostics, res.Repeated = o.shown.Update(shownKey(ctx, o.fileKey(p.FilePath)), o.checkedText(p), res.Diagnostics, p.Delta)
	}
	return res, err
}

// checkedText is the text a check of one file was for — the text given,
// else the disk's — for the record of what it showed; nil for a what-if
// or a file that cannot be read.
func (o *Orchestrator) checkedText(p api.CheckParams) *string {
	switch {
	case len(p.Files) > 0 || len(p.OnDisk) > 0:
		return nil
	case p.Text != nil:
		return p.Text
	}
	abs, ok := o.resolve(p.FilePath)
	if !ok {
		return nil
	}
	src, err := readSource(abs, o.maxFileBytes())
	if err != nil {
		return nil
	}
	return &src.text
}

// fileKey is the root-relative name of a path from a request, or the path
// itself when it is outside the root.
func (o *Orchestrator) fileKey(path string) string {
	if abs, ok := o.resolve(path); ok {
		return o.rel(abs)
	}
	return path
}

// check is Check without the record of what was shown.
func (o *Orchestrator) check(ctx context.Context, p api.CheckParams) (api.CheckResult, error) {
	res := api.CheckResult{Diagnostics: []api.Diagnostic{}, Servers: []api.ServerResult{}}
	if p.TimeoutMs < 0 {
		return res, api.InvalidParams("timeoutMs must be ≥ 1")
	}
	for _, s := range p.Severities {
		if !api.ValidSeverity(s) {
			return res, api.InvalidParams("severities: unknown severity %q (expected error, warning, info or hint)", s)
		}
	}
	if len(p.Files) > 0 || len(p.OnDisk) > 0 {
		return o.whatIf(ctx, res, p)
	}
	if err := validPath("filePath", p.FilePath); err != nil {
		return res, err
	}
	abs, ok := o.resolve(p.FilePath)
	if !ok {
		res.Reason, res.Skipped = fmt.Sprintf("%s is outside the workspace root %s", p.FilePath, o.root), api.SkippedOutsideRoot
		return res, nil
	}
	if o.cfg.Disabled {
		res.Reason, res.Skipped = "LSP is disabled by configuration", api.SkippedDisabled
		return res, nil
	}
	if glob, ok := o.excluded(abs); ok {
		res.Reason, res.Skipped = fmt.Sprintf("%s is excluded by %q (config exclude)", o.rel(abs), glob), api.SkippedExcluded
		return res, nil
	}
	targets := o.serversFor(abs)
	if len(targets) == 0 {
		res.Reason, res.Skipped = o.noServerReason(abs), api.SkippedNoServer
		return res, nil
	}
	res.Note = o.barrier(ctx)
	var src source
	if p.Text != nil {
		src.text = *p.Text
		if n := int64(len(src.text)); n > o.maxFileBytes() {
			res.Reason = fmt.Sprintf("the text of %s %s", o.rel(abs), (&tooBigError{n, o.maxFileBytes()}).Error())
			return res, nil
		}
	} else {
		var err error
		var big *tooBigError
		switch src, err = readSource(abs, o.maxFileBytes()); {
		case errors.Is(err, fs.ErrNotExist):
			res.Reason = o.rel(abs) + " does not exist"
			return res, nil
		case errors.Is(err, errDirectory), errors.Is(err, errNotRegular), errors.As(err, &big):
			res.Reason = o.rel(abs) + " " + err.Error()
			return res, nil
		case err != nil:
			return res, fmt.Errorf("check %s: %w", o.rel(abs), err)
		}
	}
	if binary([]byte(src.text)) {
		res.Reason = o.rel(abs) + " is a binary file"
		return res, nil
	}
	want := impactNone
	switch {
	case p.Impact:
		want = impactAlways
	case p.ImpactAfterChange:
		want = impactIfChanged
	}
	groups := []checkGroup{}
	for _, t := range targets {
		groups = append(groups, checkGroup{t, []checkFile{{abs, src}}})
	}
	res, held, err := o.runGroups(ctx, res, groups, p, want)
	if err != nil || res.Impact == nil || len(res.Impact.Files) == 0 {
		return res, err
	}
	before, known := "", held != nil
	if known {
		before = *held
	}
	if !known && p.Text != nil {
		// A given text's before is the disk's.
		switch disk, err := readSource(abs, o.maxFileBytes()); {
		case err == nil:
			before, known = disk.text, true
		case errors.Is(err, fs.ErrNotExist):
			before, known = "", true
		}
	}
	if !known {
		res.Impact.BeforeUnknown = fmt.Sprintf("lspkit had no earlier text of %s, so whether the change brought these findings is not known", o.rel(abs))
		return res, nil
	}
	return o.sinceBefore(ctx, res, o.rel(abs), before, p)
}

// checkGroup is the files of a check one server checks.
type checkGroup struct {
	t     target
	files []checkFile
}

// runGroups runs each server's part of a check at once and joins them.
// held is the text every server had of a check's one file before it,
// when they all had the same one open; else nil.
func (o *Orchestrator) runGroups(ctx context.Context, res api.CheckResult, groups []checkGroup, p api.CheckParams, want impactWant) (_ api.CheckResult, held *string, _ error) {
	o.bump()
	how := checkHow{timeout: time.Duration(p.TimeoutMs) * time.Millisecond, want: want, impactMax: p.ImpactMaxFiles, impactOnly: p.ImpactOnly}
	if how.impactMax == 0 {
		how.impactMax = o.cfg.ImpactMaxFiles
	}
	parts := make([]serverPart, len(groups))
	var wg conc.WaitGroup
	for i, g := range groups {
		wg.Go(func() { parts[i] = o.checkOn(ctx, g.t, g.files, how) })
	}
	if panicked := wg.WaitAndRecover(); panicked != nil {
		o.log.Error("check: panic", "panic", panicked.String())
		return res, nil, transport.Errorf(transport.CodeInternalError, "check %s: internal error: %v", o.rel(groups[0].files[0].abs), panicked.Value)
	}
	for i, part := range parts {
		if part.held == nil || i > 0 && held == nil || held != nil && *held != *part.held {
			held = nil
			break
		}
		held = part.held
	}
	var diags []api.Diagnostic
	var impacts []*impactPart
	for _, part := range parts {
		res.Servers = append(res.Servers, part.res)
		res.Note = api.JoinNotes(res.Note, part.note)
		diags = append(diags, part.diags...)
		if part.impact == nil && want == impactAlways && part.res.Verdict != api.VerdictSettled {
			part.impact = &impactPart{incomplete: []string{part.res.ID + ": the changed file was not checked, so neither were the files that depend on it"}}
		}
		impacts = append(impacts, part.impact)
	}
	res.Diagnostics = o.Merge(diags, p.Severities)
	res.Checked, res.Reason = verdictOf(res.Servers)
	res.Impact = o.joinImpact(impacts, p.Severities)
	if res.Impact == nil && want == impactAlways {
		res.Impact = &api.Impact{Files: []api.ImpactFile{}, Complete: true}
	}
	return res, held, nil
}

// verdictOf says whether every server settled, and if not, why: one
// clause per server that did not.
func verdictOf(results []api.ServerResult) (bool, string) {
	var why []string
	for _, r := range results {
		if r.Verdict != api.VerdictSettled {
			why = append(why, serverReason(r))
		}
	}
	if len(why) == 0 {
		return true, ""
	}
	return false, strings.Join(why, "; ")
}

// cancelledByCaller begins the reason of a server's part of a check its
// caller gave up on.
const cancelledByCaller = "the check was cancelled by its caller"

// serverReason says, in a clause, why a server did not settle.
func serverReason(r api.ServerResult) string {
	if strings.HasPrefix(r.Reason, cancelledByCaller) {
		return r.ID + ": " + r.Reason
	}
	var s string
	switch r.Verdict {
	case api.VerdictPartial:
		s = fmt.Sprintf("%s timed out after %d ms with part of its findings", r.ID, r.MS)
	case api.VerdictTimedOut:
		s = fmt.Sprintf("%s timed out after %d ms", r.ID, r.MS)
	default:
		s = fmt.Sprintf("%s is %s", r.ID, r.Verdict)
	}
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}

// noServerReason says why no server serves the file at abs.
func (o *Orchestrator) noServerReason(abs string) string {
	ext := strings.ToLower(filepath.Ext(abs))
	if ext == "" {
		ext = filepath.Base(abs)
	}
	return fmt.Sprintf("no language server handles %s files (configured: %s)", ext, o.knownServers())
}

// CheckFile is lsp/checkFile: Check's diagnostics alone, [] for a file no
// server checked.
func (o *Orchestrator) CheckFile(ctx context.Context, p api.CheckParams) ([]api.Diagnostic, error) {
	res, err := o.Check(ctx, p)
	return res.Diagnostics, err
}

// binary reports whether data looks binary: a NUL in the first 8 KiB.
func binary(data []byte) bool {
	if len(data) > 8192 {
		data = data[:8192]
	}
	return slices.Contains(data, 0)
}

// serverPart is one server's part of a check: how it finished, its
// findings on the checked files, a note, and the impact when asked for.
type serverPart struct {
	res    api.ServerResult
	diags  []api.Diagnostic
	note   string
	impact *impactPart
	// held is the text the server had of a check's one file before it,
	// nil when it did not have the file open.
	held *string
}

// settleRank orders how a wait ended, the worst last.
var settleRank = map[client.Settle]int{client.Settled: 0, client.TimedOut: 1, client.Failed: 2, client.ServerGone: 3}

// checkHow is how a check goes: each server's time (0: the configured
// timeouts), whether it finds the impact, and of how many files at most.
type checkHow struct {
	timeout   time.Duration
	want      impactWant
	impactMax int
	// impactOnly, when not nil, keeps these dependents alone (relative
	// to the root).
	impactOnly []string
}

// checkOn runs one server's part of a check of files, with their impact
// when how.want asks for it. A server that died under the check — or had died
// just before it, its exit not yet seen — and that the restart policy
// starts again is asked again, once, on its new process: the answer is
// the restarted server's, not "broken".
func (o *Orchestrator) checkOn(ctx context.Context, t target, files []checkFile, how checkHow) serverPart {
	part := o.checkOnce(ctx, t, files, how)
	if part.res.Verdict != api.VerdictBroken || ctx.Err() != nil {
		return part
	}
	if s, err := o.session(t); err == nil && s.restarting() {
		o.log.Info("check: the server died under it and is restarting; asked again", "server", t.spec.ID, "file", o.rel(files[0].abs))
		return o.checkOnce(ctx, t, files, how)
	}
	return part
}

// checkOnce is checkOn's one attempt. A what-if (given texts) of several
// files, or with its impact, gives the server the disk's texts back
// before it returns.
func (o *Orchestrator) checkOnce(ctx context.Context, t target, files []checkFile, how checkHow) (part serverPart) {
	timeout, want := how.timeout, how.want
	start := time.Now()
	res := &part.res
	res.ID = t.spec.ID
	path := files[0].abs
	done := func(v api.Verdict, reason string) serverPart {
		res.Verdict, res.Reason, res.MS = v, reason, time.Since(start).Milliseconds()
		o.log.Info("check", "server", t.spec.ID, "file", o.rel(path), "verdict", v, "ms", res.MS)
		part.diags = nil
		return part
	}
	s, err := o.session(t)
	if err == nil {
		defer s.used() // unused from the end of the check, not its start
	}
	if err != nil {
		return done(api.VerdictBroken, err.Error())
	}
	first := s.cold()
	if first {
		res.Cold = s.coldAfter
	}
	if o.oneShot {
		s.waitInstalled(ctx)
	}
	ownTime := timeout <= 0 // the configured timeouts, not the caller's
	if ownTime {
		timeout = o.cfg.DiagnosticTimeout
		if first {
			timeout = o.cfg.FirstTouchTimeout
		}
	}
	caller := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() {
		// The caller gave up (an abort, $/cancelRequest): the answer is what
		// was known then, and says so rather than that the server was slow.
		if caller.Err() != nil && (res.Verdict == api.VerdictTimedOut || res.Verdict == api.VerdictPartial) {
			res.Reason = fmt.Sprintf("%s after %d ms", cancelledByCaller, res.MS)
		}
	}()
	given := slices.ContainsFunc(files, func(f checkFile) bool { return !f.src.disk })
	if given && t.spec.Settle != nil && t.spec.Settle.SavedOnly {
		return done(api.VerdictUnavailable, t.spec.ID+" analyses saved files only: text given instead of the file's cannot be checked by it (write the file, then check it)")
	}
	// A check of given text holds the session alone until its answer; any
	// other holds it beside the others (see session.hold). The server it
	// holds is the one running then: one restarted meanwhile (over its
	// memory limit) is awaited again.
	c, release, verdict, reason := s.awaitHeld(ctx, given)
	if c == nil {
		return done(verdict, reason)
	}
	restore := false
	defer func() {
		if !restore {
			release()
			return
		}
		// The server gets the disk's texts back after the answer, still
		// held: what follows is answered from the disk.
		o.bg.Go(func() {
			defer release()
			s.restore(c, files)
		})
	}()
	except := ""
	if len(files) == 1 {
		except = path
	}
	// Whether the files changed since the server had them, before the
	// refresh gives it the disk's texts.
	changed := false
	for _, f := range files {
		uri, err := protocol.FileURI(f.abs)
		have, open := c.DocumentText(uri)
		if err == nil && (!open || have != f.src.text) {
			changed = true
		}
		if err == nil && open && len(files) == 1 {
			part.held = &have
		}
	}
	part.note = s.refresh(ctx, c, except)
	// A what-if of several files, or with its impact, gives the server
	// the disk's texts back before anything else asks it.
	restore = given && (len(files) > 1 || want != impactNone)
	// Several files: every text reaches the server before any is
	// diagnosed, so that each file's findings are for all the texts
	// together — a caller diagnosed before its callee's new text arrived
	// was answered against the old callee. Each is then diagnosed as an
	// unchanged text: asked again (gopls's command, tsserver), or re-sent
	// as a new version for the servers that answer once per version.
	if len(files) > 1 {
		if headers := givenHeaders(t.spec, files); len(headers) > 0 {
			// clangd compiles includes from disk: the what-if's other
			// files read its headers' texts through an overlay, as its
			// dependents do (impact).
			var others []string
			for _, f := range files {
				if !slices.ContainsFunc(headers, func(h checkFile) bool { return h.abs == f.abs }) {
					others = append(others, f.abs)
				}
			}
			if len(others) > 0 {
				undo, _, err := s.overlayHeaders(ctx, c, headers, others)
				if err != nil {
					return done(api.VerdictBroken, "the what-if's headers could not be given to the files that include them: "+err.Error())
				}
				defer undo()
			}
		}
		for _, f := range files {
			if !f.src.disk {
				s.giving(f.abs)
			}
			if _, _, err := s.sync(ctx, c, f.abs, t.spec.LanguageID(f.abs), f.src); err != nil {
				if ctx.Err() != nil {
					return done(api.VerdictTimedOut, "")
				}
				return done(api.VerdictBroken, err.Error())
			}
		}
	}
	answers := make([]client.Answer, len(files))
	errs := make([]error, len(files))
	// The impact starts once the server has every changed text: its
	// dependents are checked while the server still works on the changed
	// files, not after.
	var sent sync.WaitGroup
	sent.Add(len(files))
	var impact conc.WaitGroup
	if want == impactAlways || want == impactIfChanged && changed {
		impact.Go(func() {
			sent.Wait()
			part.impact = o.impactOf(caller, s, c, files, timeout, how)
		})
	}
	var wg conc.WaitGroup
	for i, f := range files {
		wg.Go(func() {
			var once sync.Once
			markSent := func() { once.Do(sent.Done) }
			defer markSent()
			answers[i], errs[i] = s.diagnose(client.WithSent(ctx, markSent), c, f.abs, t.spec.LanguageID(f.abs), f.src)
		})
	}
	defer func() {
		// Never return before the impact is in: it uses the session's
		// hold, and its answer is this check's.
		if p := impact.WaitAndRecover(); p != nil {
			o.log.Error("impact: panic", "panic", p.String())
			part.impact = &impactPart{incomplete: []string{fmt.Sprintf("%s: internal error: %v", t.spec.ID, p.Value)}}
		}
		if part.impact != nil && (res.Verdict == api.VerdictBroken || res.Verdict == api.VerdictUnavailable) {
			part.impact = &impactPart{incomplete: []string{t.spec.ID + ": the changed file was not checked, so neither were the files that depend on it"}}
		}
	}()
	if p := wg.WaitAndRecover(); p != nil {
		o.log.Error("check: panic", "panic", p.String())
		return done(api.VerdictBroken, fmt.Sprintf("internal error: %v", p.Value))
	}
	if err := errors.Join(errs...); err != nil {
		if errors.Is(err, client.ErrDocumentBusy) {
			return done(api.VerdictTimedOut, "other checks of the file took its time")
		}
		if ctx.Err() != nil {
			return done(api.VerdictTimedOut, "")
		}
		// Sending failed: the server is likely gone. Once its exit is
		// seen, status must say what became of it before the next check.
		wait, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		select {
		case <-c.Exited():
			s.crashHandled(ctx, c)
			return done(api.VerdictBroken, c.Status().Reason)
		case <-wait.Done():
		}
		return done(api.VerdictBroken, err.Error())
	}
	settle, why := client.Settled, ""
	for i, a := range answers {
		if settleRank[a.Settle] > settleRank[settle] {
			settle, why = a.Settle, a.Reason
		}
		part.diags = append(part.diags, o.convert(t.spec.ID, c, a.URI, a.Diagnostics, files[i].src.text)...)
		// A project file the server cannot read (a go.mod left broken by
		// an edit) leaves the file unchecked while the server publishes
		// nothing for it: the project file's errors are the answer.
		part.diags = append(part.diags, s.projectErrors(c, files[i].abs)...)
	}
	res.MS = time.Since(start).Milliseconds()
	switch settle {
	case client.Settled:
		res.Verdict = api.VerdictSettled
		s.warmed(c)
	case client.TimedOut:
		res.Verdict = api.VerdictTimedOut
		if len(part.diags) > 0 {
			res.Verdict = api.VerdictPartial
		}
		if ownTime && caller.Err() == nil {
			s.warmed(c) // its first touch is spent, whether or not it ever settles
		}
		o.log.Warn("check timed out", "server", t.spec.ID, "file", o.rel(path), "ms", res.MS)
		s.probe(c)
	case client.ServerGone:
		res.Verdict, res.Reason = api.VerdictBroken, c.Status().Reason
		s.crashHandled(ctx, c) // so status says what became of it
	case client.Failed:
		res.Verdict, res.Reason = api.VerdictBroken, why
		o.log.Warn("check failed", "server", t.spec.ID, "file", o.rel(path), "reason", why)
	}
	o.log.Info("check", "server", t.spec.ID, "file", o.rel(path), "verdict", res.Verdict, "ms", res.MS)
	return part
}

// impactOf runs a check's impact on one server, within the check's time
// again.
func (o *Orchestrator) impactOf(caller context.Context, s *session, c *client.Client, files []checkFile, timeout time.Duration, how checkHow) *impactPart {
	ctx, cancel := context.WithTimeout(caller, timeout)
	defer cancel()
	start := time.Now()
	part := s.impact(ctx, c, files, how.impactMax, how.impactOnly)
	o.log.Info("impact", "server", s.spec.ID, "file", o.rel(files[0].abs), "checked", part.checked, "ms", time.Since(start).Milliseconds())
	return &part
}

// Merge keeps the severities asked for (none: the configured ones), drops
// duplicates (file, range and message) and sorts by file, line and column
// (findings.Merge).
func (o *Orchestrator) Merge(in []api.Diagnostic, severities []string) []api.Diagnostic {
	if len(severities) == 0 {
		severities = o.cfg.IncludeSeverities
	}
	return findings.Merge(in, severities)
}

// convert turns a client's diagnostics for uri into the contract's shape.
// Columns need the line text: text when given, else the open document's,
// else the file on disk. Files outside the root or excluded are left out.
func (o *Orchestrator) convert(server string, c *client.Client, uri protocol.DocumentURI, diags []protocol.Diagnostic, text string) []api.Diagnostic {
	path, err := uri.Path()
	if err != nil || !within(o.root, path) || len(diags) == 0 {
		return nil
	}
	if _, excluded := o.excluded(path); excluded {
		return nil
	}
	if text == "" {
		if t, ok := c.DocumentText(uri); ok {
			text = t
		} else if data, err := os.ReadFile(path); err == nil {
			text = string(data)
		}
	}
	return findings.Convert(server, c.Mapper(), o.rel(path), text, diags)
}

// projectErrors returns the error findings c holds for the project files
// that govern path — the session's root markers (go.mod, tsconfig.json,
// pyproject.toml, compile_commands.json, …) in path's directory and each
// one above it up to the session's root.
func (s *session) projectErrors(c *client.Client, path string) []api.Diagnostic {
	var out []api.Diagnostic
	root := s.rootOf(path)
	for dir := filepath.Dir(path); within(root, dir); dir = filepath.Dir(dir) {
		for _, marker := range s.spec.RootMarkers {
			uri, err := protocol.FileURI(filepath.Join(dir, marker))
			if err != nil {
				continue
			}
			for _, d := range s.o.convert(s.spec.ID, c, uri, c.Diagnostics(uri), "") {
				if d.Severity == "error" {
					out = append(out, d)
				}
			}
		}
		if dir == root || filepath.Dir(dir) == dir {
			break
		}
	}
	return out
}
