package client

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/lspkit/lspkit/protocol"
)

// document is an open text document as the server knows it.
type document struct {
	languageID  string
	version     int32
	sent        int32 // the last version whose didOpen/didChange is on the wire
	text        string
	changeEpoch uint64 // the epoch at the last didOpen/didChange
}

// Sync makes the server's copy of the file at path hold text: didOpen the
// first time, then didChange with a new version (one minimal edit for
// servers with incremental sync, the whole text otherwise). The text comes
// from the caller; the file on disk is not read. It returns the document's
// URI and version; unchanged text sends nothing and keeps the version.
func (c *Client) Sync(ctx context.Context, path, languageID, text string) (protocol.DocumentURI, int32, error) {
	uri, err := protocol.FileURI(path)
	if err != nil {
		return "", 0, err
	}
	// Changes go out one at a time, in version order.
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	c.mu.Lock()
	doc, open := c.docs[uri]
	if open && doc.text == text {
		v := doc.version
		c.mu.Unlock()
		return uri, v, nil
	}
	var method string
	var params any
	if !open {
		doc = &document{languageID: languageID, version: 1, text: text}
		c.docs[uri] = doc
		method = protocol.MethodTextDocumentDidOpen
		params = protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: protocol.LanguageKind(languageID), Version: 1, Text: text}}
	} else {
		change := protocol.NewTextDocumentContentChangeEventTextDocumentContentChangeWholeDocument(protocol.TextDocumentContentChangeWholeDocument{Text: text})
		if c.syncKindLocked() == protocol.TextDocumentSyncKindIncremental {
			start, end, replacement := minimalEdit(doc.text, text, c.encodingLocked())
			change = protocol.NewTextDocumentContentChangeEventTextDocumentContentChangePartial(protocol.TextDocumentContentChangePartial{
				Range: protocol.Range{Start: start, End: end}, Text: replacement,
			})
		}
		doc.version++
		doc.text = text
		method = protocol.MethodTextDocumentDidChange
		params = protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{URI: uri, Version: doc.version},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{change},
		}
	}
	c.epoch++
	doc.changeEpoch = c.epoch
	version := doc.version
	none := open && c.syncKindLocked() == protocol.TextDocumentSyncKindNone
	c.changedLocked()
	c.mu.Unlock()
	if !none {
		if err := c.conn.Notify(ctx, method, params); err != nil {
			return uri, version, fmt.Errorf("client: %s: %s: %w", c.cfg.Name, method, err)
		}
	}
	// Only now may a pull be tagged with this version: a pull sent before
	// the change would be answered for the old text.
	c.mu.Lock()
	doc.sent = version
	c.kickWorkspaceLocked()
	c.mu.Unlock()
	c.pull(uri, version)
	return uri, version, nil
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
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	c.mu.Lock()
	doc, open := c.docs[uri]
	var text string
	if open {
		text = doc.text
	}
	want, includeText := c.saveOptionsLocked()
	c.mu.Unlock()
	if !open {
		return fmt.Errorf("client: %s: save %s: document not open", c.cfg.Name, path)
	}
	if !want {
		return nil
	}
	params := protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}
	if includeText {
		params.Text = &text
	}
	if err := c.conn.Notify(ctx, protocol.MethodTextDocumentDidSave, params); err != nil {
		return fmt.Errorf("client: %s: %s: %w", c.cfg.Name, protocol.MethodTextDocumentDidSave, err)
	}
	c.mu.Lock()
	c.kickWorkspaceLocked()
	c.mu.Unlock()
	return nil
}

// saveOptionsLocked reports whether the server wants didSave, and with the
// text.
func (c *Client) saveOptionsLocked() (want, includeText bool) {
	o, ok := c.capabilities.TextDocumentSync.AsTextDocumentSyncOptions()
	if !ok {
		return false, false
	}
	if b, ok := o.Save.AsBoolean(); ok {
		return b, false
	}
	if so, ok := o.Save.AsSaveOptions(); ok {
		return true, so.IncludeText != nil && *so.IncludeText
	}
	return false, false
}

// CloseDocument closes the server's copy of the file and forgets its
// diagnostics.
func (c *Client) CloseDocument(ctx context.Context, path string) error {
	uri, err := protocol.FileURI(path)
	if err != nil {
		return err
	}
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	c.mu.Lock()
	_, open := c.docs[uri]
	delete(c.docs, uri)
	delete(c.diags, uri)
	c.changedLocked()
	c.mu.Unlock()
	if !open {
		return nil
	}
	return c.conn.Notify(ctx, protocol.MethodTextDocumentDidClose, protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}})
}

// syncKindLocked is how the server wants document changes.
func (c *Client) syncKindLocked() protocol.TextDocumentSyncKind {
	sync := c.capabilities.TextDocumentSync
	if k, ok := sync.AsTextDocumentSyncKind(); ok {
		return k
	}
	if o, ok := sync.AsTextDocumentSyncOptions(); ok && o.Change != nil {
		return *o.Change
	}
	return protocol.TextDocumentSyncKindNone
}

// minimalEdit returns the one edit that turns old into new: the range of old
// to replace (columns counted in enc, the server's encoding) and its
// replacement, found by trimming the common prefix and suffix.
func minimalEdit(old, new string, enc protocol.PositionEncodingKind) (start, end protocol.Position, text string) {
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
	return position(old, p, enc), position(old, len(old)-s, enc), new[p : len(new)-s]
}

// DocumentText returns the text the server has for an open document.
func (c *Client) DocumentText(uri protocol.DocumentURI) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[uri]
	if !ok {
		return "", false
	}
	return d.text, true
}
