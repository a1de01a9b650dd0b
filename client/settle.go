package client

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
)

// SettlePolicy says how the client knows a server is done with a text.
// Servers say it differently: a pull answer is complete for its version; a
// versioned publish may be followed by more for the same version (gopls's
// analyzer findings come in a later wave); a server that publishes without
// versions, or publishes nothing when nothing changed, says nothing at all.
type SettlePolicy struct {
	// Command, when set, is run after each change (workspace/executeCommand,
	// "${uri}" and "${path}" in Arguments standing for the document, and
	// "${uris}" (with its quotes) for the JSON array of the documents one
	// run covers; see DiagnoseMany): when it returns, the server has
	// published everything for the documents (gopls.diagnose_files).
	Command   string
	Arguments jsontext.Value
	// TSServer asks tsserver for the document's diagnostics directly,
	// through typescript-language-server's typescript.tsserverRequest
	// command: it answers for exactly the text sent, also when an edit
	// changed nothing (when typescript-language-server publishes nothing).
	TSServer bool
	// SkipsSameText says the server ignores a change that leaves the text
	// as it was (clangd): re-checking an unchanged document then takes a
	// real change first (see Diagnose).
	SkipsSameText bool
	// SaveRebuildsAll says a didSave has the server rebuild every document
	// it holds and means nothing for the document saved (clangd checks a
	// document on open and change): DiagnoseSaved then sends none, since
	// each would rebuild every open file again (an impact's dependents
	// opened one after another: the n-th rebuilt n files). Save still
	// sends it, for the rebuild.
	SaveRebuildsAll bool
	// PullDuringWork takes a pull answer for the version as complete
	// even while the server reports work-done progress running (work
	// that is not about the file pulled: pyright's background analysis).
	PullDuringWork bool
	// PublishDuringWork takes a publish for the version as complete even
	// while the server reports work-done progress running (clangd with
	// --sync publishes once per version, from the whole file, and its
	// only progress is its background index: every compile command
	// changed has it index the file again, which a file's findings do not
	// wait for).
	PublishDuringWork bool
	// Quiet is how long a server must publish nothing more for a version,
	// after a publish for it, before its findings count as complete
	// (default DefaultQuiet; negative: not at all).
	Quiet time.Duration
}

// DefaultQuiet is the quiet window after a versioned publish when the
// policy does not set one: long enough for a second wave that follows the
// first at once, short against any check's timeout.
const DefaultQuiet = 100 * time.Millisecond

// unversionedQuiet is the quiet window after a publish without a version.
const unversionedQuiet = 200 * time.Millisecond

// Answer is a server's answer for one text of a document.
type Answer struct {
	URI         protocol.DocumentURI
	Version     int32
	Settle      Settle                // Settled when the findings are complete for the version
	Reason      string                // why not, in the server's words, when Failed
	Diagnostics []protocol.Diagnostic // the server's findings for the version (what it has so far, unless settled)
}

// Diagnose makes the server hold text for the document at path (see Sync)
// and waits, within ctx, until its findings for exactly that text are
// complete: by the server's own completion signal where its policy names
// one, else by a pull answer for the version, or publishes for it followed
// by a quiet window. Only evidence that arrives after Diagnose starts
// counts: a document whose text did not change is re-validated (re-sent
// as a new version, unless the server's completion signal re-validates it
// anyway), so its answer reflects changes elsewhere (a file it imports) —
// unless nothing at all reached the server since it settled on that text
// and it said nothing new of the file (see knownAnswer): its settled
// answer is then given again at once.
//
// Checks of one document take turns: each holds the document from sending
// its text until its answer is in, so every answer is for the text its
// check sent. A check still waiting for its turn when ctx ends returns an
// error wrapping ErrDocumentBusy.
func (c *Client) Diagnose(ctx context.Context, path, languageID, text string) (Answer, error) {
	return c.diagnose(ctx, path, languageID, text, false)
}

// DiagnoseSaved is Diagnose for text that is the file's saved content:
// didSave follows the change, for servers that asked for saves (servers
// that check on save, such as rust-analyzer's cargo check, then report).
func (c *Client) DiagnoseSaved(ctx context.Context, path, languageID, text string) (Answer, error) {
	return c.diagnose(ctx, path, languageID, text, true)
}

