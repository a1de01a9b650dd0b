package client

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fsnotify/fsnotify"
	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/protocol"
)

// watchBatch is how long file events gather before they go to the server in
// one workspace/didChangeWatchedFiles notification.
const watchBatch = 50 * time.Millisecond

// skippedDirs are not watched unless a registered pattern names them: they
// hold many files no server needs to hear about.
var skippedDirs = [...]string{".git", "node_modules"}

// watchPattern is one registered file-system watcher: a glob, the directory
// it is relative to, and the kinds of change it wants.
type watchPattern struct {
	base string // absolute directory the glob is relative to; "" for absolute globs
	glob string // doublestar syntax, slash separated
	kind protocol.WatchKind
}

// matches reports whether a change of kind to the file at path (absolute)
// is one the pattern wants.
func (p watchPattern) matches(path string, kind protocol.WatchKind) bool {
	if p.kind&kind == 0 {
		return false
	}
	name := filepath.ToSlash(path)
	if p.base != "" {
		rel, err := filepath.Rel(p.base, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return false
		}
		name = filepath.ToSlash(rel)
	}
	return doublestar.MatchUnvalidated(p.glob, name)
}

// watchPatterns reads the watchers of the server's
// workspace/didChangeWatchedFiles registrations. String globs are relative
// to root unless absolute; RelativePatterns are relative to their base.
// Watchers that cannot be understood are returned as errors and skipped.
func watchPatterns(root string, regs []protocol.Registration) ([]watchPattern, []error) {
	var out []watchPattern
	var errs []error
	for _, r := range regs {
		var opts protocol.DidChangeWatchedFilesRegistrationOptions
		if err := json.Unmarshal(r.RegisterOptions, &opts); err != nil {
			errs = append(errs, fmt.Errorf("registration %s: %w", r.ID, err))
			continue
		}
		for _, w := range opts.Watchers {
			p := watchPattern{base: root, kind: protocol.WatchKindCreate | protocol.WatchKindChange | protocol.WatchKindDelete}
			if w.Kind != nil {
				p.kind = *w.Kind
			}
			if glob, ok := w.GlobPattern.AsPattern(); ok {
				p.glob = string(glob)
				if filepath.IsAbs(p.glob) {
					p.base = ""
				}
			} else if rel, ok := w.GlobPattern.AsRelativePattern(); ok {
				p.glob = string(rel.Pattern)
				var uri protocol.URI
				if f, ok := rel.BaseURI.AsWorkspaceFolder(); ok {
					uri = f.URI
				} else {
					uri, _ = rel.BaseURI.AsURI()
				}
				base, err := uri.Path()
				if err != nil {
					errs = append(errs, fmt.Errorf("registration %s: base %q: %w", r.ID, uri, err))
					continue
				}
				p.base = base
			}
			if p.glob == "" || !doublestar.ValidatePattern(p.glob) {
				errs = append(errs, fmt.Errorf("registration %s: bad glob pattern %q", r.ID, p.glob))
				continue
			}
			out = append(out, p)
		}
	}
	return out, errs
}

// fileWatcher watches directories on disk with fsnotify and tells the server
// about changes its registered patterns match, in brief batches.
type fileWatcher struct {
	root string
	log  *slog.Logger
	send func([]protocol.FileEvent)
	fs   *fsnotify.Watcher
	done chan struct{} // closed when run returns

	mu       sync.Mutex
	patterns []watchPattern
	watched  map[string]bool // directories being watched
}

// newFileWatcher starts a watcher over root that passes each batch of
// matching changes to send, from one goroutine, in order.
func newFileWatcher(root string, log *slog.Logger, send func([]protocol.FileEvent)) (*fileWatcher, error) {
	fsw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return nil, fmt.Errorf("file watcher: %w", err)
	}
	w := &fileWatcher{root: root, log: log, send: send, fs: fsw, done: make(chan struct{}), watched: map[string]bool{}}
	go w.run()
	return w, nil
}

// setPatterns replaces the registered patterns and watches the root's
// directories they may need (skipped ones they name included) before it
// returns. Only the workspace root is watched: servers also register
// library trees outside it (pyright: the whole Python standard library),
// which would cost thousands of watches and a long walk on every
// registration, for files that do not change during a session.
func (w *fileWatcher) setPatterns(patterns []watchPattern) {
	w.mu.Lock()
	w.patterns = patterns
	w.mu.Unlock()
	w.addTree(w.root)
}

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// skipped reports whether the directory at path is left unwatched: a
// skipped name no pattern mentions.
func (w *fileWatcher) skipped(path string) bool {
	name := filepath.Base(path)
	for _, s := range skippedDirs {
		if name != s {
			continue
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, p := range w.patterns {
			if strings.Contains(p.glob, s) || strings.Contains(p.base, s) {
				return false
			}
		}
		return true
	}
	return false
}

// addTree watches dir and every directory below it, and returns the files
// it found in directories it had not watched before (they may have appeared
// before their directory was watched).
func (w *fileWatcher) addTree(dir string) []string {
	var found []string
	fresh := map[string]bool{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			w.log.Warn("file watcher: cannot read", "path", path, "err", err)
			return nil
		}
		if !d.IsDir() {
			if fresh[filepath.Dir(path)] {
				found = append(found, path)
			}
			return nil
		}
		if path != dir && w.skipped(path) {
			return filepath.SkipDir
		}
		w.mu.Lock()
		seen := w.watched[path]
		w.mu.Unlock()
		if seen {
			return nil
		}
		if err := w.fs.Add(path); err != nil {
			w.log.Warn("file watcher: cannot watch", "dir", path, "err", err)
			return filepath.SkipDir
		}
		w.mu.Lock()
		w.watched[path] = true
		w.mu.Unlock()
		fresh[path] = true
		return nil
	})
	return found
}

