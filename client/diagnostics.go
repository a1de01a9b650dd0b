package client

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/protocol"
)

// fileDiagnostics is what the server said about one file, by push and by pull.
type fileDiagnostics struct {
	push        []protocol.Diagnostic
	pushVersion *int32    // the version the last push named, if it named one
	pushEpoch   uint64    // the epoch when the last push arrived
	pushAt      time.Time // when it arrived

	pull         []protocol.Diagnostic
	pulled       bool
	pullVersion  int32
	pullResultID string
	pulling      bool  // a pull is in flight
	again        int32 // the version to pull when it is answered, or 0
}

// quietWindow is how long a server that publishes without versions must stay
// quiet after its first push following a change before that file counts as
// settled.
const quietWindow = 200 * time.Millisecond

// Diagnostics returns the server's current diagnostics for uri: the pulled
// ones if the server answers pulls, else the pushed ones.
func (c *Client) Diagnostics(uri protocol.DocumentURI) []protocol.Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.diags[uri]
	if d == nil {
		return nil
	}
	if d.pulled {
		return append([]protocol.Diagnostic(nil), d.pull...)
	}
	return append([]protocol.Diagnostic(nil), d.push...)
}

// Settle says how a wait for diagnostics ended.
type Settle int

// The ends of WaitSettled.
const (
	Settled    Settle = iota // the diagnostics are final for the version
	TimedOut                 // the context ended first
	ServerGone               // the server exited
)

func (s Settle) String() string { return [...]string{"settled", "timed out", "server gone"}[s] }

// WaitSettled waits until the diagnostics of uri are final for version: a
// pull result for it, a push naming it, or — for servers that push without
// versions — the first push after the change followed by a quiet window
// (cut short by the deadline); never while the server reports work-done
// progress still running.
func (c *Client) WaitSettled(ctx context.Context, uri protocol.DocumentURI, version int32) Settle {
	for {
		changed := c.Changed()
		settled, quietLeft := c.settled(uri, version)
		if settled {
			return Settled
		}
		var quiet <-chan time.Time
		var timer *time.Timer
		if quietLeft > 0 {
			timer = time.NewTimer(quietLeft)
			quiet = timer.C
		}
		end := Settle(-1)
		select {
		case <-changed:
		case <-quiet:
		case <-c.proc.Done():
			end = ServerGone
		case <-ctx.Done():
			end = TimedOut
			if quietLeft > 0 {
				end = Settled // a push after the change arrived; the deadline cut the quiet window
			}
		}
		if timer != nil {
			timer.Stop()
		}
		if end >= 0 {
			return end
		}
	}
}

// settled reports whether uri's diagnostics are final for version, or how
// long the quiet window still has to run.
func (c *Client) settled(uri protocol.DocumentURI, version int32) (bool, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busyLocked() {
		return false, 0
	}
	d, doc := c.diags[uri], c.docs[uri]
	if d == nil || doc == nil {
		return false, 0
	}
	if c.pullsLocked() {
		return d.pulled && d.pullVersion >= version, 0
	}
	if d.pushVersion != nil {
		return *d.pushVersion >= version, 0
	}
	if d.pushEpoch <= doc.changeEpoch {
		return false, 0 // no push since the change
	}
	if left := quietWindow - time.Since(d.pushAt); left > 0 {
		return false, left
	}
	return true, 0
}

func (c *Client) busyLocked() bool {
	for _, running := range c.progress {
		if running {
			return true
		}
	}
	return false
}

// pullProvider is what the server said about pull diagnostics: whether it
// answers them at all, its identifier, and whether it answers
// workspace/diagnostic.
type pullProvider struct {
	ok         bool
	identifier *string
	workspace  bool
}

// pullProviderLocked returns the server's diagnostic provider, as read when
// the capabilities or registrations last changed.
func (c *Client) pullProviderLocked() pullProvider { return c.provider }

// readPullProvider reads the server's diagnostic provider, static or by
// dynamic registration (a registration offering workspace diagnostics wins),
// from caps and regs.
func readPullProvider(caps protocol.ServerCapabilities, regs map[string]protocol.Registration) pullProvider {
	var p pullProvider
	if o, ok := caps.DiagnosticProvider.AsDiagnosticOptions(); ok {
		p = pullProvider{ok: true, identifier: o.Identifier, workspace: o.WorkspaceDiagnostics}
	} else if o, ok := caps.DiagnosticProvider.AsDiagnosticRegistrationOptions(); ok {
		p = pullProvider{ok: true, identifier: o.Identifier, workspace: o.WorkspaceDiagnostics}
	}
	for _, id := range slices.Sorted(maps.Keys(regs)) {
		r := regs[id]
		if r.Method != protocol.MethodTextDocumentDiagnostic || p.workspace {
			continue
		}
		var o struct {
			Identifier           *string `json:"identifier"`
			WorkspaceDiagnostics bool    `json:"workspaceDiagnostics"`
		}
		json.Unmarshal(r.RegisterOptions, &o) // options are optional; a bad one still registers pulls
		p = pullProvider{ok: true, identifier: o.Identifier, workspace: o.WorkspaceDiagnostics}
	}
	return p
}

