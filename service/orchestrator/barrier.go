package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/client/filewatch"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// Read your writes: every answer reflects every change to a file under the
// root whose system call returned before the request arrived, whoever made
// it. The workspace's one file watcher (filewatch.Watcher) sees the changes;
// each request begins with the barrier, which has the watcher read what
// the kernel has queued and pass it on at once (filesChanged):
// workspace/didChangeWatchedFiles to the servers whose registrations want
// it, and a note in each session of what changed. Before a session's
// server is asked anything, refresh re-sends the documents it has open
// whose files changed and brings changed files to servers that do not
// watch them. Servers take messages in order, so the change is handled
// before the question.

// barrierTimeout bounds a request's wait for the watcher: its first scan of
// a large tree, or a watcher that stopped reading.
const barrierTimeout = 10 * time.Second

// notifyTimeout bounds the sending of one batch of changes to a server (a
// server that reads nothing fills its pipe).
const notifyTimeout = 5 * time.Second

// maxBrought is how many changed files at most one refresh brings as
// documents to a server that does not watch files; a larger burst (a
// branch switch) is left to the server's own reading of the disk, and the
// answer says so.
const maxBrought = 20

// startWatcher starts the workspace's file watcher, in the background.
// Without it (a one-shot check, or the watcher could not start) answers
// stat the documents servers hold instead.
func (o *Orchestrator) startWatcher() {
	w, err := filewatch.NewTree(o.root, o.log, filewatch.Options{Budget: o.cfg.WatchBudget}, o.filesChanged)
	if err != nil {
		o.log.Warn("file watcher: cannot start; documents are compared with the disk before each answer instead", "err", err)
		o.watchErr = err
		return
	}
	o.watcher = w
}

// filesChanged passes a batch of changes from the watcher to every session
// whose root holds them. It runs on the watcher's goroutine, which the
// barrier waits for.
func (o *Orchestrator) filesChanged(events []protocol.FileEvent) {
	ctx, cancel := context.WithTimeout(o.life, notifyTimeout)
	defer cancel()
	for _, s := range o.liveSessions() {
		s.filesChanged(ctx, events)
	}
	o.tellListeners(events)
}

// barrier returns once every change to the tree that finished before it
// was called has been sent to the servers that watch it and noted for the
// sessions' refresh. The note says when that cannot be promised, and why.
func (o *Orchestrator) barrier(ctx context.Context) string {
	if note, ok := ctx.Value(barrierKey{}).(*string); ok {
		return *note // this request passed it already
	}
	if o.oneShot {
		return "" // files are read when checked; nothing is held across time
	}
	if o.watcher == nil {
		o.statAll()
		if o.watchErr != nil {
			return fmt.Sprintf("files that are not open in a server may be behind: the file watcher could not start (%v)", o.watchErr)
		}
		return ""
	}
	wctx, cancel := context.WithTimeout(ctx, barrierTimeout)
	err := o.watcher.Flush(wctx)
	cancel()
	var note string
	if err != nil {
		o.statAll()
		note = fmt.Sprintf("files that are not open in a server may be behind: the file watcher did not answer (%v)", err)
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			note = fmt.Sprintf("files that are not open in a server may be behind: the file watcher's scan of the tree took over %s", barrierTimeout)
		}
	}
	if o.watcher.LostEvents() {
		o.statAll()
	}
	if why := o.watcher.Degraded(); why != "" {
		o.statAll()
		note = api.JoinNotes(note, fmt.Sprintf("file watching is degraded (%s): files that are not open in a server may be behind by up to %s", why, o.watcher.PollEvery()))
	}
	return note
}

// statAll has every session compare the documents its server holds with
// the disk at its next refresh: the watcher cannot be trusted to have seen
// every change.
func (o *Orchestrator) statAll() {
	for _, s := range o.liveSessions() {
		s.mu.Lock()
		s.statAll = true
		s.mu.Unlock()
	}
}

// pendingChange is a change to a file a session has not acted on yet.
type pendingChange struct {
	kind    protocol.FileChangeType
	watched bool // the server was told through its watched-file registrations
}

