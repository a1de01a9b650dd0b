package client

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
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
	if foldNames {
		name = strings.ToLower(name) // the glob is lower case too (watchPatterns)
	}
	return doublestar.MatchUnvalidated(p.glob, name)
}

// foldNames says that file names compare without regard to case, as they
// do by default on Windows and macOS: a server's glob "c:/src/**" names
// C:\src's files.
var foldNames = runtime.GOOS == "windows" || runtime.GOOS == "darwin"

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
			if foldNames {
				p.glob = strings.ToLower(p.glob)
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

// DefaultWatchBudget is how many watches a file watcher spends at most
// when its configuration does not say: directories with inotify, open
// descriptors (a directory's and its entries') with kqueue, where the
// process's descriptor limit is the bound (Go raises its soft limit to the
// hard one at start).
const DefaultWatchBudget = 10000

// Polling of what the watcher could not watch: a pass at most every
// pollEvery, and never more often than pollLoad times its own duration.
const (
	pollEvery = 2 * time.Second
	pollLoad  = 10
)

// watchScope is the part of the tree a pattern can match: directories
// under base, at most depth levels down (-1: any depth).
type watchScope struct {
	base  string
	depth int
}

// scopeOf is the part of the tree p can match: the glob's literal leading
// directories, and as deep below them as its remaining separators reach.
func scopeOf(p watchPattern) watchScope {
	static, rest := doublestar.SplitPattern(p.glob)
	base := filepath.Join(p.base, filepath.FromSlash(static))
	if p.base == "" {
		base = filepath.FromSlash(static)
	}
	depth := strings.Count(rest, "/")
	if strings.Contains(rest, "**") || strings.Contains(rest, "{") && depth > 0 {
		depth = -1
	}
	return watchScope{base: base, depth: depth}
}

// fileStamp is what a poll compares: a file's modification time and size.
type fileStamp struct {
	mod  time.Time
	size int64
}

// fileWatcher watches directories on disk with fsnotify and tells the server
// about changes its registered patterns match, in brief batches. Its
// directories are added in the background, only those a pattern can match,
// up to a budget; what it cannot watch (over the budget, or the system's
// limit reached) it polls, and says so in its status.
type fileWatcher struct {
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
	owners   map[any][]watchPattern // each owner's patterns (a client's registrations)
	patterns []watchPattern         // every owner's, together
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

// watcherOptions bound a file watcher: how many directories it watches
// (0: DefaultWatchBudget) and how often it polls at most (0: pollEvery).
type watcherOptions struct {
	budget    int
	pollEvery time.Duration
}

// newFileWatcher starts a watcher over root that passes each batch of
// matching changes to send, from one goroutine, in order.
func newFileWatcher(root string, log *slog.Logger, opts watcherOptions, send func([]protocol.FileEvent)) (*fileWatcher, error) {
	fsw, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return nil, fmt.Errorf("file watcher: %w", err)
	}
	if opts.budget <= 0 {
		opts.budget = DefaultWatchBudget
	}
	if opts.pollEvery <= 0 {
		opts.pollEvery = pollEvery
	}
	w := &fileWatcher{root: root, log: log, send: send, fs: fsw, budget: opts.budget, every: opts.pollEvery,
		done: make(chan struct{}), stop: make(chan struct{}), kick: make(chan struct{}, 1), scanDone: make(chan struct{}),
		watched: map[string]bool{}, polled: map[string]bool{}, stamps: map[string]fileStamp{},
		owners: map[any][]watchPattern{}, passedCh: make(chan struct{})}
	if err := w.setUpBarrier(); err != nil {
		log.Warn("file watcher: no barrier; answers may not reflect the latest changes at once", "err", err)
	}
	go w.run()
	w.bg.Add(2)
	go w.scanner()
	go w.poller()
	return w, nil
}

// setPatterns replaces the registered patterns and has the root's
// directories they can match (skipped ones they name included) watched in
// the background: a server's registration, and the checks behind it, never
// wait for a walk of the tree. Only the workspace root is watched: servers
// also register library trees outside it (pyright: the whole Python
// standard library), which would cost thousands of watches for files that
// do not change during a session.
func (w *fileWatcher) setPatterns(patterns []watchPattern) {
	w.setOwnerPatterns(nil, patterns)
}

// setOwnerPatterns replaces one owner's patterns (none: the owner is
// gone); the watcher watches for every owner's (see setPatterns).
func (w *fileWatcher) setOwnerPatterns(owner any, patterns []watchPattern) {
	w.mu.Lock()
	if len(patterns) == 0 {
		delete(w.owners, owner)
	} else {
		w.owners[owner] = patterns
	}
	var all []watchPattern
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
func (w *fileWatcher) scanner() {
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

// waitScanned waits until the scans asked for so far are done, or ctx ends.
func (w *fileWatcher) waitScanned(ctx context.Context) error {
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

// status says how the watcher is doing, for people: how many directories
// it watches, whether it is still scanning, and why some are polled.
func (w *fileWatcher) status() string {
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

// needed reports whether the directory at path is to be watched (a
// pattern can match files in it, or it leads to where one can) and whether
// the walk must go below it.
func (w *fileWatcher) needed(path string) (watch, descend bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, sc := range w.scopes {
		if within(sc.base, path) {
			if sc.depth < 0 {
				return true, true
			}
			rel, _ := filepath.Rel(sc.base, path)
			d := 0
			if rel != "." {
				d = strings.Count(filepath.ToSlash(rel), "/") + 1
			}
			if d <= sc.depth {
				watch = true
				descend = descend || d < sc.depth
			}
		} else if within(path, sc.base) {
			// An ancestor of the scope: watched too, so that the scope's
			// directory is seen when it is created.
			watch, descend = true, true
		}
	}
	return watch, descend
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

// addTree watches dir and the directories below it that a pattern can
// match, and returns the files it found in directories it had not watched
// or polled before (they may have appeared before their directory was
// watched).
// Beyond the budget, or when the system refuses more watches, a tree is
// polled instead.
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
		select {
		case <-w.stop:
			return filepath.SkipAll
		default:
		}
		if path != dir && w.skipped(path) {
			return filepath.SkipDir
		}
		watch, descend := w.needed(path)
		if !watch {
			if descend {
				return nil
			}
			return filepath.SkipDir
		}
		cost := watchCost(path)
		w.mu.Lock()
		seen, polled, full := w.watched[path], w.polled[path], w.spent+cost > w.budget || w.degraded != ""
		if !seen && !polled && full {
			w.pollLocked(path, fmt.Sprintf("the watch budget of %d %s is spent", w.budget, budgetUnit()))
		}
		w.mu.Unlock()
		switch {
		case !seen && !polled && full:
			found = append(found, w.baseline(path)...)
			return filepath.SkipDir
		case polled:
			return filepath.SkipDir
		case seen:
			return nil
		}
		if err := w.fs.Add(path); err != nil {
			if limit := watchLimit(err); limit != "" {
				w.mu.Lock()
				w.pollLocked(path, limit)
				w.mu.Unlock()
				found = append(found, w.baseline(path)...)
				w.log.Warn("file watcher: degraded, polling the rest", "dir", path, "err", err)
			} else {
				w.log.Warn("file watcher: cannot watch", "dir", path, "err", err)
			}
			return filepath.SkipDir
		}
		w.mu.Lock()
		w.watched[path] = true
		w.spent += cost
		w.mu.Unlock()
		fresh[path] = true
		return nil
	})
	return found
}

// kqueueWatches says fsnotify watches with kqueue here (macOS, the BSDs):
// one open descriptor per watched directory and per file in it.
var kqueueWatches = runtime.GOOS != "linux" && runtime.GOOS != "windows"

// budgetUnit names what the budget counts.
func budgetUnit() string {
	if kqueueWatches {
		return "descriptors"
	}
	return "directories"
}

// watchCost is what watching the directory at path spends of the budget:
// one watch, or with kqueue one descriptor for it and each of its entries.
func watchCost(path string) int {
	if !kqueueWatches {
		return 1
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return 1
	}
	return 1 + len(entries)
}

// pollLocked has the tree at path polled, saying why the first time.
func (w *fileWatcher) pollLocked(path, why string) {
	if w.degraded == "" {
		w.degraded = why
		w.log.Warn("file watcher: degraded, polling the rest", "why", why)
	}
	w.polled[path] = true
}

// watchLimit names the system limit err says was hit, or "".
func watchLimit(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "the system's inotify watch limit is reached (fs.inotify.max_user_watches)"
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return "the open-file limit is reached"
	}
	return ""
}

// poller polls the trees that could not be watched.
func (w *fileWatcher) poller() {
	defer w.bg.Done()
	wait := w.every
	for {
		t := time.NewTimer(wait)
		select {
		case <-w.stop:
			t.Stop()
			return
		case <-t.C:
		}
		start := time.Now()
		if events := w.poll(); len(events) > 0 {
			w.send(events)
		}
		wait = max(w.every, pollLoad*time.Since(start))
	}
}

// poll walks the polled trees and returns the changes to files the
// patterns match since the last pass (or since the tree's baseline).
func (w *fileWatcher) poll() []protocol.FileEvent {
	w.mu.Lock()
	trees := make(map[string]bool, len(w.polled))
	for t := range w.polled {
		trees[t] = true
	}
	w.mu.Unlock()
	if len(trees) == 0 {
		return nil
	}
	now := map[string]fileStamp{}
	for tree := range trees {
		w.stampTree(tree, now)
	}
	inTrees := func(path string) bool {
		for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
			if trees[dir] {
				return true
			}
			if parent := filepath.Dir(dir); parent == dir {
				return false
			}
		}
	}
	var b batch
	w.mu.Lock()
	var created, changed, deleted []string
	for path, st := range now {
		old, ok := w.stamps[path]
		switch {
		case !ok:
			created = append(created, path)
		case old != st:
			changed = append(changed, path)
		}
		w.stamps[path] = st
	}
	for path := range w.stamps {
		if _, ok := now[path]; !ok && inTrees(path) {
			deleted = append(deleted, path)
			delete(w.stamps, path)
		}
	}
	w.mu.Unlock()
	for _, p := range created {
		w.match(&b, p, protocol.FileChangeTypeCreated)
	}
	for _, p := range changed {
		w.match(&b, p, protocol.FileChangeTypeChanged)
	}
	for _, p := range deleted {
		w.match(&b, p, protocol.FileChangeTypeDeleted)
	}
	return b.take()
}

// stampTree records in out the stamps of the files under tree that the
// patterns match, in the directories they can match.
func (w *fileWatcher) stampTree(tree string, out map[string]fileStamp) {
	filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != tree && w.skipped(path) {
				return filepath.SkipDir
			}
			if watch, descend := w.needed(path); !watch && !descend {
				return filepath.SkipDir
			}
			return nil
		}
		if !w.wanted(path, protocol.WatchKindCreate|protocol.WatchKindChange|protocol.WatchKindDelete) {
			return nil
		}
		if info, err := d.Info(); err == nil {
			out[path] = fileStamp{info.ModTime(), info.Size()}
		}
		return nil
	})
}

