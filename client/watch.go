package client

import (
	"context"
	"fmt"

	"github.com/lspkit/lspkit/client/filewatch"
	"github.com/lspkit/lspkit/protocol"
)

// watchFiles starts, updates or stops the file watcher to match the
// server's current workspace/didChangeWatchedFiles registrations. With a
// shared Watcher (Config.Watcher) the patterns go to it instead, and the
// changes come back through FilesChanged.
func (c *Client) watchFiles(regs []protocol.Registration) {
	patterns, errs := filewatch.Patterns(c.cfg.Root, regs)
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
		shared.SetPatterns(c, patterns)
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
				w.Close()
			}()
		}
		return
	}
	if c.watcher == nil && !c.life.isStopping() {
		w, err := filewatch.New(c.cfg.Root, c.log, filewatch.Options{Budget: c.cfg.WatchBudget}, func(events []protocol.FileEvent) {
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
		c.watcher.SetPatterns(c, patterns)
	}
}

// notifyWatched sends the server one workspace/didChangeWatchedFiles
// notification with events.
func (c *Client) notifyWatched(ctx context.Context, events []protocol.FileEvent) error {
	c.inputChanged()
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
		if path, err := e.URI.Path(); err == nil && filewatch.MatchesAny(patterns, path, filewatch.KindOf(e.Type)) {
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
		return w.Status()
	case shared != nil && registered:
		return shared.Status()
	}
	return ""
}
