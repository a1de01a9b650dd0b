package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"golang.org/x/sync/singleflight"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// puller makes the client's diagnostic pulls: textDocument/diagnostic per
// document, one in flight per document (singleflight), and a standing
// workspace/diagnostic request for servers that offer it. Its goroutines end
// with close.
type puller struct {
	c       *Client
	life    context.Context
	endLife context.CancelFunc
	docs    singleflight.Group

	mu      sync.Mutex
	closed  bool
	running sync.WaitGroup
	ws      bool          // the workspace loop is running
	wsToken string        // the partial-result token of its open request
	wsKick  chan struct{} // asks it for another pull
}

func newPuller(c *Client) *puller {
	p := &puller{c: c, wsKick: make(chan struct{}, 1)}
	p.life, p.endLife = context.WithCancel(context.Background())
	return p
}

// goRun runs fn in a goroutine close waits for, unless closed.
func (p *puller) goRun(fn func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.running.Add(1)
	go func() {
		defer p.running.Done()
		fn()
	}()
	return true
}

// close cancels the pulls in flight and waits for them.
func (p *puller) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.endLife()
	p.running.Wait()
}

// pull makes sure the server's pull diagnostics for uri cover version and
// were answered after change epoch after, in the background: concurrent
// needs share the pull in flight, and a need the pull in flight does not
// meet (a newer version; a pull that began before after) pulls again when
// it is answered, with the result id it brought. An older version's answer
// never replaces a newer one's.
func (p *puller) pull(uri protocol.DocumentURI, version int32, after uint64) {
	if !p.c.regs.pullProvider().ok {
		return
	}
	p.goRun(func() {
		retries, since := 0, time.Time{}
		for p.life.Err() == nil {
			if f, ok := p.c.diags.get(uri); ok && f.pulled && f.pullVersion >= version && f.pullEpoch > after {
				return
			}
			pulled, err, _ := p.docs.Do(string(uri), func() (any, error) { return p.pullOnce(uri) })
			if since.IsZero() {
				since = time.Now()
			}
			if err != nil && retrigger(err) && time.Since(since) < retriggerFor {
				// The server asked for the pull again (busy loading, or
				// the content moved on): after a pause that grows, never a
				// spin, for as long as a loaded machine may keep it busy.
				retries++
				t := time.NewTimer(min(time.Duration(retries)*20*time.Millisecond, 500*time.Millisecond))
				select {
				case <-t.C:
				case <-p.life.Done():
					t.Stop()
				}
				continue
			}
			if err != nil || pulled.(int32) == 0 {
				return // failed (and logged), or the document is no longer open
			}
		}
	})
}

// retriggerFor bounds how long the pulls of one need are made again while
// the server asks for them again: time, not a count, because a server
// loading its project on a loaded machine (TypeScript 7, under the test
// suite's two busy cores) cancels pulls for as long as the load takes,
// and 50 pulls with their pauses were spent in about 20 s.
const retriggerFor = 2 * time.Minute

// retrigger reports whether a pull's error asks for the pull again:
// ServerCancelled unless its data says retriggerRequest false, and
// ContentModified (LSP 3.17, as editors do).
func retrigger(err error) bool {
	e, ok := errors.AsType[*transport.Error](err)
	if !ok {
		return false
	}
	switch protocol.LSPErrorCodes(e.Code) {
	case protocol.LSPErrorCodesContentModified:
		return true
	case protocol.LSPErrorCodesServerCancelled:
		var data struct {
			RetriggerRequest *bool `json:"retriggerRequest"`
		}
		if len(e.Data) > 0 && json.Unmarshal(e.Data, &data) == nil && data.RetriggerRequest != nil {
			return *data.RetriggerRequest
		}
		return true
	}
	return false
}

// pullOnce pulls uri's diagnostics for the version last sent and stores
// them, with those of the related documents the answer names; it returns
// the version it pulled (0 when the document is not open).
func (p *puller) pullOnce(uri protocol.DocumentURI) (int32, error) {
	c := p.c
	versions := c.docs.sentVersions() // for related documents
	version := versions[uri]
	if version == 0 {
		return 0, nil
	}
	params := protocol.DocumentDiagnosticParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Identifier: c.regs.pullProvider().identifier}
	if id := c.diags.resultID(uri); id != "" {
		params.PreviousResultID = &id
	}
	epoch := c.changes.advance() // the answer reflects what the server knew from now on
	report, err := protocol.DocumentDiagnosticRequest.Call(p.life, c.conn, params)
	if err != nil {
		switch {
		case p.life.Err() != nil:
		case retrigger(err):
			c.log.Debug("diagnostic pull: the server asks for it again", "uri", uri, "err", err)
		default:
			c.log.Warn("diagnostic pull failed", "uri", uri, "err", err)
		}
		return 0, err
	}
	// What the server sent before its answer (publishes of a server that
	// pushes as well) is handled before the answer counts.
	if err := c.conn.Drain(p.life); err != nil {
		c.log.Debug("diagnostic pull: drain", "uri", uri, "err", err)
	}
	var related map[protocol.DocumentURI]protocol.FullDocumentDiagnosticReportOrUnchangedDocumentDiagnosticReport
	if full, ok := report.AsRelatedFullDocumentDiagnosticReport(); ok {
		c.diags.storePull(uri, version, &full.Items, full.ResultID, epoch)
		related = full.RelatedDocuments
	} else if unchanged, ok := report.AsRelatedUnchangedDocumentDiagnosticReport(); ok {
		c.diags.storePull(uri, version, nil, &unchanged.ResultID, epoch)
		related = unchanged.RelatedDocuments
	}
	for ruri, r := range related {
		ruri = ruri.Canonical()
		if full, ok := r.AsFullDocumentDiagnosticReport(); ok {
			c.diags.storePull(ruri, versions[ruri], &full.Items, full.ResultID, epoch)
		} else if unchanged, ok := r.AsUnchangedDocumentDiagnosticReport(); ok {
			c.diags.storePull(ruri, versions[ruri], nil, &unchanged.ResultID, epoch)
		}
	}
	c.changes.wake()
	return version, nil
}