// baseline records the stamps of a tree that starts being polled (later
// polls report changes from there) and returns its files: news when the
// tree itself is (a directory that just appeared).
func (w *fileWatcher) baseline(tree string) []string {
	now := map[string]fileStamp{}
	w.stampTree(tree, now)
	w.mu.Lock()
	defer w.mu.Unlock()
	files := make([]string, 0, len(now))
	for path, st := range now {
		if _, ok := w.stamps[path]; !ok {
			w.stamps[path] = st
		}
		files = append(files, path)
	}
	return files
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

// setUpBarrier creates the private directory of the barrier's marker and
// watches it with the same kernel queue as the tree.
func (w *fileWatcher) setUpBarrier() error {
	dir, err := os.MkdirTemp("", "lspkit-barrier-")
	if err != nil {
		return fmt.Errorf("barrier directory: %w", err)
	}
	mark := filepath.Join(dir, "0")
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("barrier marker: %w", err)
	}
	if err := w.fs.Add(dir); err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("barrier directory: %w", err)
	}
	w.markDir, w.mark = dir, mark
	return nil
}

// errNoBarrier says the watcher has no barrier: changes are sent in their
// batches, and a flush cannot promise anything.
var errNoBarrier = errors.New("the file watcher has no barrier")

// flush returns once every change the kernel had queued for the watched
// directories when it was called has been read and sent (send returned),
// or ctx ends. A change is queued when its system call returns, so a
// write that finished before flush was called is sent when flush returns.
// What is polled is not covered (see status). The initial scan of the
// tree is waited for: a directory not yet watched queues nothing.
func (w *fileWatcher) flush(ctx context.Context) error {
	if w.markDir == "" {
		return errNoBarrier
	}
	if err := w.waitScanned(ctx); err != nil {
		return err
	}
	for range barrierRounds {
		if err := w.mark1(ctx); err != nil {
			return err
		}
	}
	return nil
}

