package lspserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/service/textedit"
	"github.com/lspkit/lspkit/transport"
)

// TextDocumentDidOpen keeps the client's text and has it checked.
func (s *Server) TextDocumentDidOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) error {
	d := p.TextDocument
	s.mu.Lock()
	s.docs[d.URI] = &document{languageID: string(d.LanguageID), version: d.Version, text: d.Text}
	s.mu.Unlock()
	s.diags.schedule(d.URI)
	return nil
}

// TextDocumentDidChange applies the client's changes (whole texts, or
// UTF-16 ranges) to its text and has the new version checked.
func (s *Server) TextDocumentDidChange(_ context.Context, p *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("didChange of %s, which is not open", p.TextDocument.URI)
	}
	text := d.text
	for _, ch := range p.ContentChanges {
		if whole, ok := ch.AsTextDocumentContentChangeWholeDocument(); ok {
			text = whole.Text
			continue
		}
		part, _ := ch.AsTextDocumentContentChangePartial()
		m := client.Mapper{Encoding: protocol.PositionEncodingKindUTF16}
		start, end := m.Offset(text, part.Range.Start), m.Offset(text, part.Range.End)
		next, err := textedit.Apply(text, []textedit.Edit{{Start: start, End: max(start, end), New: part.Text}})
		if err != nil {
			s.mu.Unlock()
			return fmt.Errorf("didChange of %s: %w", p.TextDocument.URI, err)
		}
		text = next
	}
	d.text, d.version = text, p.TextDocument.Version
	s.mu.Unlock()
	s.diags.schedule(p.TextDocument.URI)
	return nil
}

// TextDocumentDidSave has the document checked again (servers that
// analyse saved files only answer then).
func (s *Server) TextDocumentDidSave(_ context.Context, p *protocol.DidSaveTextDocumentParams) error {
	s.diags.schedule(p.TextDocument.URI)
	return nil
}

// TextDocumentDidClose forgets the client's text (the servers follow the
// disk again) and clears the document's diagnostics.
func (s *Server) TextDocumentDidClose(ctx context.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	delete(s.docs, p.TextDocument.URI)
	s.mu.Unlock()
	s.diags.forget(p.TextDocument.URI)
	return protocol.PublishDiagnosticsNotification.Notify(ctx, s.conn, protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
}

// A publisher checks the client's open documents and publishes every
// server's findings for each version, merged: one round at a time per
// document, the latest version next (versions passed over meanwhile are
// never published).
type publisher struct {
	s      *Server
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	running map[protocol.DocumentURI]bool // a round runs
	again   map[protocol.DocumentURI]bool // a change came during it

	// Pull mode (pull.go): each round's findings kept, not published.
	pull    bool
	kept    map[protocol.DocumentURI]pulled
	seq     int                          // the last resultId given
	waiting map[protocol.DocumentURI]int // pulls waiting for a round
	changed chan struct{}                // closed when a round's findings are kept
}

func newPublisher(s *Server) *publisher {
	ctx, cancel := context.WithCancel(context.Background())
	return &publisher{s: s, ctx: ctx, cancel: cancel, running: map[protocol.DocumentURI]bool{}, again: map[protocol.DocumentURI]bool{},
		kept: map[protocol.DocumentURI]pulled{}, waiting: map[protocol.DocumentURI]int{}, changed: make(chan struct{})}
}

// schedule has uri's current text checked and published.
func (p *publisher) schedule(uri protocol.DocumentURI) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil {
		return
	}
	if p.running[uri] {
		p.again[uri] = true
		return
	}
	p.running[uri] = true
	p.wg.Go(func() {
		defer func() {
			if r := recover(); r != nil {
				p.s.log.Error("lsp: diagnostics: panic", "panic", r)
			}
		}()
		retries := 0
		for {
			settled := p.round(uri)
			p.mu.Lock()
			if !settled && !p.again[uri] && retries < maxRetries && p.ctx.Err() == nil {
				// A server's findings were not complete in time (a
				// project still loading): they were published as far as
				// they came, and are asked for again.
				retries++
				p.again[uri] = true
			} else if settled {
				retries = 0
			}
			if !p.again[uri] || p.ctx.Err() != nil {
				delete(p.running, uri)
				delete(p.again, uri)
				close(p.changed) // a pull waiting for the round looks again
				p.changed = make(chan struct{})
				p.mu.Unlock()
				return
			}
			p.again[uri] = false
			p.mu.Unlock()
		}
	})
}