// pullsLocked reports whether the server answers textDocument/diagnostic,
// statically or by dynamic registration.
func (c *Client) pullsLocked() bool { return c.pullProviderLocked().ok }

// publish stores pushed diagnostics.
func (c *Client) publish(p *protocol.PublishDiagnosticsParams) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.diags[p.URI]
	if d == nil {
		d = &fileDiagnostics{}
		c.diags[p.URI] = d
	}
	c.epoch++
	d.push, d.pushVersion, d.pushEpoch, d.pushAt = p.Diagnostics, p.Version, c.epoch, time.Now()
	c.changedLocked()
}

// pull asks a pull-capable server for uri's diagnostics at version, in the
// background; the answer lands in the store (an older version's answer never
// replaces a newer one's), with those of the related documents it names.
// One pull per document is in flight at a time: a pull asked for meanwhile
// goes out when it is answered, with the result id it brought.
func (c *Client) pull(uri protocol.DocumentURI, version int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	provider := c.pullProviderLocked()
	if !provider.ok || c.stopping {
		return
	}
	d := c.diags[uri]
	if d == nil {
		d = &fileDiagnostics{}
		c.diags[uri] = d
	}
	if d.pulling {
		d.again = max(d.again, version)
		return
	}
	d.pulling = true
	c.pulls.Add(1)
	go func() {
		defer c.pulls.Done()
		for version > 0 {
			version = c.pullOnce(uri, version, provider.identifier)
		}
	}()
}

// pullOnce makes one pull and stores its answer; it returns the version to
// pull next (asked for while it ran), or 0.
func (c *Client) pullOnce(uri protocol.DocumentURI, version int32, identifier *string) int32 {
	c.mu.Lock()
	d := c.diags[uri]
	var prev *string
	if d.pullResultID != "" {
		prev = protocol.Ptr(d.pullResultID)
	}
	versions := c.sentVersionsLocked() // for related documents
	c.mu.Unlock()
	var report protocol.DocumentDiagnosticReport
	params := protocol.DocumentDiagnosticParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Identifier: identifier, PreviousResultID: prev}
	err := c.conn.Call(c.life, protocol.MethodTextDocumentDiagnostic, params, &report)
	c.mu.Lock()
	defer c.mu.Unlock()
	next := d.again
	d.again = 0
	if next == 0 || c.stopping {
		d.pulling = false
		next = 0
	}
	if err != nil {
		c.log.Warn("diagnostic pull failed", "uri", uri, "err", err)
		return next
	}
	var related map[protocol.DocumentURI]protocol.FullDocumentDiagnosticReportOrUnchangedDocumentDiagnosticReport
	if full, ok := report.AsRelatedFullDocumentDiagnosticReport(); ok {
		c.storePullLocked(uri, version, &full.Items, full.ResultID)
		related = full.RelatedDocuments
	} else if unchanged, ok := report.AsRelatedUnchangedDocumentDiagnosticReport(); ok {
		c.storePullLocked(uri, version, nil, &unchanged.ResultID)
		related = unchanged.RelatedDocuments
	}
	for ruri, r := range related {
		if full, ok := r.AsFullDocumentDiagnosticReport(); ok {
			c.storePullLocked(ruri, versions[ruri], &full.Items, full.ResultID)
		} else if unchanged, ok := r.AsUnchangedDocumentDiagnosticReport(); ok {
			c.storePullLocked(ruri, versions[ruri], nil, &unchanged.ResultID)
		}
	}
	c.epoch++
	c.changedLocked()
	return next
}

// sentVersionsLocked returns the version of each open document the server
// has been sent.
func (c *Client) sentVersionsLocked() map[protocol.DocumentURI]int32 {
	out := make(map[protocol.DocumentURI]int32, len(c.docs))
	for uri, d := range c.docs {
		if d.sent > 0 {
			out[uri] = d.sent
		}
	}
	return out
}

// storePullLocked stores a pull result for uri computed at version: items
// (nil when the server said unchanged: the stored ones stand) and the result
// id for the next pull. A result for an older version than the stored one is
// dropped.
func (c *Client) storePullLocked(uri protocol.DocumentURI, version int32, items *[]protocol.Diagnostic, resultID *string) {
	d := c.diags[uri]
	if d == nil {
		d = &fileDiagnostics{}
		c.diags[uri] = d
	}
	if d.pulled && d.pullVersion > version {
		return
	}
	if items != nil {
		d.pull = *items
	}
	d.pullResultID = ""
	if resultID != nil {
		d.pullResultID = *resultID
	}
	d.pulled, d.pullVersion = true, version
}