// barrierRounds is how many marks a flush waits for in turn. With inotify
// one mark is enough: every directory's events share one queue, in order.
// On Windows each directory has its own ReadDirectoryChangesW, reissued
// after its last completion was read: a change made while a directory's
// read was not pending is reported by the reissued read, whose completion
// can follow the mark's. Every reissue of a read whose completion came
// before the first mark happens before that mark is read, so the second
// mark comes after all of them.
var barrierRounds = map[bool]int{true: 2, false: 1}[runtime.GOOS == "windows"]

// mark1 is one round of flush: the marker renamed, and its event awaited.
func (w *fileWatcher) mark1(ctx context.Context) error {
	w.markMu.Lock()
	w.marks++
	n := w.marks
	next := filepath.Join(w.markDir, strconv.FormatUint(n, 10))
	err := os.Rename(w.mark, next)
	if err == nil {
		w.mark = next
	}
	w.markMu.Unlock()
	if err != nil {
		return fmt.Errorf("file watcher barrier: %w", err)
	}
	for {
		w.mu.Lock()
		passed, ch := w.passed >= n, w.passedCh
		w.mu.Unlock()
		if passed {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-w.done:
			return errors.New("file watcher closed")
		}
	}
}

// markOf reports whether ev is a barrier's (the marker renamed to its
// number) and which; other events in the marker's directory are nobody's.
func (w *fileWatcher) markOf(ev fsnotify.Event) (uint64, bool) {
	if w.markDir == "" || filepath.Dir(ev.Name) != w.markDir {
		return 0, false
	}
	if !ev.Has(fsnotify.Create) {
		return 0, true // the marker's old name going: not a barrier
	}
	n, err := strconv.ParseUint(filepath.Base(ev.Name), 10, 64)
	if err != nil {
		return 0, true
	}
	return n, true
}

