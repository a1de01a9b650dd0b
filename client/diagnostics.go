package client

import (
	"context"
	"time"

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

// pullsLocked reports whether the server answers textDocument/diagnostic,
// statically or by dynamic registration.
func (c *Client) pullsLocked() bool {
	if !c.capabilities.DiagnosticProvider.IsZero() {
		return true
	}
	for _, r := range c.registrations {
		if r.Method == protocol.MethodTextDocumentDiagnostic {
			return true
		}
	}
	return false
}

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
// replaces a newer one's).
func (c *Client) pull(uri protocol.DocumentURI, version int32) {
	c.mu.Lock()
	if !c.pullsLocked() || c.stopping {
		c.mu.Unlock()
		return
	}
	var prev *string
	if d := c.diags[uri]; d != nil && d.pullResultID != "" {
		prev = protocol.Ptr(d.pullResultID)
	}
	c.pulls.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.pulls.Done()
		var report protocol.DocumentDiagnosticReport
		params := protocol.DocumentDiagnosticParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, PreviousResultID: prev}
		if err := c.conn.Call(c.life, protocol.MethodTextDocumentDiagnostic, params, &report); err != nil {
			c.log.Warn("diagnostic pull failed", "uri", uri, "err", err)
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		d := c.diags[uri]
		if d == nil {
			d = &fileDiagnostics{}
			c.diags[uri] = d
		}
		if d.pulled && d.pullVersion > version {
			return
		}
		if full, ok := report.AsRelatedFullDocumentDiagnosticReport(); ok {
			d.pull = full.Items
			d.pullResultID = ""
			if full.ResultID != nil {
				d.pullResultID = *full.ResultID
			}
		} else if unchanged, ok := report.AsRelatedUnchangedDocumentDiagnosticReport(); ok {
			d.pullResultID = unchanged.ResultID // the items stand
		}
		d.pulled, d.pullVersion = true, version
		c.epoch++
		c.changedLocked()
	}()
}