func (c *Client) diagnose(ctx context.Context, path, languageID, text string, saved bool) (Answer, error) {
	if c.cfg.Settle.SaveRebuildsAll {
		saved = false
	}
	uri, err := protocol.FileURI(path)
	if err != nil {
		return Answer{}, err
	}
	unlock, err := c.docLocks.lock(ctx, uri)
	if err != nil {
		return Answer{URI: uri}, fmt.Errorf("client: %s: diagnose %s: %w", c.cfg.Name, uri, err)
	}
	defer unlock()
	since := c.changes.current()
	uri, version, changed, err := c.sync(ctx, path, languageID, text)
	if err != nil {
		return Answer{URI: uri, Version: version}, err
	}
	if !changed && !c.progress.busy() && c.diags.stillKnown(uri, version, c.inputs.Load(), saved) && c.goneOr(Settled) == Settled {
		// Nothing reached the server since it settled on this very text,
		// and it said nothing new of the file: its answer stands.
		return Answer{URI: uri, Version: version, Settle: Settled, Diagnostics: c.diagnosticsFor(uri, version, 0)}, nil
	}
	p := c.cfg.Settle
	if !changed && !p.TSServer {
		// Re-sent, not merely pulled again: pyright answers a pull for
		// an unchanged document from its cache, also after a file it
		// imports changed; gopls's diagnose_files can return, for an
		// unchanged document, findings of an older state of its package
		// (cobra: a signature changed and changed back, the callers in
		// its package kept the errors of the changed one for about
		// 300 ms after the command returned). A new version is answered
		// for that version.
		if uri, version, err = c.touch(ctx, path, since); err != nil {
			return Answer{URI: uri, Version: version}, err
		}
	}
	if saved {
		if err := c.save(ctx, uri); err != nil {
			return Answer{URI: uri, Version: version}, err
		}
	}
	if sent, ok := ctx.Value(sentKey{}).(func()); ok {
		sent()
	}
	a := Answer{URI: uri, Version: version}
	inputs := c.inputs.Load()
	var answer []protocol.Diagnostic
	a.Settle, answer, a.Reason = c.await(ctx, uri, version, since)
	st := c.diags.stampOf(uri)
	a.Diagnostics = answer
	if answer == nil {
		a.Diagnostics = c.diagnosticsFor(uri, version, since)
	}
	if a.Settle == Settled && c.inputs.Load() == inputs {
		c.diags.know(uri, knownAnswer{version: version, inputs: inputs, stamp: st, saved: saved})
	}
	return a, nil
}

// sentKey carries WithSent's function in a context.
type sentKey struct{}

// WithSent returns a context whose Diagnose calls sent once the server
// has been sent the text (and the save, if any), before Diagnose waits for
// the findings: what is sent to the server after that reaches it after
// the text.
func WithSent(ctx context.Context, sent func()) context.Context {
	return context.WithValue(ctx, sentKey{}, sent)
}

// WaitSettled waits, within ctx, until the server's findings for version
// of the open document uri are complete (see Diagnose), by the server's
// completion signal where its policy names one, else by a pull answer for
// the version or publishes for it followed by a quiet window; never while
// the server reports work-done progress running.
func (c *Client) WaitSettled(ctx context.Context, uri protocol.DocumentURI, version int32) Settle {
	s, _, _ := c.await(ctx, uri, version, 0)
	return s
}

// await waits until uri's findings for version are complete, counting
// only evidence after epoch since. A completion signal that answers with
// the findings themselves (tsserver's) returns them too. A signal that
// fails is logged, and the wait falls back to what the server sends.
func (c *Client) await(ctx context.Context, uri protocol.DocumentURI, version int32, since uint64) (Settle, []protocol.Diagnostic, string) {
	p := c.cfg.Settle
	path, err := uri.Path()
	if p.Command == "" && !p.TSServer || err != nil {
		st, why := c.waitSettled(ctx, uri, version, since)
		return st, nil, why
	}
	var s Settle
	var answer []protocol.Diagnostic
	if p.Command != "" {
		s, err = c.settleByCommand(ctx, uri)
	} else {
		s, answer, err = c.settleByTSServer(ctx, uri, path, version)
	}
	if err != nil && s != ServerGone {
		if shown := c.shownError(); shown != "" {
			// The server said why it cannot answer (gopls without a
			// go command, or a workspace it could not load: "no views"):
			// what it would publish is not a check of the file.
			return Failed, nil, fmt.Sprintf("%s (%v)", shown, err)
		}
		c.log.Warn("settle signal failed; waiting for publishes instead", "server", c.cfg.Name, "err", err)
		st, why := c.waitSettled(ctx, uri, version, since)
		return st, nil, why
	}
	if f, ok := c.diags.get(uri); ok && s == Settled && f.unreadable != "" && f.unreadableEpoch > since {
		return Failed, nil, f.unreadable // what it published meanwhile is not all there
	}
	return s, answer, ""
}

