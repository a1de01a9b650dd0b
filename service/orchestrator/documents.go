package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// A session's documents: the texts it sent (read within the size limit),
// the checks of them and their settling, the files gone, the others
// rechecked after a change, and the wait for the server's project load.

// change is the last change sent for a document: the daemon epoch then and
// its version.
type change struct {
	epoch   uint64
	version int32
	disk    bool      // the text came from the file on disk, not from the caller
	mod     time.Time // then: the file's modification time and size before it was read
	size    int64
	used    uint64 // when it was last checked or sent, in session.uses
}

// source is the text a server is sent for a file, and where it came from.
type source struct {
	text string
	disk bool      // read from the file, not given by the caller
	mod  time.Time // the file's modification time and size before it was read
	size int64
}

// Why a file is not read.
var (
	errDirectory  = errors.New("is a directory")
	errNotRegular = errors.New("is not a regular file")
)

// tooBigError says a file is over the size limit.
type tooBigError struct{ size, max int64 }

func (e *tooBigError) Error() string {
	return fmt.Sprintf("is %s, over the %s limit (maxFileBytes)", byteSize(e.size), byteSize(e.max))
}

// byteSize writes n bytes for people.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// readSource reads the regular file at path as a source, noting its
// modification time and size first (a write after them shows as a change
// later). Directories, other non-regular files (a FIFO would block the
// read) and files over max bytes are not read.
func readSource(path string, max int64) (source, error) {
	info, err := os.Stat(path)
	if err != nil {
		return source{}, err
	}
	switch {
	case info.IsDir():
		return source{}, errDirectory
	case !info.Mode().IsRegular():
		return source{}, errNotRegular
	case info.Size() > max:
		return source{}, &tooBigError{info.Size(), max}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return source{}, err
	}
	if int64(len(data)) > max {
		return source{}, &tooBigError{int64(len(data)), max}
	}
	return source{text: string(data), disk: true, mod: info.ModTime(), size: info.Size()}, nil
}

// diagnose sends the text, waits for the server's complete findings for
// it (client.Diagnose) and records the change.
// Text read from the file is the file's saved content: servers that
// asked for saves are sent didSave too.
func (s *session) diagnose(ctx context.Context, c *client.Client, path, languageID string, src source) (client.Answer, error) {
	diagnose := c.Diagnose
	if src.disk {
		diagnose = c.DiagnoseSaved
	} else {
		s.giving(path)
	}
	a, err := diagnose(ctx, path, languageID, src.text)
	if err != nil {
		return a, err
	}
	s.record(ctx, c, a.URI, a.Version, src)
	return a, nil
}

// sync sends the text and records the change.
func (s *session) sync(ctx context.Context, c *client.Client, path, languageID string, src source) (protocol.DocumentURI, int32, error) {
	uri, version, err := c.Sync(ctx, path, languageID, src.text)
	if err != nil {
		return uri, version, err
	}
	s.record(ctx, c, uri, version, src)
	return uri, version, nil
}

// record notes that c was sent version of uri from src, and closes the
// least recently used documents beyond the open-document limit.
func (s *session) record(ctx context.Context, c *client.Client, uri protocol.DocumentURI, version int32, src source) {
	epoch := s.o.Epoch()
	s.mu.Lock()
	if s.client != c {
		s.mu.Unlock()
		return
	}
	s.uses++
	s.changes[uri] = change{epoch: epoch, version: version, disk: src.disk, mod: src.mod, size: src.size, used: s.uses}
	var evict []protocol.DocumentURI
	for limit := s.o.maxOpenDocuments(); len(s.changes) > limit; {
		oldest := uri
		for u, ch := range s.changes {
			if ch.used < s.changes[oldest].used {
				oldest = u
			}
		}
		delete(s.changes, oldest)
		evict = append(evict, oldest)
	}
	s.mu.Unlock()
	for _, u := range evict {
		path, err := u.Path()
		if err != nil {
			continue
		}
		if err := c.CloseDocument(ctx, path); err != nil {
			s.o.log.Warn("close the least recently used document", "server", s.spec.ID, "file", s.o.rel(path), "err", err)
		}
	}
}

// forgetGone closes the document of a file that is gone and drops its
// diagnostics, in the background (a check of it may hold the document).
func (s *session) forgetGone(c *client.Client, uri protocol.DocumentURI, path string) {
	s.mu.Lock()
	delete(s.changes, uri)
	s.mu.Unlock()
	s.o.bg.Go(func() {
		ctx, cancel := context.WithTimeout(s.o.life, time.Minute)
		defer cancel()
		if err := c.ForgetDocument(ctx, path); err != nil && ctx.Err() == nil {
			s.o.log.Warn("forget a file that is gone", "file", s.o.rel(path), "err", err)
		}
	})
}

