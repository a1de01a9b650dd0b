// Package filewatch watches a workspace's files for its language servers:
// the patterns servers register (workspace/didChangeWatchedFiles), the
// watched tree within a budget, the poller for what cannot be watched,
// and the barrier (Flush) that makes an answer reflect every change that
// finished before the question. Modelled on gopls's
// internal/filewatcher: one job here, the client's use of it in client.
package filewatch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/lspkit/lspkit/protocol"
)

// A Watcher watches a workspace's files for the language servers of that
// workspace: one kernel queue (inotify, kqueue, ReadDirectoryChangesW) for
// the tree, only the directories its owners' patterns can match, and never
// .git and node_modules unless a pattern names them; within a budget, the
// rest polled (see Status). Each owner (a client, for its server's
// registrations; NewTree's own for the whole tree) sets its patterns;
// each batch of the changes they match goes to send. Flush is the barrier
// that makes an answer reflect every change that finished before the
// question.
type Watcher struct {
	root   string
	log    *slog.Logger
	send   func([]protocol.FileEvent)
	fs     *fsnotify.Watcher
	budget int
	every  time.Duration // the shortest time between polls
	done   chan struct{} // closed when run returns
	stop   chan struct{} // closed by close: the scanner and poller end
	kick   chan struct{} // a scan is wanted
	bg     sync.WaitGroup

	// The barrier (flush): a file in a private directory watched by the
	// same kernel queue is renamed to a new sequence number; when that
	// rename's event is read, every event queued before it has been read
	// and sent.
	markDir string     // "" when the barrier could not be set up
	markMu  sync.Mutex // orders the renames
	mark    string     // the marker file's current path
	marks   uint64     // barriers begun

	mu       sync.Mutex
	owners   map[any][]Pattern // each owner's patterns (a client's registrations)
	patterns []Pattern         // every owner's, together
	scopes   []watchScope
	passed   uint64               // the last barrier whose event was read
	passedCh chan struct{}        // closed (and replaced) when passed advances
	overflow bool                 // the kernel's queue overflowed since the last check: events were lost
	watched  map[string]bool      // directories being watched
	spent    int                  // of the budget: watches (inotify) or descriptors (kqueue)
	polled   map[string]bool      // trees polled instead (over budget or limit)
	stamps   map[string]fileStamp // polled files the patterns match, as last seen
	degraded string               // why some of the tree is polled
	asked    uint64               // scans asked for
	scanned  uint64               // scans finished
	scanDone chan struct{}        // closed (and replaced) when a scan finishes
}

// DefaultBudget is how many watches a file watcher spends at most
// when its configuration does not say: directories with inotify, open
// descriptors (a directory's and its entries') with kqueue, where the
// process's descriptor limit is the bound (Go raises its soft limit to the
// hard one at start).
const DefaultBudget = 10000

// Options bound a Watcher.
type Options struct {
	// Budget is how many watches it spends at most: directories with
	// inotify and ReadDirectoryChangesW, open descriptors with kqueue
	// (0: DefaultBudget). Beyond it the rest of the tree is polled.
	Budget int
	// PollEvery is the shortest time between two polls (0: 2 s).
	PollEvery time.Duration
}

// New starts a watcher over root, watching nothing until an owner sets
// patterns (SetPatterns), that passes each batch of the changes they
// match to send, from one goroutine, in order.
func New(root string, log *slog.Logger, opts Options, send func([]protocol.FileEvent)) (*Watcher, error) {
	fsw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return nil, fmt.Errorf("file watcher: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	if opts.PollEvery <= 0 {
		opts.PollEvery = defaultPollEvery
	}
	w := &Watcher{root: root, log: log, send: send, fs: fsw, budget: opts.Budget, every: opts.PollEvery,
		done: make(chan struct{}), stop: make(chan struct{}), kick: make(chan struct{}, 1), scanDone: make(chan struct{}),
		watched: map[string]bool{}, polled: map[string]bool{}, stamps: map[string]fileStamp{},
		owners: map[any][]Pattern{}, passedCh: make(chan struct{})}
	if err := w.setUpBarrier(); err != nil {
		log.Warn("file watcher: no barrier; answers may not reflect the latest changes at once", "err", err)
	}
	go w.run()
	w.bg.Add(2)
	go w.scanner()
	go w.poller()
	return w, nil
}