// filesChanged sends the server the changes its registrations want and
// notes every change under the session's root for refresh.
func (s *session) filesChanged(ctx context.Context, events []protocol.FileEvent) {
	var mine []protocol.FileEvent
	for _, e := range events {
		if path, err := e.URI.Path(); err == nil && s.serves(path) {
			mine = append(mine, e)
		}
	}
	if len(mine) == 0 {
		return
	}
	unwatched := map[protocol.DocumentURI]bool{}
	for _, e := range mine {
		unwatched[e.URI] = true
	}
	if c := s.current(); c != nil {
		rest, err := c.FilesChanged(ctx, mine)
		if err != nil {
			s.o.log.Warn("file changes", "server", s.spec.ID, "err", err)
		} else {
			clear(unwatched)
			for _, e := range rest {
				unwatched[e.URI] = true
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		s.pending = map[string]pendingChange{}
	}
	for _, e := range mine {
		path, _ := e.URI.Path()
		s.pending[path] = pendingChange{kind: e.Type, watched: !unwatched[e.URI]}
	}
}

// refresh brings c up to date with the disk before it is asked anything:
// the documents it holds whose text came from disk and whose file changed
// (noted by the watcher, or every one when the watcher cannot be trusted),
// and those a check was given the text of, are re-sent from the disk, or
// closed when the file is gone; files that changed and
// that c serves but does not watch are brought to it as documents (at
// most maxBrought). The file at except, which the caller sends next, is
// not brought; held, it is re-sent like the others, as a request running
// beside the caller's may be answered before the caller sends it. It
// returns a note when changes were left to the server.
func (s *session) refresh(ctx context.Context, c *client.Client, except string) string {
	// One at a time: a request beside one whose refresh is still sending
	// what changed waits for it, instead of asking before it is sent.
	s.refreshing.Lock()
	defer s.refreshing.Unlock()
	s.mu.Lock()
	pending, all := s.pending, s.statAll || s.o.watcher == nil
	s.pending, s.statAll = nil, false
	held := map[protocol.DocumentURI]change{}
	for uri, ch := range s.changes {
		switch {
		case !ch.disk && pathOf(uri) != except:
			// A check's given text is that check's alone: every other
			// request is answered from the disk's.
			held[uri] = ch
		case ch.disk && (all || pending[pathOf(uri)].kind != 0):
			held[uri] = ch
		}
	}
	s.mu.Unlock()
	resent := 0
	var stale []string
	for _, uri := range slices.Sorted(maps.Keys(held)) {
		path := pathOf(uri)
		if path == "" {
			continue
		}
		ch := held[uri]
		if !ch.disk {
			// A check's given text: the disk's is sent back unless it is
			// the same text (a check of the text then saved).
			if src, err := readSource(path, s.o.maxFileBytes()); err == nil {
				if have, ok := c.DocumentText(uri); ok && have == src.text {
					s.mu.Lock()
					if cur, ok := s.changes[uri]; ok && !cur.disk {
						cur.disk, cur.mod, cur.size = true, src.mod, src.size
						s.changes[uri] = cur
					}
					s.mu.Unlock()
					continue
				}
			}
		}
		info, err := os.Stat(path)
		if ch.disk && err == nil && pending[path].kind == 0 && info.ModTime().Equal(ch.mod) && info.Size() == ch.size {
			// Not seen to change (every held file is compared when the
			// watcher cannot be trusted): the same time and size is the
			// same text. A file the watcher saw change is read, as a
			// rewrite within the clock's tick keeps both.
			continue
		}
		if resent++; resent == 1 {
			s.o.bump() // a change: diagnosticsAfter waits for what follows it
		}
		if err != nil || info.IsDir() {
			if err := c.ForgetDocument(ctx, path); err != nil {
				s.o.log.Warn("close a document whose file is gone", "file", s.o.rel(path), "err", err)
			}
			s.mu.Lock()
			delete(s.changes, uri)
			s.mu.Unlock()
			continue
		}
		src, err := readSource(path, s.o.maxFileBytes())
		if err != nil {
			// The server keeps its old text: the answer says so.
			stale = append(stale, fmt.Sprintf("%s changed on disk but could not be read (%v): %s has its previous text", s.o.rel(path), err, s.spec.ID))
			continue
		}
		if _, _, err := s.sync(ctx, c, path, s.spec.LanguageID(path), src); err != nil {
			s.o.log.Warn("re-send a file changed on disk", "file", s.o.rel(path), "err", err)
		}
	}
	// Files the server does not hold that changed without its being told
	// (it does not watch them), and new files it was told of: pyright
	// ignores the creation of a file it does not own yet and resolves
	// imports from its cached directory listings until its own timer
	// catches up, so a new file is brought to it as a document.
	var bring, created []string
	for path, p := range pending {
		uri, err := protocol.FileURI(path)
		if err != nil || path == except || p.kind == protocol.FileChangeTypeDeleted || !s.spec.Serves(path) {
			continue
		}
		if _, open := c.DocumentText(uri); open {
			continue
		}
		switch {
		case !p.watched:
			bring = append(bring, path)
		case p.kind == protocol.FileChangeTypeCreated:
			created = append(created, path)
		}
	}
	slices.Sort(bring)
	slices.Sort(created)
	note := api.JoinNotes("", stale...)
	if len(bring) > maxBrought {
		note = api.JoinNotes(note, fmt.Sprintf("%d files changed at once; %s does not watch files and was sent %d of them: answers about the others come from its own reading of the disk", len(bring), s.spec.ID, maxBrought))
		bring = bring[:maxBrought]
	}
	if room := maxBrought - len(bring); len(created) > room {
		note = api.JoinNotes(note, fmt.Sprintf("%d files were created at once; %s was told of them and sent %d as documents: it may see the others only after its own scan of the tree", len(created), s.spec.ID, room))
		created = created[:room]
	}
	if len(bring)+len(created) > 0 && resent == 0 {
		s.o.bump()
	}
	for _, path := range bring {
		src, err := readSource(path, s.o.maxFileBytes())
		if err != nil || binary([]byte(src.text)) {
			continue
		}
		if _, _, err := s.sync(ctx, c, path, s.spec.LanguageID(path), src); err != nil {
			s.o.log.Warn("bring a changed file to a server that does not watch it", "file", s.o.rel(path), "err", err)
		}
	}
	// A new file is introduced, not held: opened and closed at once, the
	// server owns it and goes on to learn of it from its watched-file
	// events (pyright, holding a document whose file was deleted, never
	// ends the progress of its analysis).
	for _, path := range created {
		src, err := readSource(path, s.o.maxFileBytes())
		if err != nil || binary([]byte(src.text)) {
			continue
		}
		if _, _, err := c.Sync(ctx, path, s.spec.LanguageID(path), src.text); err != nil {
			s.o.log.Warn("introduce a new file to a server", "file", s.o.rel(path), "err", err)
			continue
		}
		if err := c.CloseDocument(ctx, path); err != nil {
			s.o.log.Warn("introduce a new file to a server", "file", s.o.rel(path), "err", err)
		}
	}
	if resent+len(bring)+len(created) > 0 || hasUnwatched(pending, s) {
		// A change elsewhere can alter what open files mean (a header
		// they include): servers that re-read dependencies only when
		// asked to rebuild (clangd) are asked.
		if s.spec.Settle != nil && s.spec.Settle.SkipsSameText {
			s.reparse(ctx, c)
		}
	}
	return note
}

// hasUnwatched reports whether a pending change is to a file the session's
// server serves and was not told about.
func hasUnwatched(pending map[string]pendingChange, s *session) bool {
	for path, p := range pending {
		if !p.watched && s.spec.Serves(path) {
			return true
		}
	}
	return false
}

// reparse has a server that re-reads a file's dependencies only when it
// rebuilds the file (clangd) rebuild the files it holds: didSave of one of
// them makes clangd re-check every open file's includes.
func (s *session) reparse(ctx context.Context, c *client.Client) {
	s.mu.Lock()
	var any string
	for uri := range s.changes {
		if p := pathOf(uri); p != "" && (any == "" || p < any) {
			any = p
		}
	}
	s.mu.Unlock()
	if any == "" {
		return
	}
	if err := c.Save(ctx, any); err != nil {
		s.o.log.Warn("ask the server to rebuild its open files", "server", s.spec.ID, "err", err)
	}
}

// pathOf is the file path of a URI, or "".
func pathOf(uri protocol.DocumentURI) string {
	p, err := uri.Path()
	if err != nil {
		return ""
	}
	return p
}

// barrierKey marks a request's context as past the barrier.
type barrierKey struct{}

// pastBarrier passes the barrier once for a request that asks its
// servers several things (a symbol looked up by name, then asked about;
// a symbol's context): the barriers under the context it returns return
// at once with the first one's note.
func (o *Orchestrator) pastBarrier(ctx context.Context) context.Context {
	note := o.barrier(ctx)
	return context.WithValue(ctx, barrierKey{}, &note)
}