// scheduleOpen has every open document checked again.
func (p *publisher) scheduleOpen() {
	p.s.mu.Lock()
	uris := slices.Collect(maps.Keys(p.s.docs))
	p.s.mu.Unlock()
	for _, uri := range uris {
		p.schedule(uri)
	}
}

// maxRetries bounds the rounds run again for one text because a server's
// findings were not complete in time.
const maxRetries = 5

// forget drops a round waiting for a closed document.
func (p *publisher) forget(uri protocol.DocumentURI) {
	p.mu.Lock()
	delete(p.again, uri)
	delete(p.kept, uri)
	p.mu.Unlock()
}

// round checks uri's text as it is now — again, even where a server has
// it already — and publishes the findings, with its version, unless the
// document changed or closed meanwhile. It reports whether every server's
// findings were complete (or there is nothing to ask again).
func (p *publisher) round(uri protocol.DocumentURI) (settled bool) {
	p.s.mu.Lock()
	d, ok := p.s.docs[uri]
	if !ok {
		p.s.mu.Unlock()
		return true
	}
	version, text := d.version, d.text
	p.s.mu.Unlock()
	path, err := file(uri)
	if err != nil {
		return true
	}
	// current says whether the client's document is still at version:
	// else a later round publishes.
	current := func() bool {
		p.s.mu.Lock()
		defer p.s.mu.Unlock()
		d, ok := p.s.docs[uri]
		return ok && d.version == version
	}
	held, err := p.s.b.Recheck(p.ctx, path, &text)
	if err != nil {
		if te, ok := err.(*transport.Error); ok {
			p.s.logMessage(p.ctx, protocol.MessageTypeInfo, fmt.Sprintf("lspkit: %s: %s", uri, te.Message))
		} else {
			p.s.logMessage(p.ctx, protocol.MessageTypeWarning, fmt.Sprintf("lspkit: %s: %v", uri, err))
		}
		if current() {
			p.keep(uri, version, nil, err)
		}
		return true
	}
	diags, settled := p.s.findings(p.ctx, uri, fmt.Sprintf("version %d", version), held)
	if !current() {
		return true
	}
	if p.keep(uri, version, diags, nil) {
		return settled // pulled, not pushed
	}
	v := version
	if err := protocol.PublishDiagnosticsNotification.Notify(p.ctx, p.s.conn, protocol.PublishDiagnosticsParams{URI: uri, Version: &v, Diagnostics: diags}); err != nil {
		p.s.log.Debug("lsp: publish", "err", err)
	}
	return settled
}

// findings merges the held servers' findings of uri (what, "version 3",
// names the text) and lets them go; it reports whether every server's
// were complete. What may be missing — a server of the file that could
// not answer, a project still loading, findings not complete in time — is
// said to the client in a log message.
func (s *Server) findings(ctx context.Context, uri protocol.DocumentURI, what string, held []orchestrator.Held) ([]protocol.Diagnostic, bool) {
	settled := true
	diags := []protocol.Diagnostic{}
	for _, h := range held {
		if h.Note != "" {
			s.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("lspkit: %s: %s", uri, h.Note))
		}
		if h.Answer != nil {
			diags = append(diags, h.Answer.Diagnostics...)
			if h.Answer.Settle != client.Settled {
				settled = false
				s.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("lspkit: %s: %s's findings for %s may be incomplete (%s)", uri, h.Server, what, h.Answer.Settle))
			}
		} else {
			diags = append(diags, h.Client.Diagnostics(h.URI)...)
		}
		h.Release()
	}
	return diags, settled
}

// stop ends the rounds and waits for them.
func (p *publisher) stop() {
	p.cancel()
	p.wg.Wait()
}