// treeOwner owns the Watcher's own pattern: every file under the root.
type treeOwner struct{}

// NewTree is New watching every file under root, for the language
// servers of a workspace: clients add their servers' patterns
// (SetPatterns), and the owner passes each batch to each client, which
// tells its server what its patterns want.
func NewTree(root string, log *slog.Logger, opts Options, send func([]protocol.FileEvent)) (*Watcher, error) {
	w, err := New(root, log, opts, send)
	if err != nil {
		return nil, err
	}
	all := protocol.WatchKindCreate | protocol.WatchKindChange | protocol.WatchKindDelete
	w.SetPatterns(treeOwner{}, []Pattern{{base: root, glob: "**", kind: all}})
	return w, nil
}

// SetPatterns replaces one owner's patterns (none: the owner is gone);
// the watcher watches for every owner's. The root's directories they can
// match (skipped ones they name included) are watched in the background:
// a server's registration, and the checks behind it, never wait for a
// walk of the tree. Only the root is watched: servers also register
// library trees outside it (pyright: the whole Python standard library),
// which would cost thousands of watches for files that do not change
// during a session.
func (w *Watcher) SetPatterns(owner any, patterns []Pattern) {
	w.mu.Lock()
	if len(patterns) == 0 {
		delete(w.owners, owner)
	} else {
		w.owners[owner] = patterns
	}
	var all []Pattern
	for _, ps := range w.owners {
		for _, p := range ps {
			if !slices.Contains(all, p) {
				all = append(all, p)
			}
		}
	}
	scopes := make([]watchScope, 0, len(all))
	for _, p := range all {
		scopes = append(scopes, scopeOf(p))
	}
	w.patterns, w.scopes = all, scopes
	w.asked++
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default: // a scan is already wanted
	}
}

// scanner walks the tree whenever the patterns change.
func (w *Watcher) scanner() {
	defer w.bg.Done()
	for {
		select {
		case <-w.stop:
			return
		case <-w.kick:
		}
		w.mu.Lock()
		asked := w.asked
		w.mu.Unlock()
		w.addTree(w.root)
		w.mu.Lock()
		w.scanned = asked
		close(w.scanDone)
		w.scanDone = make(chan struct{})
		w.mu.Unlock()
	}
}

// WaitScanned waits until the walks of the tree that the patterns set so
// far call for are done, or ctx ends.
func (w *Watcher) WaitScanned(ctx context.Context) error {
	for {
		w.mu.Lock()
		done, ch := w.scanned >= w.asked, w.scanDone
		w.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-w.stop:
			return errors.New("file watcher closed")
		}
	}
}

// Status says how the watcher is doing, for people: how many directories
// it watches, whether it is still scanning, and why some are polled.
func (w *Watcher) Status() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := fmt.Sprintf("%d directories", len(w.watched))
	if w.scanned < w.asked {
		s += ", scanning"
	}
	if w.degraded != "" {
		s = fmt.Sprintf("degraded: %s; %s watched, %d trees polled every %s or more", w.degraded, s, len(w.polled), w.every)
	}
	return s
}

// LostEvents reports, once, that the kernel's queue overflowed since the
// last call: some changes were never seen.
func (w *Watcher) LostEvents() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	lost := w.overflow
	w.overflow = false
	return lost
}

// Degraded says why part of the tree is polled, or "".
func (w *Watcher) Degraded() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.degraded
}

// PollEvery is the shortest time between two polls of the polled part.
func (w *Watcher) PollEvery() time.Duration { return w.every }

// Watched lists the directories w watches (its barrier's aside): none
// once it is closed.
func (w *Watcher) Watched() []string {
	var out []string
	for _, d := range w.fs.WatchList() {
		if d != w.markDir {
			out = append(out, d)
		}
	}
	return out
}

// Close stops watching; no batch is sent after it returns.
func (w *Watcher) Close() {
	close(w.stop)
	w.bg.Wait()
	w.fs.Close()
	<-w.done
	if w.markDir != "" {
		os.RemoveAll(w.markDir)
	}
}