// pass records that barrier n (and those before it) has been read.
func (w *fileWatcher) pass(n uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n <= w.passed {
		return
	}
	w.passed = n
	close(w.passedCh)
	w.passedCh = make(chan struct{})
}

// lostEvents reports, once, that the kernel's queue overflowed since the
// last call: some changes were never seen.
func (w *fileWatcher) lostEvents() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	lost := w.overflow
	w.overflow = false
	return lost
}

// degradedReason says why part of the tree is polled, or "".
func (w *fileWatcher) degradedReason() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.degraded
}

// close stops watching; no batch is sent after it returns.
func (w *fileWatcher) close() {
	close(w.stop)
	w.bg.Wait()
	w.fs.Close()
	<-w.done
	if w.markDir != "" {
		os.RemoveAll(w.markDir)
	}
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
	if !w.wanted(path, kind) {
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
func (w *fileWatcher) wanted(path string, kinds protocol.WatchKind) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.patterns {
		if p.matches(path, kinds) {
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

// watchFiles starts, updates or stops the file watcher to match the
// server's current workspace/didChangeWatchedFiles registrations. With a
// shared Watcher (Config.Watcher) the patterns go to it instead, and the
// changes come back through FilesChanged.
func (c *Client) watchFiles(regs []protocol.Registration) {
	patterns, errs := watchPatterns(c.cfg.Root, regs)
	for _, err := range errs {
		c.log.Warn("file watcher: ignoring watcher", "err", err)
	}
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	if shared := c.cfg.Watcher; shared != nil {
		if c.life.isStopping() {
			return
		}
		c.patterns = patterns
		shared.w.setOwnerPatterns(c, patterns)
		return
	}
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
		w, err := newFileWatcher(c.cfg.Root, c.log, watcherOptions{budget: c.cfg.WatchBudget}, func(events []protocol.FileEvent) {
			if err := c.notifyWatched(c.pulls.life, events); err != nil {
				c.log.Warn("file watcher: notify failed", "err", err)
			}
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

// notifyWatched sends the server one workspace/didChangeWatchedFiles
// notification with events.
func (c *Client) notifyWatched(ctx context.Context, events []protocol.FileEvent) error {
	err := protocol.DidChangeWatchedFilesNotification.Notify(ctx, c.conn, protocol.DidChangeWatchedFilesParams{Changes: events})
	c.pulls.kickWorkspace()
	return err
}

// FilesChanged tells the server, in one workspace/didChangeWatchedFiles
// notification, about the changes its registrations want (for a client
// given a shared Watcher, whose batches its owner passes here), and
// returns the changes no registration of the server wants: the caller may
// bring those files to the server as documents.
func (c *Client) FilesChanged(ctx context.Context, events []protocol.FileEvent) ([]protocol.FileEvent, error) {
	c.watchMu.Lock()
	patterns := c.patterns
	c.watchMu.Unlock()
	var wanted, rest []protocol.FileEvent
	for _, e := range events {
		if path, err := e.URI.Path(); err == nil && matchesAny(patterns, path, watchKindOf(e.Type)) {
			wanted = append(wanted, e)
		} else {
			rest = append(rest, e)
		}
	}
	if len(wanted) == 0 || c.life.isStopping() {
		return rest, nil
	}
	if err := c.notifyWatched(ctx, wanted); err != nil {
		return rest, fmt.Errorf("client: %s: file changes: %w", c.cfg.Name, err)
	}
	return rest, nil
}

// WatchesFiles reports whether the server registered for file changes.
func (c *Client) WatchesFiles() bool {
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	return len(c.patterns) > 0 || c.watcher != nil
}

// watchKindOf is the watch kind a change is.
func watchKindOf(t protocol.FileChangeType) protocol.WatchKind {
	switch t {
	case protocol.FileChangeTypeChanged:
		return protocol.WatchKindChange
	case protocol.FileChangeTypeDeleted:
		return protocol.WatchKindDelete
	}
	return protocol.WatchKindCreate
}

// matchesAny reports whether one of patterns wants a change of kind to
// the file at path.
func matchesAny(patterns []watchPattern, path string, kind protocol.WatchKind) bool {
	for _, p := range patterns {
		if p.matches(path, kind) {
			return true
		}
	}
	return false
}

// A Watcher watches a workspace's files for the language servers of that
// workspace: one kernel queue (inotify, kqueue, ReadDirectoryChangesW) for
// the whole tree, every directory below the root except .git and
// node_modules (unless a server's registered pattern names them), within a
// budget, the rest polled. Clients given it (Config.Watcher) add their
// registered patterns; its owner passes each batch of changes to each
// client's FilesChanged. Flush is the barrier that makes an answer reflect
// every change that finished before the question.
type Watcher struct{ w *fileWatcher }

// WatcherOptions bound a Watcher.
type WatcherOptions struct {
	// Budget is how many watches it spends at most: directories with
	// inotify and ReadDirectoryChangesW, open descriptors with kqueue
	// (0: DefaultWatchBudget). Beyond it the rest of the tree is polled.
	Budget int
	// PollEvery is the shortest time between two polls (0: 2 s).
	PollEvery time.Duration
}

// treeOwner owns the Watcher's own pattern: every file under the root.
type treeOwner struct{}

// NewWatcher starts watching root in the background, passing each batch
// of changes to send, from one goroutine, in order.
func NewWatcher(root string, log *slog.Logger, opts WatcherOptions, send func([]protocol.FileEvent)) (*Watcher, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	fw, err := newFileWatcher(root, log, watcherOptions{budget: opts.Budget, pollEvery: opts.PollEvery}, send)
	if err != nil {
		return nil, err
	}
	all := protocol.WatchKindCreate | protocol.WatchKindChange | protocol.WatchKindDelete
	fw.setOwnerPatterns(treeOwner{}, []watchPattern{{base: root, glob: "**", kind: all}})
	return &Watcher{w: fw}, nil
}

// Flush is the barrier: it returns once every change that the kernel had
// queued when it was called — every write, create, delete and rename
// under the watched directories whose system call had returned — has been
// passed to send (and send has returned), or ctx ends. It first waits for
// the initial scan of the tree. Changes in polled parts of the tree (see
// Degraded) are not covered; with kqueue and ReadDirectoryChangesW, whose
// queues are per directory, the order across directories is the system's.
func (w *Watcher) Flush(ctx context.Context) error { return w.w.flush(ctx) }

// Degraded says why part of the tree is polled instead of watched (the
// budget or the system's limit), or "" when all of it is watched.
func (w *Watcher) Degraded() string { return w.w.degradedReason() }

// LostEvents reports, once, that the kernel's queue overflowed since the
// last call, so that some changes were never seen: the caller re-reads
// what it holds.
func (w *Watcher) LostEvents() bool { return w.w.lostEvents() }

// PollEvery is the shortest time between two polls of the polled part.
func (w *Watcher) PollEvery() time.Duration { return w.w.every }

// Status says how the watcher is doing, for people: how many directories
// it watches, whether it is still scanning, and why some are polled.
func (w *Watcher) Status() string { return w.w.status() }

// Close stops watching; no batch is sent after it returns.
func (w *Watcher) Close() { w.w.close() }

// WatchStatus says how the file watcher is doing: "" when none runs (the
// server registered no watched files), else how many directories it
// watches, whether it is still scanning, and whether watching is degraded
// (some of the tree polled) and why.
func (c *Client) WatchStatus() string {
	c.watchMu.Lock()
	w, shared, registered := c.watcher, c.cfg.Watcher, len(c.patterns) > 0
	c.watchMu.Unlock()
	switch {
	case w != nil:
		return w.status()
	case shared != nil && registered:
		return shared.Status()
	}
	return ""
}
