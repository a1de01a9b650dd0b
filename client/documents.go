package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/lspkit/lspkit/protocol"
)

// document is an open text document as the server knows it.
type document struct {
	languageID  string
	version     int32
	sent        int32 // the last version whose didOpen/didChange is on the wire
	text        string
	changeEpoch uint64 // the change epoch at the last didOpen/didChange
	saved       bool   // a didSave went out for the text as it is
}

// docStore is the client's open documents, under its own lock.
type docStore struct {
	mu   sync.Mutex
	docs map[protocol.DocumentURI]*document
}

func newDocStore() *docStore { return &docStore{docs: map[protocol.DocumentURI]*document{}} }

// text returns an open document's text.
func (s *docStore) text(uri protocol.DocumentURI) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	if !ok {
		return "", false
	}
	return d.text, true
}

// get returns a copy of an open document's state.
func (s *docStore) get(uri protocol.DocumentURI) (document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	if !ok {
		return document{}, false
	}
	return *d, true
}

// update records new text for uri, opening it at version 1 or advancing its
// version, and returns the document before (zero and false when it was not
// open) and after. Unchanged text changes nothing (changed is false).
func (s *docStore) update(uri protocol.DocumentURI, languageID, text string, epoch func() uint64) (before, after document, open, changed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, open := s.docs[uri]
	if open && d.text == text {
		return *d, *d, true, false
	}
	if !open {
		d = &document{languageID: languageID}
		s.docs[uri] = d
	} else {
		before = *d
	}
	d.version++
	d.text = text
	d.changeEpoch = epoch()
	d.saved = false
	return before, *d, open, true
}

// resend records text (changed or not) as a new version of the open
// document uri and returns it.
func (s *docStore) resend(uri protocol.DocumentURI, text string, epoch func() uint64) document {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[uri]
	d.saved = d.saved && d.text == text
	d.version++
	d.text = text
	d.changeEpoch = epoch()
	return *d
}

// markSaved records that a didSave went out for uri's text, and reports
// whether one had for the same text already.
func (s *docStore) markSaved(uri protocol.DocumentURI) (again bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	if !ok {
		return false
	}
	again, d.saved = d.saved, true
	return again
}

// markSent records that version of uri is on the wire.
func (s *docStore) markSent(uri protocol.DocumentURI, version int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.docs[uri]; ok && d.version == version {
		d.sent = version
	}
}

// remove forgets a document and reports whether it was open.
func (s *docStore) remove(uri protocol.DocumentURI) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.docs[uri]
	delete(s.docs, uri)
	return ok
}

// sentVersions returns the version of each open document the server has
// been sent.
func (s *docStore) sentVersions() map[protocol.DocumentURI]int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[protocol.DocumentURI]int32, len(s.docs))
	for uri, d := range s.docs {
		if d.sent > 0 {
			out[uri] = d.sent
		}
	}
	return out
}

// uris returns the open documents.
func (s *docStore) uris() []protocol.DocumentURI {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Keys(s.docs))
}

// ErrDocumentBusy says a document stayed busy with another check (or
// change) until the caller's context ended.
var ErrDocumentBusy = errors.New("the document was busy with another check")

// docLocks serializes the work on each document: a check holds its
// document from sending the text until the server's answer for that text
// is in, so no check is answered with, or has its columns mapped by,
// another check's text.
type docLocks struct {
	mu    sync.Mutex
	locks map[protocol.DocumentURI]*docLock
}

// docLock is one document's lock: a token in ch is the holder; refs counts
// holders and waiters, so the entry goes when nobody needs it.
type docLock struct {
	ch   chan struct{}
	refs int
}

func newDocLocks() *docLocks { return &docLocks{locks: map[protocol.DocumentURI]*docLock{}} }

// lock takes uri's lock, waiting within ctx, and returns its release.
func (l *docLocks) lock(ctx context.Context, uri protocol.DocumentURI) (func(), error) {
	l.mu.Lock()
	dl := l.locks[uri]
	if dl == nil {
		dl = &docLock{ch: make(chan struct{}, 1)}
		l.locks[uri] = dl
	}
	dl.refs++
	l.mu.Unlock()
	select {
	case dl.ch <- struct{}{}:
		return func() {
			<-dl.ch
			l.release(uri, dl)
		}, nil
	case <-ctx.Done():
		l.release(uri, dl)
		return nil, fmt.Errorf("%w: %w", ErrDocumentBusy, ctx.Err())
	}
}

