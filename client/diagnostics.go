package client

import (
	"fmt"
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
	pullEpoch    uint64 // the change epoch when the last pull answer arrived

	settledEpoch uint64 // the change epoch when the server last said it was done with the file (a settle command returned)

	unreadable      string // why the last publish for the file could not be read, if it could not
	unreadableEpoch uint64 // the change epoch when it came

	known *knownAnswer // the last settled answer for the open document, while it stands
}

// stamp is when a file's findings last changed: any publish, pull answer
// or unreadable publish for it moves it.
type stamp struct{ push, pull, unreadable uint64 }

func (f *fileDiagnostics) stamp() stamp {
	return stamp{f.pushEpoch, f.pullEpoch, f.unreadableEpoch}
}

// knownAnswer is a settled answer for one version of an open document,
// and what it rests on: the server's inputs (Client.inputs) and the file's
// findings (stamp) as they were when it settled. While both are as they
// were, the server would answer the same again — nothing reached it that
// could change what it finds, and it said nothing new of the file — so
// the answer is given again without asking.
type knownAnswer struct {
	version int32
	inputs  uint64
	stamp   stamp
	saved   bool // the answer followed a didSave (servers that check on save)
}

// current is what the file's diagnostics are now: the last pull answer and
// the last publish, merged (both are the server's findings; neither
// replaces the other).
func (f *fileDiagnostics) current() []protocol.Diagnostic {
	return mergeDiagnostics(f.pull, f.push)
}

// diagStore is the server's diagnostics by file, under its own lock.
type diagStore struct {
	mu    sync.Mutex
	files map[protocol.DocumentURI]*fileDiagnostics
	// versioned is set once the server has named a version in a publish:
	// its publishes without one then answer for no version (see
	// Client.settledSince).
	versioned bool
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

// versionsPublishes reports whether the server has named a version in a
// publish.
func (s *diagStore) versionsPublishes() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.versioned
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

// publish stores pushed diagnostics, tagged with the change epoch; a
// versioned publish for an older version than the stored one is dropped.
func (s *diagStore) publish(p *protocol.PublishDiagnosticsParams, epoch uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.fileLocked(p.URI)
	s.versioned = s.versioned || p.Version != nil
	if p.Version != nil && f.pushVersion != nil && *p.Version < *f.pushVersion {
		// Findings for an older text that arrive after the newer text's
		// (an analysis that finished late) are out of date: dropped.
		return
	}
	f.push, f.pushVersion, f.pushEpoch, f.pushAt = p.Diagnostics, p.Version, epoch, time.Now()
}

// unreadablePublish records that a publish for uri came and could not be
// read, and why.
func (s *diagStore) unreadablePublish(uri protocol.DocumentURI, why string, epoch uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.fileLocked(uri)
	f.unreadable, f.unreadableEpoch = why, epoch
}

// storePull stores a pull result for uri computed at version: items (nil
// when the server said unchanged: the stored ones stand) and the result id
// for the next pull, tagged with the change epoch. A result for an older
// version than the stored one is dropped.
func (s *diagStore) storePull(uri protocol.DocumentURI, version int32, items *[]protocol.Diagnostic, resultID *string, epoch uint64) {
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
	f.pulled, f.pullVersion, f.pullEpoch = true, version, epoch
}

// stampOf returns uri's stamp.
func (s *diagStore) stampOf(uri protocol.DocumentURI) stamp {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.files[uri]; ok {
		return f.stamp()
	}
	return stamp{}
}

// know records a settled answer for uri, unless its findings changed since
// k.stamp was taken.
func (s *diagStore) know(uri protocol.DocumentURI, k knownAnswer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.fileLocked(uri)
	if f.stamp() == k.stamp {
		f.known = &k
	}
}

// stillKnown says whether uri's known answer for version stands: the
// server's inputs are still inputs and nothing new came for the file; a
// check that must follow a save takes an answer that did.
func (s *diagStore) stillKnown(uri protocol.DocumentURI, version int32, inputs uint64, saved bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[uri]
	if !ok || f.known == nil {
		return false
	}
	k := f.known
	return k.version == version && k.inputs == inputs && k.stamp == f.stamp() && (k.saved || !saved)
}

// markSettled records that the server said, at epoch, that everything it
// has to say about uri is in.
func (s *diagStore) markSettled(uri protocol.DocumentURI, epoch uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fileLocked(uri).settledEpoch = epoch
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

// closed keeps a closed document's diagnostics as what the server last
// said, but for no version (a reopened document starts its versions
// again); a file with none is forgotten.
func (s *diagStore) closed(uri protocol.DocumentURI) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[uri]
	if !ok {
		return
	}
	if len(f.push) == 0 && len(f.pull) == 0 {
		delete(s.files, uri)
		return
	}
	f.pushVersion, f.pullVersion, f.settledEpoch, f.known = nil, 0, 0, nil
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

// Diagnostics returns the server's current diagnostics for uri: its last
// pull answer and its last publish, merged.
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
	Failed                   // the server said it cannot check the file (Answer.Reason has its words)
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
	case Failed:
		return "failed"
	}
	return "Settle(" + strconv.Itoa(int(s)) + ")"
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

// publish stores pushed diagnostics, under the canonical spelling of the
// URI (servers re-encode the URIs they were sent).
func (c *Client) publish(p *protocol.PublishDiagnosticsParams) {
	p.URI = p.URI.Canonical()
	c.diags.publish(p, c.changes.advance())
	c.changes.wake()
}

// unreadable hears of a notification whose params could not be read. A
// publish of diagnostics is the answer a check waits for: one that cannot
// be read fails the wait for its document at once (see waitSettled), with
// the method, the member and the server named. A publish whose document
// cannot be told fails the waits of every open document.
func (c *Client) unreadable(method string, params []byte, err error) {
	if method != protocol.MethodTextDocumentPublishDiagnostics {
		return
	}
	why := fmt.Sprintf("%s sent %s that lspkit could not read: %v", c.cfg.Name, method, err)
	var p struct {
		URI string `json:"uri"`
	}
	epoch := c.changes.advance()
	if json.Unmarshal(params, &p, json.RejectUnknownMembers(false)) == nil && p.URI != "" {
		c.diags.unreadablePublish(protocol.DocumentURI(p.URI).Canonical(), why, epoch)
	} else {
		for _, uri := range c.docs.uris() {
			c.diags.unreadablePublish(uri, why, epoch)
		}
	}
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
