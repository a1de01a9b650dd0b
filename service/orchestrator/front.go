package orchestrator

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/registry"
)

// OnFilesChanged calls fn with the paths of each batch of changes the
// workspace's file watcher sees, once the servers have been told of them;
// stop ends the calls. fn runs on the watcher's goroutine and must not
// block. Without a watcher (a one-shot orchestrator) it is never called.
func (o *Orchestrator) OnFilesChanged(fn func(paths []string)) (stop func()) {
	return o.listeners.add(fn)
}

// serverEvent is one server's event, for OnServerEvent's callbacks.
type serverEvent struct {
	server string
	e      client.Event
}

// OnServerEvent calls fn with what each server tells a user — its
// work-done progress, the messages it shows — and the server's id; stop
// ends the calls. fn runs on the server's reading path, in order, and
// must not block.
func (o *Orchestrator) OnServerEvent(fn func(server string, e client.Event)) (stop func()) {
	return o.watchers.add(func(ev serverEvent) { fn(ev.server, ev.e) })
}

// tellListeners passes a batch of the watcher's changes to OnFilesChanged's
// listeners.
func (o *Orchestrator) tellListeners(events []protocol.FileEvent) {
	if o.listeners.empty() {
		return
	}
	paths := make([]string, 0, len(events))
	for _, e := range events {
		if p, err := e.URI.Path(); err == nil {
			paths = append(paths, p)
		}
	}
	o.listeners.tell(paths)
}

// callbacks are the functions a front end registered for one kind of
// news, each until its stop.
type callbacks[T any] struct {
	mu   sync.Mutex
	fns  map[int]func(T)
	next int
}

// add registers fn; stop unregisters it.
func (c *callbacks[T]) add(fn func(T)) (stop func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fns == nil {
		c.fns = map[int]func(T){}
	}
	id := c.next
	c.next++
	c.fns[id] = fn
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.fns, id)
	}
}

func (c *callbacks[T]) empty() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.fns) == 0
}

// tell calls every registered function with v, outside the lock.
func (c *callbacks[T]) tell(v T) {
	c.mu.Lock()
	fns := slices.Collect(maps.Values(c.fns))
	c.mu.Unlock()
	for _, fn := range fns {
		fn(v)
	}
}

// frontRoot is the root a front end's server runs in — its root for a
// file at the workspace root — and whether a root marker was found.
func (o *Orchestrator) frontRoot(spec *registry.Spec) (string, bool) {
	probe := filepath.Join(o.root, "_")
	if len(spec.Extensions) > 0 {
		probe += spec.Extensions[0]
	}
	return o.serverRoot(spec, probe)
}

// A Started server is one a front end announced at its start.
type Started struct {
	Server       string
	Capabilities *protocol.ServerCapabilities
	// Reason says why it is not running (nil Capabilities).
	Reason string
}

// StartServers starts the servers named (none: every enabled server with
// one of its root markers at the root, a file of its own under it, and its
// command found — none is installed for want of a name) for the root and
// waits, within ctx,
// until each has answered initialize: a front end announces their
// capabilities' union. A server disabled, unknown, or needing a root marker
// the root lacks is left out, with its reason.
func (o *Orchestrator) StartServers(ctx context.Context, ids []string) []Started {
	if len(ids) == 0 {
		ids = slices.Sorted(maps.Keys(o.rootServers(func(id string) bool {
			_, found := o.store.Find(o.specs[id])
			return found
		})))
	}
	var out []Started
	for _, id := range ids {
		spec, ok := o.specs[id]
		switch {
		case !ok:
			out = append(out, Started{Server: id, Reason: "no such server"})
			continue
		case !spec.Enabled:
			out = append(out, Started{Server: id, Reason: "disabled by the configuration"})
			continue
		}
		root, found := o.frontRoot(spec)
		if !found && spec.RequireMarker {
			out = append(out, Started{Server: id, Reason: fmt.Sprintf("no %v at the root", spec.RootMarkers)})
			continue
		}
		s, err := o.session(target{spec: spec, root: root})
		if err != nil {
			out = append(out, Started{Server: id, Reason: err.Error()})
			continue
		}
		c, verdict, reason := s.await(ctx)
		if c == nil {
			out = append(out, Started{Server: id, Reason: fmt.Sprintf("%s: %s", verdict, reason)})
			continue
		}
		caps := c.ServerCapabilities()
		out = append(out, Started{Server: id, Capabilities: &caps})
	}
	return out
}
