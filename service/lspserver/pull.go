package lspserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// Pull diagnostics. A client that pulls diagnostics (textDocument/diagnostic)
// and can be told to pull again (workspace/diagnostic/refresh) gets them
// that way instead of pushed — a client shows pushed and pulled findings
// side by side, so one server must not send both. The rounds are the same
// as for pushing (every server of the file awaited, merged, asked again
// while incomplete); each round's findings are kept for the document's
// version, a pull answers the kept findings of the current version
// (waiting for its round), and a round no pull is waiting for (a change on
// disk, a round asked again) tells the client to pull.
//
// Every round's findings are kept, pushed or not: a client that pulls
// without saying it can be told to pull again (Qwen Code pulls only, and
// without refreshSupport) is pushed the findings and answered them when it
// pulls — never an empty report for a file with findings, or before the
// round of its text has run.

// pulled is a round's findings for one version of a document.
type pulled struct {
	version int32
	diags   []protocol.Diagnostic
	id      string // resultId
	seq     int    // the round's place in the rounds kept
	err     error  // why the round has no findings (the file's servers could not be held)
}

// pulls reports whether the client pulls its diagnostics: it asks for
// them and can be told to ask again.
func pulls(c protocol.ClientCapabilities) bool {
	return c.TextDocument != nil && c.TextDocument.Diagnostic != nil &&
		c.Workspace != nil && c.Workspace.Diagnostics != nil && c.Workspace.Diagnostics.RefreshSupport != nil && *c.Workspace.Diagnostics.RefreshSupport
}

// keep stores a round's findings (or why it has none) for a pull and
// wakes the pulls waiting; when none waits, a client in pull mode is told
// to pull again. It reports whether the client is in pull mode (the
// findings are not pushed).
func (p *publisher) keep(uri protocol.DocumentURI, version int32, diags []protocol.Diagnostic, err error) (pull bool) {
	p.mu.Lock()
	p.seq++
	p.kept[uri] = pulled{version: version, diags: diags, id: fmt.Sprintf("%d", p.seq), seq: p.seq, err: err}
	waiting := p.waiting[uri] > 0
	pull = p.pull
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	if pull && !waiting {
		p.wg.Go(func() {
			if _, err := protocol.DiagnosticRefreshRequest.Call(p.ctx, p.s.conn, protocol.NoParams{}); err != nil {
				p.s.log.Debug("lsp: workspace/diagnostic/refresh", "err", err)
			}
		})
	}
	return pull
}

// TextDocumentDiagnostic answers a pull: the findings of the client's
// current version of the document, once its round has run (a document it
// has not opened: the disk's, checked now).
func (s *Server) TextDocumentDiagnostic(ctx context.Context, p *protocol.DocumentDiagnosticParams) (protocol.DocumentDiagnosticReport, error) {
	uri := p.TextDocument.URI
	full := func(r pulled) protocol.DocumentDiagnosticReport {
		if p.PreviousResultID != nil && *p.PreviousResultID == r.id {
			return protocol.NewDocumentDiagnosticReportRelatedUnchangedDocumentDiagnosticReport(protocol.RelatedUnchangedDocumentDiagnosticReport{ResultID: r.id})
		}
		return protocol.NewDocumentDiagnosticReportRelatedFullDocumentDiagnosticReport(protocol.RelatedFullDocumentDiagnosticReport{ResultID: protocol.Ptr(r.id), Items: orEmpty(r.diags)})
	}
	d := s.diags
	d.mu.Lock()
	d.waiting[uri]++
	since := d.seq
	d.mu.Unlock()
	// done stops waiting; called with d.mu held, so that a round kept
	// after it tells the client to pull again.
	done := func() {
		d.waiting[uri]--
		if d.waiting[uri] == 0 {
			delete(d.waiting, uri)
		}
	}
	scheduled := false
	for {
		s.mu.Lock()
		doc, open := s.docs[uri]
		var version int32
		if open {
			version = doc.version
		}
		s.mu.Unlock()
		d.mu.Lock()
		r, ok := d.kept[uri]
		running, changed := d.running[uri], d.changed
		switch {
		case !open:
			done()
			d.mu.Unlock()
			diags, err := s.diskFindings(ctx, uri)
			return full(pulled{diags: diags, id: "disk"}), err
		case ok && r.version == version && (!running || r.seq > since):
			// Kept for this version, and no round is running — or one
			// ran since the pull came: a round asked again (findings
			// not complete in time) tells the client to pull again.
			done()
			d.mu.Unlock()
			if r.err != nil {
				// No server could be held for it: a file no server
				// handles has no findings (a log message said so);
				// a server unavailable is the pull's error.
				if te, ok := errors.AsType[*transport.Error](r.err); ok && (te.Code == api.CodeNoServer || te.Code == api.CodeOutsideRoot) {
					return full(pulled{id: "none"}), nil
				}
				return protocol.DocumentDiagnosticReport{}, passError(r.err)
			}
			return full(r), nil
		case !running && scheduled:
			// The round ran and kept nothing: no server checks the file
			// (a log message said why).
			done()
			d.mu.Unlock()
			return full(pulled{id: "none"}), nil
		}
		d.mu.Unlock()
		if !running {
			d.schedule(uri)
			scheduled = true
			continue // running now, unless it has ended already
		}
		select {
		case <-changed:
		case <-ctx.Done():
			d.mu.Lock()
			done()
			d.mu.Unlock()
			return protocol.DocumentDiagnosticReport{}, cancelled(ctx)
		}
	}
}

// diskFindings checks a file the client has not opened, as it is on disk.
func (s *Server) diskFindings(ctx context.Context, uri protocol.DocumentURI) ([]protocol.Diagnostic, error) {
	path, err := file(uri)
	if err != nil {
		return nil, err
	}
	held, err := s.b.Recheck(ctx, path, nil)
	if err != nil {
		return nil, s.unanswered(ctx, uri, protocol.DocumentDiagnosticRequest.Method(), err)
	}
	diags, _ := s.findings(ctx, uri, "the file on disk", held)
	return diags, nil
}