// forget stops watching the directory at path and those below it: it moved
// away, and inotify watches follow a moved directory, whose events would then
// carry its old name. Renamed files are no watched directory.
func (w *fileWatcher) forget(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.watched[path] {
		return
	}
	for dir := range w.watched {
		if within(path, dir) {
			delete(w.watched, dir)
			w.fs.Remove(dir) // already gone with the directory: ErrNonExistentWatch
		}
	}
}

// close stops watching; no batch is sent after it returns.
func (w *fileWatcher) close() {
	w.fs.Close()
	<-w.done
}

// run turns fsnotify events into batches for send.
func (w *fileWatcher) run() {
	defer close(w.done)
	var b batch
	var flush <-chan time.Time
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.event(&b, ev)
			if flush == nil && len(b.events) > 0 {
				flush = time.After(watchBatch)
			}
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			w.log.Warn("file watcher", "err", err)
		case <-flush:
			flush = nil
			if events := b.take(); len(events) > 0 {
				w.send(events)
			}
		}
	}
}

// event adds what one fsnotify event means to the batch.
func (w *fileWatcher) event(b *batch, ev fsnotify.Event) {
	switch {
	case ev.Has(fsnotify.Create):
		w.match(b, ev.Name, protocol.FileChangeTypeCreated)
		if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() && !w.skipped(ev.Name) {
			for _, f := range w.addTree(ev.Name) {
				w.match(b, f, protocol.FileChangeTypeCreated)
			}
		}
	case ev.Has(fsnotify.Write):
		w.match(b, ev.Name, protocol.FileChangeTypeChanged)
	case ev.Has(fsnotify.Remove):
		w.mu.Lock()
		delete(w.watched, ev.Name) // inotify dropped it; those below had their own events
		w.mu.Unlock()
		w.match(b, ev.Name, protocol.FileChangeTypeDeleted)
	case ev.Has(fsnotify.Rename):
		w.forget(ev.Name)
		w.match(b, ev.Name, protocol.FileChangeTypeDeleted)
	}
}

// match adds the change to the batch if a registered pattern wants it.
func (w *fileWatcher) match(b *batch, path string, t protocol.FileChangeType) {
	kind := protocol.WatchKindCreate
	switch t {
	case protocol.FileChangeTypeChanged:
		kind = protocol.WatchKindChange
	case protocol.FileChangeTypeDeleted:
		kind = protocol.WatchKindDelete
	}
	w.mu.Lock()
	wanted := false
	for _, p := range w.patterns {
		if p.matches(path, kind) {
			wanted = true
			break
		}
	}
	w.mu.Unlock()
	if !wanted {
		return
	}
	uri, err := protocol.FileURI(path)
	if err != nil {
		w.log.Warn("file watcher", "path", path, "err", err)
		return
	}
	b.add(uri, t)
}

// batch gathers file events, one per file, in the order files first changed.
type batch struct {
	events []protocol.FileEvent
	index  map[protocol.DocumentURI]int
}

// add merges a change into the file's pending one: created then changed is
// created, created then deleted is nothing, deleted then created is changed.
func (b *batch) add(uri protocol.DocumentURI, t protocol.FileChangeType) {
	if b.index == nil {
		b.index = map[protocol.DocumentURI]int{}
	}
	i, ok := b.index[uri]
	if !ok {
		b.index[uri] = len(b.events)
		b.events = append(b.events, protocol.FileEvent{URI: uri, Type: t})
		return
	}
	prev := &b.events[i]
	switch {
	case prev.Type == protocol.FileChangeTypeCreated && t == protocol.FileChangeTypeChanged:
		// still new to the server
	case prev.Type == protocol.FileChangeTypeCreated && t == protocol.FileChangeTypeDeleted:
		prev.Type = 0 // never existed as far as the server knows
	case prev.Type == protocol.FileChangeTypeDeleted && t == protocol.FileChangeTypeCreated:
		prev.Type = protocol.FileChangeTypeChanged
	default:
		prev.Type = t
	}
}

// take returns the pending events and empties the batch.
func (b *batch) take() []protocol.FileEvent {
	out := b.events[:0:0]
	for _, e := range b.events {
		if e.Type != 0 {
			out = append(out, e)
		}
	}
	b.events, b.index = nil, nil
	return out
}

// watchFiles starts, updates or stops the file watcher to match the
// server's current workspace/didChangeWatchedFiles registrations.
func (c *Client) watchFiles(regs []protocol.Registration) {
	patterns, errs := watchPatterns(c.cfg.Root, regs)
	for _, err := range errs {
		c.log.Warn("file watcher: ignoring watcher", "err", err)
	}
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	if len(patterns) == 0 {
		if w := c.watcher; w != nil {
			// Closing an fsnotify watcher can take a few hundred
			// milliseconds; the server's unregistration is not kept
			// waiting for it (Shutdown is).
			c.watcher = nil
			c.watchClosing.Add(1)
			go func() {
				defer c.watchClosing.Done()
				w.close()
			}()
		}
		return
	}
	if c.watcher == nil && !c.life.isStopping() {
		w, err := newFileWatcher(c.cfg.Root, c.log, func(events []protocol.FileEvent) {
			err := protocol.DidChangeWatchedFilesNotification.Notify(c.pulls.life, c.conn, protocol.DidChangeWatchedFilesParams{Changes: events})
			if err != nil {
				c.log.Warn("file watcher: notify failed", "err", err)
			}
			c.pulls.kickWorkspace()
		})
		if err != nil {
			c.log.Error("file watcher: cannot start", "err", err)
			return
		}
		c.watcher = w
	}
	if c.watcher != nil {
		c.watcher.setPatterns(patterns)
	}
}
