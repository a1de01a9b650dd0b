package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// A Held is one server of a file, held for the requests a feature or a
// front end (lspkit lsp) sends it: the server has the file's text (given,
// the open document's, else the disk's) with its findings for it settled,
// after the read-your-writes barrier, and nothing else is sent to it until
// Release.
type Held struct {
	Server string // the server's id
	Client *client.Client
	URI    protocol.DocumentURI
	File   string   // relative to the root
	Lines  []string // the text the server has for the file
	// Answer is the server's findings for the file's text when this hold
	// sent it (a text given, or the file new to the server), settled or
	// as far as they came; nil when the server had that text already.
	Answer *client.Answer
	// Note says why an answer from it may be incomplete (its project
	// still loading, another server of the file unavailable).
	Note string
	// release lets the session's hold go (see session.hold): the request
	// is answered, or the caller no longer reads from the server.
	release func()
}

// Release lets the server go; it may be called more than once.
func (h Held) Release() {
	if h.release != nil {
		h.release()
	}
}

// openText finds the servers of file that support method for it ("":
// every server of the file) — every one (all), or the first — and makes
// sure each has the file's text given (nil: the open text, else the
// disk's): each returned holds that text for the file, its findings for
// it settled, and the session held (alone, for a given text, as a check
// of given text) until released. A given text needs no file on disk.
// recheck has the text checked again even when the server has it already
// (something it depends on changed).
func (o *Orchestrator) openText(ctx context.Context, file string, given *string, method string, all, recheck bool) ([]Held, error) {
	if err := validPath("file", file); err != nil {
		return nil, err
	}
	abs, ok := o.resolve(file)
	if !ok {
		return nil, o.outsideRoot(file)
	}
	info, err := os.Stat(abs)
	switch {
	case given != nil && errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, fs.ErrNotExist):
		return nil, api.NotFound(o.rel(abs), err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", o.rel(abs), err)
	case info.IsDir():
		return nil, api.InvalidParams("%s is a directory", o.rel(abs))
	}
	if given != nil && int64(len(*given)) > o.maxFileBytes() {
		return nil, api.InvalidParams("%s: the text given is %d bytes, over the limit of %d", o.rel(abs), len(*given), o.maxFileBytes())
	}
	targets := o.serversFor(abs)
	if len(targets) == 0 {
		return nil, api.NoServer("%s", o.noServerReason(abs))
	}
	barrierNote := o.barrier(ctx)
	var reasons []string
	var out []Held
	// On an error, what is already held is let go.
	fail := func(err error) ([]Held, error) {
		for _, op := range out {
			op.Release()
		}
		return nil, err
	}
	for _, t := range targets {
		s, err := o.session(t)
		if err != nil {
			return fail(err)
		}
		wctx, cancel := context.WithTimeout(ctx, o.cfg.FirstTouchTimeout)
		// Held until the answer: no check's given text is sent meanwhile
		// (with a given text: nothing else is asked meanwhile).
		c, held, verdict, why := s.awaitHeld(wctx, given != nil)
		cancel()
		uri, err := protocol.FileURI(abs)
		if err != nil {
			return fail(err)
		}
		switch {
		case c == nil && why == errHeld.Error():
			return fail(fmt.Errorf("%s: %s: %w", o.rel(abs), t.spec.ID, errHeld))
		case c == nil && verdict == api.VerdictTimedOut:
			reasons = append(reasons, t.spec.ID+" is still starting; retry in a moment")
			continue
		case c == nil:
			reasons = append(reasons, fmt.Sprintf("%s is %s: %s", t.spec.ID, verdict, why))
			continue
		case method != "" && !c.Supports(method, uri, t.spec.LanguageID(abs)):
			held()
			reasons = append(reasons, fmt.Sprintf("%s does not offer %s", t.spec.ID, method))
			continue
		}
		release := sync.OnceFunc(held)
		except := ""
		if given != nil {
			except = abs
		}
		refreshNote := s.refresh(ctx, c, except)
		text, isOpen := c.DocumentText(uri)
		lctx, cancel := context.WithTimeout(ctx, o.cfg.FirstTouchTimeout)
		defer cancel()
		var answer *client.Answer
		if given != nil && (!isOpen || text != *given || recheck) {
			text = *given
			a, err := s.diagnose(lctx, c, abs, t.spec.LanguageID(abs), source{text: text})
			if err != nil {
				release()
				return fail(err)
			}
			answer = &a
		} else if !isOpen || recheck {
			src, err := readSource(abs, o.maxFileBytes())
			if err != nil {
				release()
				return fail(fmt.Errorf("%s: %w", o.rel(abs), err))
			}
			text = src.text
			// A file the server has not seen: its analysis of it (its
			// findings settled) comes first, so that the project the
			// file belongs to is loaded before the question.
			a, err := s.diagnose(lctx, c, abs, t.spec.LanguageID(abs), src)
			if err != nil {
				if _, open := c.DocumentText(uri); !open {
					release()
					return fail(err)
				}
			} else {
				answer = &a
			}
		}
		// A server loading its project or building its index answers
		// for part of it: wait for that to end.
		left := o.cfg.FirstTouchTimeout
		if deadline, ok := lctx.Deadline(); ok {
			left = time.Until(deadline)
		}
		note := api.JoinNotes(barrierNote, refreshNote, s.loaded(ctx, c, left))
		s.used() // the question follows at once
		out = append(out, Held{Client: c, Server: t.spec.ID, URI: uri, File: o.rel(abs), Lines: strings.Split(text, "\n"), Note: note, Answer: answer, release: release})
		if !all {
			return out, nil
		}
	}
	if len(out) > 0 {
		// A server that could not answer is said, not left out silently.
		if len(reasons) > 0 {
			out[0].Note = api.JoinNotes(out[0].Note, strings.Join(reasons, "; "))
		}
		return out, nil
	}
	return nil, api.NoServer("%s: %s", o.rel(abs), strings.Join(reasons, "; "))
}