// touch makes the server take an open document's unchanged text as new:
// it is re-sent as a new version. A server that skips a change leaving the
// text as it was (SettlePolicy.SkipsSameText: clangd re-checks nothing and
// publishes nothing then, also when a header it includes changed) is sent
// the text with a newline added first, and that version's diagnostics are
// awaited (clangd drops an update followed at once by another). It
// returns the final version.
func (c *Client) touch(ctx context.Context, path string, since uint64) (protocol.DocumentURI, int32, error) {
	uri, err := protocol.FileURI(path)
	if err != nil {
		return "", 0, err
	}
	doc, open := c.docs.get(uri)
	if !open {
		return uri, 0, fmt.Errorf("client: %s: touch %s: document not open", c.cfg.Name, path)
	}
	if c.cfg.Settle.SkipsSameText {
		v, err := c.resend(ctx, uri, doc.text+"\n")
		if err != nil {
			return uri, v, err
		}
		c.waitSettled(ctx, uri, v, since)
	}
	v, err := c.resend(ctx, uri, doc.text)
	return uri, v, err
}

// resend sends text as a new version of the open document uri, changed or
// not, and returns the version.
func (c *Client) resend(ctx context.Context, uri protocol.DocumentURI, text string) (int32, error) {
	c.syncMu.Lock()
	defer c.syncMu.Unlock()
	before, ok := c.docs.get(uri)
	if !ok {
		return 0, fmt.Errorf("client: %s: touch %s: document not open", c.cfg.Name, uri)
	}
	after := c.docs.resend(uri, text, c.changes.advance)
	if text != before.text {
		// The same text again changes nothing the server finds (a file's
		// own findings are stamped by what it publishes for it).
		c.inputChanged()
	}
	c.changes.wake()
	if err := c.sendChange(ctx, uri, before.text, after); err != nil {
		return after.version, fmt.Errorf("client: %s: touch %s: %w", c.cfg.Name, uri, err)
	}
	c.sent(uri, after.version)
	return after.version, nil
}

// settleByCommand runs the policy's command for the documents uris (one
// unless the arguments take "${uris}"): when it returns, and every message
// that arrived before its answer is handled, the server's publishes for
// them are in.
func (c *Client) settleByCommand(ctx context.Context, uris ...protocol.DocumentURI) (Settle, error) {
	p := c.cfg.Settle
	var args []jsontext.Value
	if len(p.Arguments) > 0 {
		path, err := uris[0].Path()
		if err != nil {
			return TimedOut, err
		}
		all, err := json.Marshal(uris)
		if err != nil {
			return TimedOut, err
		}
		expanded := strings.NewReplacer(urisPlaceholder, string(all), "${uri}", jsonString(string(uris[0])), "${path}", jsonString(path)).Replace(string(p.Arguments))
		if err := json.Unmarshal([]byte(expanded), &args); err != nil {
			return TimedOut, fmt.Errorf("settle arguments %s: %w", p.Arguments, err)
		}
	}
	if _, err := protocol.ExecuteCommandRequest.Call(ctx, c.conn, protocol.ExecuteCommandParams{Command: p.Command, Arguments: args}); err != nil {
		if ctx.Err() != nil {
			return TimedOut, nil
		}
		return c.goneOr(TimedOut), err
	}
	if err := c.conn.Drain(ctx); err != nil {
		return c.goneOr(TimedOut), nil
	}
	epoch := c.changes.advance()
	for _, uri := range uris {
		c.diags.markSettled(uri, epoch)
	}
	c.changes.wake()
	return Settled, nil
}

// goneOr is ServerGone if the server exited, else s.
func (c *Client) goneOr(s Settle) Settle {
	select {
	case <-c.proc.Done():
		return ServerGone
	default:
		return s
	}
}

// jsonString is s quoted for JSON, without the quotes: for substitution
// inside a JSON string.
func jsonString(s string) string {
	q, _ := json.Marshal(s)
	return string(q[1 : len(q)-1])
}

// tsDiagnostic is a diagnostic as tsserver reports it.
type tsDiagnostic struct {
	Start              tsLocation `json:"start"`
	End                tsLocation `json:"end"`
	Text               string     `json:"text"`
	Code               *int32     `json:"code"`
	Category           string     `json:"category"`
	Source             string     `json:"source"`
	ReportsUnnecessary bool       `json:"reportsUnnecessary"`
	ReportsDeprecated  bool       `json:"reportsDeprecated"`
	RelatedInformation []struct {
		Message string `json:"message"`
		Span    *struct {
			File  string     `json:"file"`
			Start tsLocation `json:"start"`
			End   tsLocation `json:"end"`
		} `json:"span"`
	} `json:"relatedInformation"`
}

