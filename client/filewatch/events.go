package filewatch

import (
	"errors"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/lspkit/lspkit/protocol"
)

// watchBatch is how long file events gather before they go to the server in
// one workspace/didChangeWatchedFiles notification.
const watchBatch = 50 * time.Millisecond

// run turns fsnotify events into batches for send.
func (w *Watcher) run() {
	defer close(w.done)
	var b batch
	var flush <-chan time.Time
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			if n, ok := w.markOf(ev); ok {
				if n > 0 {
					// A barrier: everything before it is read; send it now.
					if events := b.take(); len(events) > 0 {
						w.send(events)
					}
					flush = nil
					w.pass(n)
				}
				continue
			}
			w.event(&b, ev)
			if flush == nil && len(b.events) > 0 {
				flush = time.After(watchBatch)
			}
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.mu.Lock()
				w.overflow = true
				w.mu.Unlock()
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
func (w *Watcher) event(b *batch, ev fsnotify.Event) {
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
		if info, err := os.Lstat(ev.Name); err == nil {
			// Moved away, and something is there again: a swap of two
			// names (renameat2's RENAME_EXCHANGE, as lspkit's checked
			// writes do), whose other half (a create) came first. The
			// file changed; it is not gone.
			w.match(b, ev.Name, protocol.FileChangeTypeChanged)
			if info.IsDir() && !w.skipped(ev.Name) {
				for _, f := range w.addTree(ev.Name) {
					w.match(b, f, protocol.FileChangeTypeCreated)
				}
			}
			return
		}
		w.match(b, ev.Name, protocol.FileChangeTypeDeleted)
	}
}

// match adds the change to the batch if a registered pattern wants it.
func (w *Watcher) match(b *batch, path string, t protocol.FileChangeType) {
	if !w.wanted(path, KindOf(t)) {
		return
	}
	uri, err := protocol.FileURI(path)
	if err != nil {
		w.log.Warn("file watcher", "path", path, "err", err)
		return
	}
	b.add(uri, t)
}

// wanted reports whether a registered pattern wants a change of one of
// kinds to the file at path.
func (w *Watcher) wanted(path string, kinds protocol.WatchKind) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.patterns {
		if p.Matches(path, kinds) {
			return true
		}
	}
	return false
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