// quietSpell is how long a server must report nothing new, after the
// changed documents settled, before diagnosticsAfter trusts that the
// reports on other files are in.
const quietSpell = 150 * time.Millisecond

// settleAfter waits until the documents changed after epoch have settled,
// then for a quiet spell, within ctx.
func (s *session) settleAfter(ctx context.Context, epoch uint64) {
	s.mu.Lock()
	c := s.client
	var pending []struct {
		uri     protocol.DocumentURI
		version int32
	}
	for uri, ch := range s.changes {
		if ch.epoch > epoch {
			pending = append(pending, struct {
				uri     protocol.DocumentURI
				version int32
			}{uri, ch.version})
		}
	}
	active := s.state == api.StatusActive
	s.mu.Unlock()
	if !active || len(pending) == 0 {
		return
	}
	changed := map[protocol.DocumentURI]bool{}
	for _, p := range pending {
		changed[p.uri] = true
		if c.WaitSettled(ctx, p.uri, p.version) != client.Settled {
			return
		}
	}
	s.recheckOthers(ctx, c, changed)
	for {
		before := c.Epoch()
		changed := c.Changed()
		t := time.NewTimer(quietSpell)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
			if c.Epoch() == before && !c.Busy() {
				return
			}
		case <-changed:
			t.Stop()
		}
	}
}

// recheckOthers re-checks, at once, the documents open in c other than
// the changed ones, as they are: a file that imports a changed one may be
// broken by it, and servers that check open files only (pyright, clangd)
// say so only when asked again.
func (s *session) recheckOthers(ctx context.Context, c *client.Client, changed map[protocol.DocumentURI]bool) {
	s.refresh(ctx, c, "")
	s.mu.Lock()
	var others []protocol.DocumentURI
	for uri := range s.changes {
		if !changed[uri] {
			others = append(others, uri)
		}
	}
	s.mu.Unlock()
	var wg conc.WaitGroup
	for _, uri := range others {
		path, err := uri.Path()
		text, open := c.DocumentText(uri)
		if err != nil || !open {
			continue
		}
		wg.Go(func() {
			if _, err := c.Diagnose(ctx, path, s.spec.LanguageID(path), text); err != nil && ctx.Err() == nil {
				s.o.log.Warn("re-check after a change", "file", s.o.rel(path), "err", err)
			}
		})
	}
	if p := wg.WaitAndRecover(); p != nil {
		s.o.log.Error("re-check after a change: panic", "panic", p.String())
	}
}

// loaded waits, within timeout, until c has no work-done progress running
// (its project loaded, its index built), and returns "" or a note saying
// the answer may be incomplete. Once c has been seen idle after some work
// of its ended (its load), later work (re-analysis after a change) is
// waited for at most reloadWait: servers answer from their current state
// meanwhile, and some leave such progress open until their next change
// (pyright's "1 file to analyze" after a file it tracked was deleted). A
// server idle before any work (clangd before its background index begins)
// has not loaded yet: its first work is waited for in full. After one
// wait ran out, the next questions do not wait until the server is seen
// idle again.
func (s *session) loaded(ctx context.Context, c *client.Client, timeout time.Duration) string {
	if !c.Busy() {
		s.mu.Lock()
		s.loadWaited = false
		if c.Worked() {
			s.loadedClient = c
		}
		s.mu.Unlock()
		return ""
	}
	s.mu.Lock()
	waited, again := s.loadWaited, s.loadedClient == c
	s.mu.Unlock()
	if again {
		timeout = min(timeout, reloadWait)
	}
	if !waited {
		wctx, cancel := context.WithTimeout(ctx, timeout)
		err := c.WaitIdle(wctx)
		cancel()
		if err == nil {
			s.mu.Lock()
			s.loadedClient = c
			s.mu.Unlock()
			return ""
		}
		if ctx.Err() != nil {
			return ""
		}
		s.mu.Lock()
		s.loadWaited = true
		s.mu.Unlock()
	}
	return fmt.Sprintf("%s is still loading the project (%s); the answer may be incomplete", s.spec.ID, c.Loading())
}

// reloadWait bounds the wait for a server's work-done progress once its
// project has loaded (see loaded).
const reloadWait = 2 * time.Second