// tsLocation is a 1-based line and UTF-16 offset.
type tsLocation struct {
	Line   uint32 `json:"line"`
	Offset uint32 `json:"offset"`
}

func (l tsLocation) position() protocol.Position {
	return protocol.Position{Line: max(l.Line, 1) - 1, Character: max(l.Offset, 1) - 1}
}

// tsDiagnosticKinds are the tsserver requests that make up a file's
// diagnostics, as typescript-language-server gathers them.
var tsDiagnosticKinds = []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync", "suggestionDiagnosticsSync"}

// settleByTSServer asks tsserver for the document's syntactic, semantic
// and suggestion diagnostics (tsserver answers for the text it has, which
// typescript-language-server updated from our change before it forwards
// the request) and converts them as typescript-language-server does. They
// are the answer for the version, and stored as if published for it: the
// server's own publishes, for this file or for its importers, supersede
// them as they come.
func (c *Client) settleByTSServer(ctx context.Context, uri protocol.DocumentURI, path string, version int32) (Settle, []protocol.Diagnostic, error) {
	all := []protocol.Diagnostic{}
	for _, kind := range tsDiagnosticKinds {
		args := []jsontext.Value{jsontext.Value(strconv.Quote(kind)), jsontext.Value(`{"file":` + strconv.Quote(path) + `}`)}
		res, err := protocol.ExecuteCommandRequest.Call(ctx, c.conn, protocol.ExecuteCommandParams{Command: "typescript.tsserverRequest", Arguments: args})
		if err != nil {
			if ctx.Err() != nil {
				return TimedOut, nil, nil
			}
			return c.goneOr(TimedOut), nil, err
		}
		var resp struct {
			Success bool           `json:"success"`
			Message string         `json:"message"`
			Body    []tsDiagnostic `json:"body"`
		}
		if err := json.Unmarshal(res, &resp); err != nil {
			return TimedOut, nil, fmt.Errorf("tsserver %s: %w", kind, err)
		}
		if !resp.Success {
			return TimedOut, nil, fmt.Errorf("tsserver %s: %s", kind, resp.Message)
		}
		for _, d := range resp.Body {
			all = append(all, fromTSServer(d))
		}
	}
	c.publish(&protocol.PublishDiagnosticsParams{URI: uri, Version: &version, Diagnostics: all})
	return Settled, slices.Clone(all), nil
}

// fromTSServer converts a tsserver diagnostic as typescript-language-server
// does (its toDiagnostic).
func fromTSServer(d tsDiagnostic) protocol.Diagnostic {
	severity := protocol.DiagnosticSeverityError
	switch d.Category {
	case "warning":
		severity = protocol.DiagnosticSeverityWarning
	case "suggestion":
		severity = protocol.DiagnosticSeverityHint
	}
	source := d.Source
	if source == "" {
		source = "typescript"
	}
	out := protocol.Diagnostic{
		Range:    protocol.Range{Start: d.Start.position(), End: d.End.position()},
		Severity: &severity,
		Source:   &source,
		Message:  protocol.NewStringOrMarkupContentString(d.Text),
	}
	if d.Code != nil {
		out.Code = protocol.NewIntegerOrStringInteger(*d.Code)
	}
	if d.ReportsUnnecessary {
		out.Tags = append(out.Tags, protocol.DiagnosticTagUnnecessary)
	}
	if d.ReportsDeprecated {
		out.Tags = append(out.Tags, protocol.DiagnosticTagDeprecated)
	}
	for _, r := range d.RelatedInformation {
		if r.Span == nil {
			continue
		}
		ruri, err := protocol.FileURI(r.Span.File)
		if err != nil {
			continue
		}
		out.RelatedInformation = append(out.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: ruri, Range: protocol.Range{Start: r.Span.Start.position(), End: r.Span.End.position()}},
			Message:  r.Message,
		})
	}
	return out
}