// startWorkspace starts the workspace diagnostics loop once the server
// offers workspace/diagnostic.
func (p *puller) startWorkspace() {
	if !p.c.regs.pullProvider().workspace {
		return
	}
	p.mu.Lock()
	if p.ws {
		p.mu.Unlock()
		return
	}
	p.ws = true
	p.mu.Unlock()
	if !p.goRun(p.pullWorkspace) {
		p.mu.Lock()
		p.ws = false
		p.mu.Unlock()
	}
}

// kickWorkspace asks the workspace loop for a new pull once its current
// one is answered: something changed that the server may not have reported
// on yet.
func (p *puller) kickWorkspace() {
	select {
	case p.wsKick <- struct{}{}:
	default:
	}
}

// pullWorkspace keeps one workspace/diagnostic request open at a time, the
// way editors do: servers such as pyright hold it and stream reports as
// partial results ($/progress on its partial-result token) while they
// analyse; others answer at once. Each answer is merged into the store; the
// next request goes out when something changed (a document edit, a watched
// file, a refresh), never in a spin.
func (p *puller) pullWorkspace() {
	c := p.c
	defer func() {
		p.mu.Lock()
		p.ws = false
		p.mu.Unlock()
	}()
	for round := 1; ; round++ {
		provider := c.regs.pullProvider()
		if !provider.workspace || p.life.Err() != nil {
			return
		}
		params := protocol.WorkspaceDiagnosticParams{
			Identifier:         provider.identifier,
			WorkDoneToken:      protocol.NewProgressTokenString(fmt.Sprintf("lspkit/workspace-diagnostic/%d/work", round)),
			PartialResultToken: protocol.NewProgressTokenString(fmt.Sprintf("lspkit/workspace-diagnostic/%d", round)),
			PreviousResultIds:  c.diags.resultIDs(),
		}
		p.mu.Lock()
		p.wsToken = tokenKey(params.PartialResultToken)
		p.mu.Unlock()
		report, err := protocol.WorkspaceDiagnosticRequest.Call(p.life, c.conn, params)
		p.mu.Lock()
		p.wsToken = ""
		p.mu.Unlock()
		c.progress.end(tokenKey(params.WorkDoneToken)) // ended with its request
		if err == nil {
			p.merge(report.Items)
		} else if p.life.Err() == nil {
			c.log.Warn("workspace diagnostics pull failed", "err", err)
		}
		select {
		case <-p.wsKick:
		case <-p.life.Done():
			return
		}
	}
}

// partial merges a partial result of the open workspace pull, if token is
// its partial-result token, and reports whether it was.
func (p *puller) partial(token string, value []byte) bool {
	p.mu.Lock()
	mine := token != "" && token == p.wsToken
	p.mu.Unlock()
	if !mine {
		return false
	}
	partial, err := decodeWorkspacePartial(value)
	if err != nil {
		p.c.log.Warn("bad workspace diagnostics partial result", "err", err)
		return true
	}
	p.merge(partial.Items)
	return true
}

// merge stores workspace diagnostic reports.
func (p *puller) merge(items []protocol.WorkspaceDocumentDiagnosticReport) {
	if len(items) == 0 {
		return
	}
	c := p.c
	versions := c.docs.sentVersions()
	epoch := c.changes.advance()
	for _, item := range items {
		if full, ok := item.AsWorkspaceFullDocumentDiagnosticReport(); ok {
			uri := full.URI.Canonical()
			c.diags.storePull(uri, reportVersion(full.Version, versions[uri]), &full.Items, full.ResultID, epoch)
		} else if unchanged, ok := item.AsWorkspaceUnchangedDocumentDiagnosticReport(); ok {
			uri := unchanged.URI.Canonical()
			c.diags.storePull(uri, reportVersion(unchanged.Version, versions[uri]), nil, &unchanged.ResultID, epoch)
		}
	}
	c.changes.wake()
}

// reportVersion is the version a workspace report was computed for: the one
// it names, else none (0) — a file the server read from disk, which says
// nothing about an open document's newer text.
func reportVersion(v protocol.Nullable[int32], sent int32) int32 {
	if n, ok := v.Get(); ok && n <= sent {
		return n
	}
	return 0
}
