package filewatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/fsnotify/fsnotify"
)

// setUpBarrier creates the private directory of the barrier's marker and
// watches it with the same kernel queue as the tree.
func (w *Watcher) setUpBarrier() error {
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

// Flush is the barrier: it returns once every change that the kernel had
// queued when it was called — every write, create, delete and rename
// under the watched directories whose system call had returned — has been
// passed to send (and send has returned), or ctx ends. It first waits for
// the initial scan of the tree. Changes in polled parts of the tree (see
// Degraded) are not covered; with kqueue and ReadDirectoryChangesW, whose
// queues are per directory, the order across directories is the system's.
func (w *Watcher) Flush(ctx context.Context) error {
	if w.markDir == "" {
		return errNoBarrier
	}
	if err := w.WaitScanned(ctx); err != nil {
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
func (w *Watcher) mark1(ctx context.Context) error {
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
func (w *Watcher) markOf(ev fsnotify.Event) (uint64, bool) {
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
func (w *Watcher) pass(n uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n <= w.passed {
		return
	}
	w.passed = n
	close(w.passedCh)
	w.passedCh = make(chan struct{})
}