func (l *docLocks) release(uri protocol.DocumentURI, dl *docLock) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if dl.refs--; dl.refs == 0 {
		delete(l.locks, uri)
	}
}

// Sync makes the server's copy of the file at path hold text: didOpen the
// first time, then didChange with a new version (one minimal edit for
// servers with incremental sync, the whole text otherwise). The text comes
// from the caller; the file on disk is not read. It returns the document's
// URI and version; unchanged text sends nothing and keeps the version.
//
// It waits (within ctx) while a Diagnose of the same document is under way.
func (c *Client) Sync(ctx context.Context, path, languageID, text string) (protocol.DocumentURI, int32, error) {
	uri, err := protocol.FileURI(path)
	if err != nil {
		return "", 0, err
	}
	unlock, err := c.docLocks.lock(ctx, uri)
	if err != nil {
		return uri, 0, fmt.Errorf("client: %s: sync %s: %w", c.cfg.Name, uri, err)
	}
	defer unlock()
	uri, version, _, err := c.sync(ctx, path, languageID, text)
	return uri, version, err
}

// sync is Sync, also reporting whether anything was sent.
func (c *Client) sync(ctx context.Context, path, languageID, text string) (protocol.DocumentURI, int32, bool, error) {
	uri, err := protocol.FileURI(path)
	if err != nil {
		return "", 0, false, err
	}
	// Changes go out one at a time, in version order.
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	before, doc, open, changed := c.docs.update(uri, languageID, text, c.changes.advance)
	if !changed {
		return uri, doc.version, false, nil
	}
	c.inputChanged()
	c.changes.wake()
	if !open {
		err = protocol.DidOpenTextDocumentNotification.Notify(ctx, c.conn, protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: protocol.LanguageKind(languageID), Version: doc.version, Text: text},
		})
	} else {
		err = c.sendChange(ctx, uri, before.text, doc)
	}
	if err != nil {
		return uri, doc.version, true, fmt.Errorf("client: %s: sync %s: %w", c.cfg.Name, uri, err)
	}
	c.sent(uri, doc.version)
	return uri, doc.version, true, nil
}

// sent records that version of uri is on the wire and starts what follows
// a change: only now may a pull be tagged with this version (a pull sent
// before the change would be answered for the old text).
func (c *Client) sent(uri protocol.DocumentURI, version int32) {
	c.docs.markSent(uri, version)
	c.pulls.kickWorkspace()
	c.pulls.pull(uri, version, 0)
}

// sendChange sends didChange taking the server's copy of uri from old to
// doc's text at doc's version: one minimal edit for servers with
// incremental sync, the whole text otherwise, nothing for servers that
// want no changes. The caller holds syncMu.
func (c *Client) sendChange(ctx context.Context, uri protocol.DocumentURI, old string, doc document) error {
	caps := c.ServerCapabilities()
	kind := syncKind(&caps)
	if kind == protocol.TextDocumentSyncKindNone {
		return nil
	}
	change := protocol.NewTextDocumentContentChangeEventTextDocumentContentChangeWholeDocument(protocol.TextDocumentContentChangeWholeDocument{Text: doc.text})
	if kind == protocol.TextDocumentSyncKindIncremental {
		start, end, replacement := minimalEdit(old, doc.text, c.Mapper())
		change = protocol.NewTextDocumentContentChangeEventTextDocumentContentChangePartial(protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: start, End: end}, Text: replacement,
		})
	}
	return protocol.DidChangeTextDocumentNotification.Notify(ctx, c.conn, protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{URI: uri, Version: doc.version},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{change},
	})
}

// Save tells the server the open document at path was saved (didSave, with
// the text if the server asked for it), for servers that act on saves, such
// as gopls with diagnosticsTrigger "Save". Servers that did not ask for
// saves are sent nothing. The document must be open.
func (c *Client) Save(ctx context.Context, path string) error {
	uri, err := protocol.FileURI(path)
	if err != nil {
		return err
	}
	unlock, err := c.docLocks.lock(ctx, uri)
	if err != nil {
		return fmt.Errorf("client: %s: save %s: %w", c.cfg.Name, uri, err)
	}
	defer unlock()
	return c.save(ctx, uri)
}

