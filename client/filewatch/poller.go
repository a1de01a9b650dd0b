package filewatch

import (
	"io/fs"
	"path/filepath"
	"time"

	"github.com/lspkit/lspkit/protocol"
)

// Polling of what the watcher could not watch: a pass at most every
// defaultPollEvery, and never more often than pollLoad times its own duration.
const (
	defaultPollEvery = 2 * time.Second
	pollLoad         = 10
)

// fileStamp is what a poll compares: a file's modification time and size.
type fileStamp struct {
	mod  time.Time
	size int64
}

// poller polls the trees that could not be watched.
func (w *Watcher) poller() {
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
func (w *Watcher) poll() []protocol.FileEvent {
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
func (w *Watcher) stampTree(tree string, out map[string]fileStamp) {
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
func (w *Watcher) baseline(tree string) []string {
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
