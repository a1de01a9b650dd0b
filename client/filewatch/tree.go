package filewatch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// skippedDirs are not watched unless a registered pattern names them: they
// hold many files no server needs to hear about.
var skippedDirs = [...]string{".git", "node_modules"}

// needed reports whether the directory at path is to be watched (a
// pattern can match files in it, or it leads to where one can) and whether
// the walk must go below it.
func (w *Watcher) needed(path string) (watch, descend bool) {
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
func (w *Watcher) skipped(path string) bool {
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
func (w *Watcher) addTree(dir string) []string {
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
func (w *Watcher) pollLocked(path, why string) {
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

// forget stops watching the directory at path and those below it: it moved
// away, and inotify watches follow a moved directory, whose events would then
// carry its old name. Renamed files are no watched directory.
func (w *Watcher) forget(path string) {
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