// waitSettled waits until uri's findings are complete for version by what
// the server sends, counting only what arrived after epoch since. A
// publish for uri that could not be read ends it at once: Failed, and why.
func (c *Client) waitSettled(ctx context.Context, uri protocol.DocumentURI, version int32, since uint64) (Settle, string) {
	for {
		changed := c.changes.wait()
		if f, ok := c.diags.get(uri); ok && f.unreadable != "" && f.unreadableEpoch > since {
			return Failed, f.unreadable
		}
		settled, quietLeft := c.settledSince(uri, version, since)
		if settled {
			return Settled, ""
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
		}
		if timer != nil {
			timer.Stop()
		}
		if end == TimedOut {
			c.log.Info("diagnostics: the wait ended before they settled", "server", c.cfg.Name, "uri", uri, "version", version, "waiting for", c.awaited(uri, version, since))
		}
		if end >= 0 {
			return end, ""
		}
	}
}

// awaited says what a wait for uri's findings at version still lacked:
// for the server's logs when a wait runs out.
func (c *Client) awaited(uri protocol.DocumentURI, version int32, since uint64) string {
	if work := c.progress.describe(); work != "" {
		return "the server's work to end: " + work
	}
	doc, open := c.docs.get(uri)
	f, _ := c.diags.get(uri)
	switch {
	case !open:
		return "the document, which is not open"
	case c.regs.pullProvider().ok:
		return fmt.Sprintf("a pull answer for version %d after epoch %d (the last: version %d at epoch %d, pulled %v; the document is at version %d, sent %d)", version, since, f.pullVersion, f.pullEpoch, f.pulled, doc.version, doc.sent)
	default:
		return fmt.Sprintf("a publish for version %d after epoch %d and the change (the last at epoch %d; the change at %d)", version, since, f.pushEpoch, doc.changeEpoch)
	}
}

// settledSince reports whether uri's findings are complete for version
// from evidence after epoch since, or how long a quiet window still has to
// run; never while the server reports work-done progress running (unless
// a pull answers, for a server whose policy says so).
func (c *Client) settledSince(uri protocol.DocumentURI, version int32, since uint64) (bool, time.Duration) {
	pull := c.regs.pullProvider().ok
	if c.progress.busy() && !(pull && c.cfg.Settle.PullDuringWork) && !(!pull && c.cfg.Settle.PublishDuringWork) {
		return false, 0
	}
	doc, open := c.docs.get(uri)
	f, known := c.diags.get(uri)
	if !open || !known {
		return false, 0
	}
	if pull {
		return f.pulled && f.pullVersion >= version && f.pullEpoch > since, 0
	}
	if f.pushEpoch <= since || f.pushEpoch <= doc.changeEpoch {
		return false, 0 // nothing published since the check began, or since the change
	}
	if f.pushVersion == nil && c.diags.versionsPublishes() {
		// A server that names versions publishes without one only to
		// clear a document it closed (clangd on didClose): read after the
		// document was sent again, the clear is no answer for the new
		// text, whose own publish comes later.
		return false, 0
	}
	quiet := max(unversionedQuiet, c.cfg.Settle.Quiet) // a server's own window counts for unversioned publishes too
	if f.pushVersion != nil {
		if *f.pushVersion < version {
			return false, 0
		}
		quiet = c.cfg.Settle.Quiet
		if quiet == 0 {
			quiet = DefaultQuiet
		}
	}
	if left := quiet - time.Since(f.pushAt); left > 0 {
		return false, left
	}
	return true, 0
}

// diagnosticsFor returns the findings for version of uri: the pull answer
// for it and the publishes for it (or, without versions, since the change),
// merged and deduplicated. Both are the server's findings: neither replaces
// the other.
func (c *Client) diagnosticsFor(uri protocol.DocumentURI, version int32, since uint64) []protocol.Diagnostic {
	doc, _ := c.docs.get(uri)
	f, _ := c.diags.get(uri)
	var parts [][]protocol.Diagnostic
	if f.pulled && f.pullVersion >= version {
		parts = append(parts, f.pull)
	}
	if f.pushVersion != nil && *f.pushVersion >= version || f.pushVersion == nil && f.pushEpoch > doc.changeEpoch || f.settledEpoch > since && f.pushEpoch > 0 {
		parts = append(parts, f.push)
	}
	return mergeDiagnostics(parts...)
}

// mergeDiagnostics concatenates diagnostic lists, dropping repeats (the
// same range and message).
func mergeDiagnostics(parts ...[]protocol.Diagnostic) []protocol.Diagnostic {
	type key struct {
		r   protocol.Range
		msg string
	}
	var out []protocol.Diagnostic
	seen := map[key]bool{}
	for _, part := range parts {
		for _, d := range part {
			k := key{d.Range, MessageText(d)}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, d)
		}
	}
	return slices.Clip(out)
}