// startWorkspacePullsLocked starts the workspace diagnostics loop once the
// server offers workspace/diagnostic.
func (c *Client) startWorkspacePullsLocked() {
	if c.wsRunning || c.stopping || !c.pullProviderLocked().workspace {
		return
	}
	c.wsRunning = true
	c.pulls.Add(1)
	go func() {
		defer c.pulls.Done()
		c.pullWorkspace()
	}()
}

// kickWorkspaceLocked asks the workspace loop for a new pull once its
// current one is answered: something changed that the server may not have
// reported on yet.
func (c *Client) kickWorkspaceLocked() {
	select {
	case c.wsKick <- struct{}{}:
	default:
	}
}

// pullWorkspace keeps one workspace/diagnostic request open at a time, the
// way editors do: servers such as pyright hold it and stream reports as
// partial results ($/progress on its partial-result token) while they
// analyse; others answer at once. Each answer is merged into the store; the
// next request goes out when something changed (a document edit, a watched
// file, a refresh), never in a spin.
func (c *Client) pullWorkspace() {
	for round := 1; ; round++ {
		c.mu.Lock()
		provider := c.pullProviderLocked()
		if !provider.workspace || c.stopping {
			c.wsRunning = false
			c.mu.Unlock()
			return
		}
		params := protocol.WorkspaceDiagnosticParams{
			Identifier:         provider.identifier,
			WorkDoneToken:      protocol.NewProgressTokenString(fmt.Sprintf("lspkit/workspace-diagnostic/%d/work", round)),
			PartialResultToken: protocol.NewProgressTokenString(fmt.Sprintf("lspkit/workspace-diagnostic/%d", round)),
			PreviousResultIds:  []protocol.PreviousResultID{},
		}
		for uri, d := range c.diags {
			if d.pullResultID != "" {
				params.PreviousResultIds = append(params.PreviousResultIds, protocol.PreviousResultID{URI: uri, Value: d.pullResultID})
			}
		}
		c.wsToken = tokenKey(params.PartialResultToken)
		c.mu.Unlock()

		var report protocol.WorkspaceDiagnosticReport
		err := c.conn.Call(c.life, protocol.MethodWorkspaceDiagnostic, params, &report)
		c.mu.Lock()
		c.wsToken = ""
		delete(c.progress, tokenKey(params.WorkDoneToken)) // ended with its request
		if err == nil {
			c.mergeWorkspaceLocked(report.Items)
		}
		c.mu.Unlock()
		if err != nil {
			if c.life.Err() != nil {
				return
			}
			c.log.Warn("workspace diagnostics pull failed", "err", err)
		}
		select {
		case <-c.wsKick:
		case <-c.life.Done():
			return
		}
	}
}

// workspacePartialLocked merges a partial result of the open workspace pull,
// if token is its partial-result token.
func (c *Client) workspacePartialLocked(token string, value []byte) bool {
	if token == "" || token != c.wsToken {
		return false
	}
	var partial protocol.WorkspaceDiagnosticReportPartialResult
	if err := json.Unmarshal(value, &partial); err != nil {
		c.log.Warn("bad workspace diagnostics partial result", "err", err)
		return true
	}
	c.mergeWorkspaceLocked(partial.Items)
	return true
}

// mergeWorkspaceLocked stores workspace diagnostic reports.
func (c *Client) mergeWorkspaceLocked(items []protocol.WorkspaceDocumentDiagnosticReport) {
	if len(items) == 0 {
		return
	}
	versions := c.sentVersionsLocked()
	for _, item := range items {
		if full, ok := item.AsWorkspaceFullDocumentDiagnosticReport(); ok {
			c.storePullLocked(full.URI, reportVersion(full.Version, versions[full.URI]), &full.Items, full.ResultID)
		} else if unchanged, ok := item.AsWorkspaceUnchangedDocumentDiagnosticReport(); ok {
			c.storePullLocked(unchanged.URI, reportVersion(unchanged.Version, versions[unchanged.URI]), nil, &unchanged.ResultID)
		}
	}
	c.epoch++
	c.changedLocked()
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

// MessageText returns a diagnostic's message as text: the string, or the
// value of markup content (LSP 3.18 allows either).
func MessageText(d protocol.Diagnostic) string {
	if s, ok := d.Message.AsString(); ok {
		return s
	}
	m, _ := d.Message.AsMarkupContent()
	return m.Value
}

// Epoch returns the store's epoch: it advances on every document change and
// every diagnostics update, so equal epochs mean nothing changed between.
func (c *Client) Epoch() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

// AllDiagnostics returns the current diagnostics of every file that has
// some, open or not (servers report on files they read from disk too).
func (c *Client) AllDiagnostics() map[protocol.DocumentURI][]protocol.Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[protocol.DocumentURI][]protocol.Diagnostic{}
	for uri, d := range c.diags {
		items := d.push
		if d.pulled {
			items = d.pull
		}
		if len(items) > 0 {
			out[uri] = append([]protocol.Diagnostic(nil), items...)
		}
	}
	return out
}
