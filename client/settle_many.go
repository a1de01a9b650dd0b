package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/protocol"
)

// Text is one document's text to check in DiagnoseMany.
type Text struct {
	Path, LanguageID, Text string
	// Saved says the text is the file's saved content (see
	// DiagnoseSaved).
	Saved bool
}

// urisPlaceholder, in a settle command's arguments, stands for the JSON
// array of the documents settled by one run of the command.
const urisPlaceholder = `"${uris}"`

// CanDiagnoseMany reports whether the server's completion signal answers
// for many documents in one run (its arguments take "${uris}":
// gopls.diagnose_files), so DiagnoseMany costs one signal, not one per
// document.
func (c *Client) CanDiagnoseMany() bool {
	p := c.cfg.Settle
	return p.Command != "" && strings.Contains(string(p.Arguments), urisPlaceholder)
}

// DiagnoseMany is Diagnose for several documents at once, for a server
// whose completion signal answers for many (CanDiagnoseMany): every text
// is sent first, then one run of the signal covers them all (gopls
// diagnoses its whole workspace on each diagnose_files, so one run for a
// hundred files costs what one for one file does). The answers are in the
// order of texts; a document that could not be sent answers Failed (or
// TimedOut when ctx ended), with why. Documents another check holds are
// waited for within ctx, and an error wrapping ErrDocumentBusy is
// returned if one is still held when ctx ends.
func (c *Client) DiagnoseMany(ctx context.Context, texts []Text) ([]Answer, error) {
	if !c.CanDiagnoseMany() {
		return nil, fmt.Errorf("client: %s: the server's settle signal answers for one document at a time", c.cfg.Name)
	}
	type doc struct {
		Text
		uri     protocol.DocumentURI
		version int32
		known   bool // answered from its known answer, without the signal
		err     error
	}
	docs := make([]doc, len(texts))
	for i, t := range texts {
		uri, err := protocol.FileURI(t.Path)
		if err != nil {
			return nil, err
		}
		docs[i] = doc{Text: t, uri: uri}
		if c.cfg.Settle.SaveRebuildsAll {
			docs[i].Saved = false
		}
	}
	// Locks are taken in URI order, so two batches never wait on each other.
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(string(docs[a].uri), string(docs[b].uri)) })
	var unlocks []func()
	defer func() {
		for _, u := range slices.Backward(unlocks) {
			u()
		}
	}()
	for i, at := range order {
		if i > 0 && docs[order[i-1]].uri == docs[at].uri {
			return nil, fmt.Errorf("client: %s: diagnose %s: given twice", c.cfg.Name, docs[at].uri)
		}
		unlock, err := c.docLocks.lock(ctx, docs[at].uri)
		if err != nil {
			return nil, fmt.Errorf("client: %s: diagnose %s: %w", c.cfg.Name, docs[at].uri, err)
		}
		unlocks = append(unlocks, unlock)
	}

	since := c.changes.current()
	busy := c.progress.busy()
	var pending []protocol.DocumentURI
	for i := range docs {
		d := &docs[i]
		uri, version, changed, err := c.sync(ctx, d.Path, d.LanguageID, d.Text.Text)
		d.uri, d.version = uri, version
		if err == nil && !changed && !busy && c.diags.stillKnown(uri, version, c.inputs.Load(), d.Saved) {
			d.known = true
			continue
		}
		if err == nil && !changed {
			// Re-sent as a new version, as Diagnose does.
			_, d.version, err = c.touch(ctx, d.Path, since)
		}
		if err == nil && d.Saved {
			err = c.save(ctx, uri)
		}
		if d.err = err; err == nil {
			pending = append(pending, uri)
		}
	}

	inputs := c.inputs.Load()
	settle, why := Settled, ""
	fallback := false
	if len(pending) > 0 {
		var err error
		settle, err = c.settleByCommand(ctx, pending...)
		if err != nil && settle != ServerGone {
			if shown := c.shownError(); shown != "" {
				settle, why = Failed, fmt.Sprintf("%s (%v)", shown, err)
			} else {
				c.log.Warn("settle signal failed; waiting for publishes instead", "server", c.cfg.Name, "err", err)
				fallback = true
			}
		}
	}
	answers := make([]Answer, len(docs))
	for i, d := range docs {
		a := Answer{URI: d.uri, Version: d.version}
		switch {
		case d.err != nil:
			a.Settle, a.Reason = Failed, d.err.Error()
			if ctx.Err() != nil || errors.Is(d.err, context.DeadlineExceeded) {
				a.Settle = TimedOut
			}
		case d.known:
			a.Settle = Settled
			a.Diagnostics = c.diagnosticsFor(d.uri, d.version, 0)
		default:
			a.Settle, a.Reason = settle, why
			if fallback {
				a.Settle, a.Reason = c.waitSettled(ctx, d.uri, d.version, since)
			}
			if f, ok := c.diags.get(d.uri); ok && a.Settle == Settled && f.unreadable != "" && f.unreadableEpoch > since {
				a.Settle, a.Reason = Failed, f.unreadable
			}
			st := c.diags.stampOf(d.uri)
			a.Diagnostics = c.diagnosticsFor(d.uri, d.version, since)
			if a.Settle == Settled && c.inputs.Load() == inputs {
				c.diags.know(d.uri, knownAnswer{version: d.version, inputs: inputs, stamp: st, saved: d.Saved})
			}
		}
		answers[i] = a
	}
	return answers, nil
}