// save sends didSave for the open document uri if the server asked for
// saves. The caller holds uri's document lock.
func (c *Client) save(ctx context.Context, uri protocol.DocumentURI) error {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	doc, open := c.docs.get(uri)
	if !open {
		return fmt.Errorf("client: %s: save %s: document not open", c.cfg.Name, uri)
	}
	text := doc.text
	if !c.Supports(protocol.DidSaveTextDocumentNotification.Method(), uri, doc.languageID) {
		return nil
	}
	caps := c.ServerCapabilities()
	params := protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}
	if includeText(&caps) {
		params.Text = &text
	}
	if !c.docs.markSaved(uri) {
		// The same text saved again tells the server nothing new.
		c.inputChanged()
	}
	if err := protocol.DidSaveTextDocumentNotification.Notify(ctx, c.conn, params); err != nil {
		return fmt.Errorf("client: %s: save %s: %w", c.cfg.Name, uri, err)
	}
	c.pulls.kickWorkspace()
	return nil
}

// includeText reports whether the server wants the text with didSave.
func includeText(caps *protocol.ServerCapabilities) bool {
	o, ok := caps.TextDocumentSync.AsTextDocumentSyncOptions()
	if !ok {
		return false
	}
	so, ok := o.Save.AsSaveOptions()
	return ok && so.IncludeText != nil && *so.IncludeText
}

// CloseDocument closes the server's copy of the file (didClose). Its
// diagnostics stay until the server says something new about the file;
// they no longer count as an answer for any version.
func (c *Client) CloseDocument(ctx context.Context, path string) error {
	return c.closeDocument(ctx, path, false)
}

// ForgetDocument closes the server's copy of the file, if open, and drops
// its diagnostics: for a file that is gone.
func (c *Client) ForgetDocument(ctx context.Context, path string) error {
	return c.closeDocument(ctx, path, true)
}

func (c *Client) closeDocument(ctx context.Context, path string, forget bool) error {
	uri, err := protocol.FileURI(path)
	if err != nil {
		return err
	}
	unlock, err := c.docLocks.lock(ctx, uri)
	if err != nil {
		return fmt.Errorf("client: %s: close %s: %w", c.cfg.Name, uri, err)
	}
	defer unlock()
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	open := c.docs.remove(uri)
	c.inputChanged()
	if forget {
		c.diags.forget(uri)
	} else {
		c.diags.closed(uri)
	}
	c.changes.wake()
	if !open {
		return nil
	}
	return protocol.DidCloseTextDocumentNotification.Notify(ctx, c.conn, protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}})
}

// syncKind is how the server wants document changes.
func syncKind(caps *protocol.ServerCapabilities) protocol.TextDocumentSyncKind {
	if k, ok := caps.TextDocumentSync.AsTextDocumentSyncKind(); ok {
		return k
	}
	if o, ok := caps.TextDocumentSync.AsTextDocumentSyncOptions(); ok && o.Change != nil {
		return *o.Change
	}
	return protocol.TextDocumentSyncKindNone
}

// minimalEdit returns the one edit that turns old into new: the range of old
// to replace (columns in the server's encoding) and its replacement, found
// by trimming the common prefix and suffix.
func minimalEdit(old, new string, m Mapper) (start, end protocol.Position, text string) {
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	for p > 0 && p < len(old) && !utf8.RuneStart(old[p]) {
		p--
	}
	s := 0
	for s < len(old)-p && s < len(new)-p && old[len(old)-1-s] == new[len(new)-1-s] {
		s++
	}
	for s > 0 && !utf8.RuneStart(old[len(old)-s]) {
		s--
	}
	return m.Position(old, p), m.Position(old, len(old)-s), new[p : len(new)-s]
}

// DocumentText returns the text the server has for an open document.
func (c *Client) DocumentText(uri protocol.DocumentURI) (string, bool) { return c.docs.text(uri) }

// DocumentVersion returns the text and version the server has for an open
// document: a server's versioned edit applies to that text only.
func (c *Client) DocumentVersion(uri protocol.DocumentURI) (string, int32, bool) {
	d, ok := c.docs.get(uri)
	return d.text, d.version, ok
}

// held returns how many documents are held by a check or a close.
func (l *docLocks) held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.locks)
}

// InFlight returns how many things the client is doing with the server
// now: requests awaiting their answers and documents held by checks
// waiting for their findings. Zero is a moment the server can be stopped
// without failing anyone.
func (c *Client) InFlight() int { return c.conn.Pending() + c.docLocks.held() }
