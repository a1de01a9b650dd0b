package shared

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/features"
)

// goneEvery is how often the roots a daemon serves are looked for on disk:
// a worktree removed (git worktree remove) is dropped within it.
const goneEvery = time.Second

// roots are the workspace roots one daemon serves — the worktrees of one
// repository — each its own service (documents, findings, configuration,
// read-your-writes barrier), opened when its first client attaches,
// closed when none has been attached for the idle period or when the
// root is no longer on disk. Serve's one-root daemon is roots with one.
type roots struct {
	open func(root string) (*features.Service, error)
	idle time.Duration
	log  *slog.Logger

	mu     sync.Mutex
	byRoot map[string]*rootEntry
	closed bool
}

// rootEntry is one open root.
type rootEntry struct {
	root    string
	ready   chan struct{} // closed when open has returned
	svc     *features.Service
	err     error
	clients int
	timer   *time.Timer    // the idle clock, while no client is attached
	conns   map[any]func() // the attached clients' ends, to close when the root goes
	own     bool           // the daemon's own root: open as long as the daemon runs
}

// acquire returns the service for root, opening it on first use, and the
// function that says the client has left it; end closes the client's
// connection if the root is dropped while it is attached.
func (r *roots) acquire(root string, client any, end func()) (*features.Service, func(), error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, nil, fmt.Errorf("shared: the daemon is closing")
	}
	e := r.byRoot[root]
	if e == nil {
		e = &rootEntry{root: root, ready: make(chan struct{}), conns: map[any]func(){}}
		r.byRoot[root] = e
		go func() {
			defer close(e.ready)
			e.svc, e.err = r.open(root)
			if e.err != nil {
				r.mu.Lock()
				if r.byRoot[root] == e {
					delete(r.byRoot, root) // the next client tries again
				}
				r.mu.Unlock()
			}
		}()
	}
	e.clients++
	e.conns[client] = end
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	r.mu.Unlock()
	<-e.ready
	release := sync.OnceFunc(func() { r.release(e, client) })
	if e.err != nil {
		release()
		return nil, nil, e.err
	}
	return e.svc, release, nil
}

// release counts a client out of e and starts its idle clock when it was
// the last.
func (r *roots) release(e *rootEntry, client any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.clients--
	delete(e.conns, client)
	if e.clients > 0 || r.closed || r.byRoot[e.root] != e || e.svc == nil || e.own {
		return
	}
	e.timer = time.AfterFunc(r.idle, func() {
		r.mu.Lock()
		if e.clients > 0 || r.byRoot[e.root] != e {
			r.mu.Unlock()
			return
		}
		delete(r.byRoot, e.root)
		r.mu.Unlock()
		r.log.Info("shared daemon: root closed: no client attached", "root", e.root, "for", r.idle)
		e.svc.Shutdown(context.Background())
	})
}

// watchGone drops each root that is no longer on disk — its clients'
// connections ended, its servers stopped — until ctx ends; the other
// roots go on undisturbed.
func (r *roots) watchGone(ctx context.Context) {
	t := time.NewTicker(goneEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, e := range r.opened() {
			if info, err := os.Stat(e.root); err == nil && info.IsDir() {
				continue
			}
			r.mu.Lock()
			if r.byRoot[e.root] != e {
				r.mu.Unlock()
				continue
			}
			delete(r.byRoot, e.root)
			if e.timer != nil {
				e.timer.Stop()
			}
			ends := slices.Collect(maps.Values(e.conns))
			r.mu.Unlock()
			r.log.Info("shared daemon: root dropped: it is no longer on disk", "root", e.root, "clients", len(ends))
			for _, end := range ends {
				end()
			}
			e.svc.Shutdown(context.Background())
		}
	}
}

// opened returns the roots open now (their services ready), by root.
func (r *roots) opened() []*rootEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*rootEntry
	for _, k := range slices.Sorted(maps.Keys(r.byRoot)) {
		e := r.byRoot[k]
		select {
		case <-e.ready:
			if e.svc != nil {
				out = append(out, e)
			}
		default:
		}
	}
	return out
}

// list returns the roots open now, sorted.
func (r *roots) list() []string {
	var out []string
	for _, e := range r.opened() {
		out = append(out, e.root)
	}
	return out
}

// status is root's servers as lsp/status gives them; none when root is not
// open in the daemon.
func (r *roots) status(root string) []api.ServerStatus {
	for _, e := range r.opened() {
		if e.root == root {
			return e.svc.Status()
		}
	}
	return []api.ServerStatus{}
}

// shutdown closes every root: no more are opened, each service's servers
// are shut down (those being opened, once open).
func (r *roots) shutdown(ctx context.Context) {
	r.mu.Lock()
	r.closed = true
	entries := slices.Collect(maps.Values(r.byRoot))
	clear(r.byRoot)
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range entries {
		if e.timer != nil {
			e.timer.Stop()
		}
		wg.Go(func() {
			<-e.ready
			if e.svc != nil {
				e.svc.Shutdown(ctx)
			}
		})
	}
	wg.Wait()
}