// Hold returns the servers of file (relative to the root, or absolute
// within it) that offer method ("": every server of the file) — every
// one (all), or the first — each
// holding text for the file (nil: the disk's) with its findings for it
// settled, after the read-your-writes barrier. Errors are the contract's:
// outside the root, no such file (without a text), no server, none
// available (with each one's reason).
func (o *Orchestrator) Hold(ctx context.Context, file string, text *string, method string, all bool) ([]Held, error) {
	return o.openText(ctx, file, text, method, all, false)
}

// Recheck is Hold of every server of file with its text (nil: the disk's)
// checked again now, even by a server that has it already: something it
// depends on may have changed. Each Held's Answer is that check's.
func (o *Orchestrator) Recheck(ctx context.Context, file string, text *string) ([]Held, error) {
	return o.openText(ctx, file, text, "", true, true)
}

// HoldServer holds the session of the server id at the root (the one
// StartServers starts) for a request that names no document
// (workspace/executeCommand): the server running, nothing else asked of
// it until Release.
func (o *Orchestrator) HoldServer(ctx context.Context, id string) (Held, error) {
	spec, ok := o.specs[id]
	if !ok || !spec.Enabled {
		return Held{}, api.NoServer("no server %s runs", id)
	}
	root, _ := o.frontRoot(spec)
	s, err := o.session(target{spec: spec, root: root})
	if err != nil {
		return Held{}, err
	}
	wctx, cancel := context.WithTimeout(ctx, o.cfg.FirstTouchTimeout)
	defer cancel()
	c, release, verdict, why := s.awaitHeld(wctx, false)
	if c == nil {
		return Held{}, api.NoServer("%s is %s: %s", id, verdict, why)
	}
	return Held{Server: id, Client: c, release: sync.OnceFunc(release)}, nil
}

// HoldRunning holds every running server that offers method — after the
// read-your-writes barrier, with the workspace's servers started as a
// question about the whole workspace needs (see warmWorkspace) — each
// re-synced with the disk and its project loaded, all at once: a
// workspace-wide question (workspace symbols) goes to each. note says what
// may be missing; each Held's Note is its own. The error is for when none
// could be held. Each Held must be released.
func (o *Orchestrator) HoldRunning(ctx context.Context, method string) (held []Held, note string, err error) {
	if o.cfg.Disabled {
		return nil, "", nil
	}
	note = api.JoinNotes(o.barrier(ctx), o.warmWorkspace(ctx))
	sessions := o.liveSessions()
	all := make([]Held, len(sessions))
	errs := make([]error, len(sessions))
	var wg conc.WaitGroup
	for i, s := range sessions {
		c := s.current()
		if c == nil || !c.Supports(method, "", "") {
			continue
		}
		wg.Go(func() {
			release, err := s.hold(ctx, false)
			if err != nil {
				errs[i] = err
				return
			}
			all[i] = Held{Server: s.spec.ID, Client: c, release: sync.OnceFunc(release),
				Note: api.JoinNotes(s.refresh(ctx, c, ""), s.loaded(ctx, c, o.cfg.FirstTouchTimeout))}
		})
	}
	panicked := wg.WaitAndRecover()
	for _, h := range all {
		if h.Client != nil {
			held = append(held, h)
		}
	}
	if panicked != nil {
		for _, h := range held {
			h.Release()
		}
		o.log.Error("hold running servers: panic", "panic", panicked.String())
		return nil, note, transport.Errorf(transport.CodeInternalError, "%s: internal error: %v", method, panicked.Value)
	}
	if len(held) == 0 {
		return nil, note, errors.Join(errs...)
	}
	return held, note, nil
}

// ErrRestarted is HoldAgain's error for a server that restarted since.
var ErrRestarted = errors.New("the server has restarted since")

// HoldAgain holds the server whose client is c again, re-synced with the
// disk, for a question that continues one of its earlier answers (a listed
// code action applied); ErrRestarted when c is no longer the server's
// running client.
func (o *Orchestrator) HoldAgain(ctx context.Context, c *client.Client) (Held, error) {
	var s *session
	for _, live := range o.liveSessions() {
		if live.current() == c {
			s = live
		}
	}
	if s == nil {
		return Held{}, ErrRestarted
	}
	release, err := s.hold(ctx, false)
	if err != nil {
		return Held{}, err
	}
	note := s.refresh(ctx, c, "")
	return Held{Server: s.spec.ID, Client: c, Note: note, release: sync.OnceFunc(release)}, nil
}
