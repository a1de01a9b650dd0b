package client

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/protocol"
)

// fileDiagnostics is what the server said about one file, by push and by pull.
type fileDiagnostics struct {
	push        []protocol.Diagnostic
	pushVersion *int32    // the version the last push named, if it named one
	pushEpoch   uint64    // the change epoch when the last push arrived
	pushAt      time.Time // when it arrived

	pull         []protocol.Diagnostic
	pulled       bool
	pullVersion  int32
	pullResultID string
}

// current is what the file's diagnostics are now: the pulled ones if the
// server answered a pull, else the pushed ones.
func (f *fileDiagnostics) current() []protocol.Diagnostic {
	if f.pulled {
		return f.pull
	}
	return f.push
}

// diagStore is the server's diagnostics by file, under its own lock.
type diagStore struct {
	mu    sync.Mutex
	files map[protocol.DocumentURI]*fileDiagnostics
}

func newDiagStore() *diagStore {
	return &diagStore{files: map[protocol.DocumentURI]*fileDiagnostics{}}
}

func (s *diagStore) fileLocked(uri protocol.DocumentURI) *fileDiagnostics {
	f := s.files[uri]
	if f == nil {
		f = &fileDiagnostics{}
		s.files[uri] = f
	}
	return f
}

// get returns a copy of a file's state.
func (s *diagStore) get(uri protocol.DocumentURI) (fileDiagnostics, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[uri]
	if !ok {
		return fileDiagnostics{}, false
	}
	return *f, true
}

// publish stores pushed diagnostics, tagged with the change epoch.
func (s *diagStore) publish(p *protocol.PublishDiagnosticsParams, epoch uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.fileLocked(p.URI)
	f.push, f.pushVersion, f.pushEpoch, f.pushAt = p.Diagnostics, p.Version, epoch, time.Now()
}

// storePull stores a pull result for uri computed at version: items (nil
// when the server said unchanged: the stored ones stand) and the result id
// for the next pull. A result for an older version than the stored one is
// dropped.
func (s *diagStore) storePull(uri protocol.DocumentURI, version int32, items *[]protocol.Diagnostic, resultID *string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.fileLocked(uri)
	if f.pulled && f.pullVersion > version {
		return
	}
	if items != nil {
		f.pull = *items
	}
	f.pullResultID = ""
	if resultID != nil {
		f.pullResultID = *resultID
	}
	f.pulled, f.pullVersion = true, version
}

// resultID returns the result id of uri's last pull, or "".
func (s *diagStore) resultID(uri protocol.DocumentURI) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.files[uri]; ok {
		return f.pullResultID
	}
	return ""
}

// resultIDs returns every file's last pull result id.
func (s *diagStore) resultIDs() []protocol.PreviousResultID {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []protocol.PreviousResultID{}
	for _, uri := range slices.Sorted(maps.Keys(s.files)) {
		if id := s.files[uri].pullResultID; id != "" {
			out = append(out, protocol.PreviousResultID{URI: uri, Value: id})
		}
	}
	return out
}

// forget drops a file's diagnostics.
func (s *diagStore) forget(uri protocol.DocumentURI) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.files, uri)
}

// all returns every file's current diagnostics, files with none left out.
func (s *diagStore) all() map[protocol.DocumentURI][]protocol.Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[protocol.DocumentURI][]protocol.Diagnostic{}
	for uri, f := range s.files {
		if items := f.current(); len(items) > 0 {
			out[uri] = slices.Clone(items)
		}
	}
	return out
}

// quietWindow is how long a server that publishes without versions must stay
// quiet after its first push following a change before that file counts as
// settled.
const quietWindow = 200 * time.Millisecond

// Diagnostics returns the server's current diagnostics for uri: the pulled
// ones if the server answers pulls, else the pushed ones.
func (c *Client) Diagnostics(uri protocol.DocumentURI) []protocol.Diagnostic {
	f, _ := c.diags.get(uri)
	return slices.Clone(f.current())
}

// AllDiagnostics returns the current diagnostics of every file that has
// some, open or not (servers report on files they read from disk too).
func (c *Client) AllDiagnostics() map[protocol.DocumentURI][]protocol.Diagnostic {
	return c.diags.all()
}

// Settle says how a wait for diagnostics ended.
type Settle int

// The ends of WaitSettled.
const (
	Settled    Settle = iota // the diagnostics are final for the version
	TimedOut                 // the context ended first
	ServerGone               // the server exited
)

// String names the end of a wait.
func (s Settle) String() string {
	switch s {
	case Settled:
		return "settled"
	case TimedOut:
		return "timed out"
	case ServerGone:
		return "server gone"
	}
	return "Settle(" + strconv.Itoa(int(s)) + ")"
}

// WaitSettled waits until the diagnostics of uri are final for version: a
// pull result for it, a push naming it, or — for servers that push without
// versions — the first push after the change followed by a quiet window
// (cut short by the deadline); never while the server reports work-done
// progress still running.
func (c *Client) WaitSettled(ctx context.Context, uri protocol.DocumentURI, version int32) Settle {
	for {
		changed := c.changes.wait()
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
	if c.progress.busy() {
		return false, 0
	}
	doc, open := c.docs.get(uri)
	f, known := c.diags.get(uri)
	if !open || !known {
		return false, 0
	}
	if c.regs.pullProvider().ok {
		return f.pulled && f.pullVersion >= version, 0
	}
	if f.pushVersion != nil {
		return *f.pushVersion >= version, 0
	}
	if f.pushEpoch <= doc.changeEpoch {
		return false, 0 // no push since the change
	}
	if left := quietWindow - time.Since(f.pushAt); left > 0 {
		return false, left
	}
	return true, 0
}

// pullProvider is what the server said about pull diagnostics: whether it
// answers them at all, its identifier, and whether it answers
// workspace/diagnostic.
type pullProvider struct {
	ok         bool
	identifier *string
	workspace  bool
}

// readPullProvider reads the server's diagnostic provider, static or by
// dynamic registration (a registration offering workspace diagnostics wins),
// from caps and regs.
func readPullProvider(caps *protocol.ServerCapabilities, regs map[string]protocol.Registration) pullProvider {
	var p pullProvider
	if o, ok := caps.DiagnosticProvider.AsDiagnosticOptions(); ok {
		p = pullProvider{ok: true, identifier: o.Identifier, workspace: o.WorkspaceDiagnostics}
	} else if o, ok := caps.DiagnosticProvider.AsDiagnosticRegistrationOptions(); ok {
		p = pullProvider{ok: true, identifier: o.Identifier, workspace: o.WorkspaceDiagnostics}
	}
	for _, id := range slices.Sorted(maps.Keys(regs)) {
		r := regs[id]
		if r.Method != protocol.DocumentDiagnosticRequest.Method() || p.workspace {
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

// publish stores pushed diagnostics.
func (c *Client) publish(p *protocol.PublishDiagnosticsParams) {
	c.diags.publish(p, c.changes.advance())
	c.changes.wake()
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

// Epoch returns the client's change epoch: it advances on every document
// change and every diagnostics update, so equal epochs mean nothing changed
// between.
func (c *Client) Epoch() uint64 { return c.changes.current() }
