package shared

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/lspserver"
	"github.com/lspkit/lspkit/service/mcpserver"
	"github.com/lspkit/lspkit/service/rpc"
)

// ServeOptions configures Serve.
type ServeOptions struct {
	// Version is lspkit's version: clients of another version are refused.
	Version string
	// Logger receives the daemon's log; nil discards it.
	Logger *slog.Logger
	// Env is the servers' environment, completed by each client's (nil:
	// the daemon's own alone).
	Env *ServerEnv
	// IdleExit is how long the daemon lives with no client attached
	// (counted from its start too, but never less than the hello's
	// timeout then, so that its starter can attach); 0 exits as the last
	// client leaves. A root other than the daemon's own is closed after
	// as long without a client.
	IdleExit time.Duration
	// Open opens the service for another root a client names — a
	// worktree of the daemon's repository — or says why it will not; nil
	// serves the daemon's own root alone.
	Open func(root string) (*features.Service, error)
}

// Serve answers the clients that attach on l, each on its surface and as
// its own caller of the service for its root (see orchestrator.Attach): o
// for the daemon's own root, and for each other root a client names (a
// worktree of the same repository) the service opts.Open opens on its
// first client, until no client has been attached for opts.IdleExit or
// ctx ends. A root no longer on disk is dropped (its clients' connections
// ended, its servers stopped) without disturbing the others. Then it stops
// listening (the socket removed, the lock let go), ends the connections
// still open, shuts every root's servers down and returns.
func Serve(ctx context.Context, o *features.Service, l *Listener, opts ServeOptions) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	open := opts.Open
	if open == nil {
		open = func(root string) (*features.Service, error) {
			return nil, fmt.Errorf("this daemon serves %s alone, not %s", o.Root(), root)
		}
	}
	own := &rootEntry{root: o.Root(), ready: make(chan struct{}), svc: o, conns: map[any]func(){}, own: true}
	close(own.ready)
	rs := &roots{open: open, idle: opts.IdleExit, log: opts.Logger, byRoot: map[string]*rootEntry{o.Root(): own}}
	s := &server{o: o, roots: rs, opts: opts, ctx: ctx, conns: map[net.Conn]bool{}, clients: map[net.Conn]ClientInfo{}, started: time.Now(), idle: make(chan struct{}, 1)}
	first := max(opts.IdleExit, helloTimeout)
	s.idleUntil(time.Now().Add(first)) // no one yet: the idle clock runs from the start, long enough for its starter to attach
	var wg conc.WaitGroup
	wg.Go(func() { rs.watchGone(ctx) })
	accepted := make(chan error, 1)
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				accepted <- err
				return
			}
			if !s.join(c) {
				c.Close()
				accepted <- nil
				return
			}
			wg.Go(func() { s.serve(c) })
		}
	})
	var err error
	select {
	case <-s.idle:
		opts.Logger.Info("shared daemon: no client attached", "for", opts.IdleExit)
	case <-ctx.Done():
	case err = <-accepted:
		err = fmt.Errorf("shared: accept: %w", err)
	}
	s.shut()
	l.Close()
	cancel()
	wg.Wait()
	rs.shutdown(context.Background())
	return err
}

// server is Serve's state.
type server struct {
	o     *features.Service // the daemon's own root's
	roots *roots
	opts  ServeOptions
	ctx   context.Context

	mu      sync.Mutex
	conns   map[net.Conn]bool // attached or saying hello
	clients map[net.Conn]ClientInfo
	started time.Time
	// idleEnds is when the current idle period ends, if no client
	// attaches before.
	idleEnds time.Time
	closed   bool
	timer    *time.Timer
	idle     chan struct{} // gets a value when the daemon has been idle for IdleExit
}

// join counts c in; false when the daemon is closing.
func (s *server) join(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = true
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	return true
}

// leave counts c out. A connection that never attached (a status query,
// a refused hello) does not restart the idle clock: the idle period it
// interrupted goes on to its end.
func (s *server) leave(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	_, attached := s.clients[c]
	delete(s.clients, c)
	end := s.idleEnds
	s.mu.Unlock()
	if attached || end.IsZero() {
		s.left()
		return
	}
	s.idleUntil(end)
}

// left starts the idle clock when no client is attached.
func (s *server) left() { s.idleUntil(time.Now().Add(s.opts.IdleExit)) }

// idleUntil starts the idle clock, to run out at end, when no client is
// attached.
func (s *server) idleUntil(end time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.conns) > 0 || s.closed || s.timer != nil {
		return
	}
	s.idleEnds = end
	var t *time.Timer
	t = time.AfterFunc(max(time.Until(end), 0), func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.timer != t || len(s.conns) > 0 {
			return // someone attached since
		}
		s.closed = true
		select {
		case s.idle <- struct{}{}:
		default:
		}
	})
	s.timer = t
}

// shut refuses new clients and closes the open connections.
func (s *server) shut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
}

// serve answers one client: its hello, then its surface until it leaves.
func (s *server) serve(c net.Conn) {
	defer s.leave(c)
	defer c.Close()
	defer func() {
		if r := recover(); r != nil {
			s.opts.Logger.Error("shared daemon: client: panic", "panic", r)
		}
	}()
	r := bufio.NewReader(c)
	c.SetDeadline(time.Now().Add(helloTimeout))
	h, err := s.hello(r)
	reply := welcome{PID: os.Getpid()}
	o := s.o
	if err == nil && h.Surface != SurfaceStatus {
		root := cmp.Or(h.Root, s.o.Root())
		var release func()
		if o, release, err = s.roots.acquire(root, c, func() { c.Close() }); err == nil {
			defer release()
		}
	}
	if err != nil {
		reply = welcome{Error: err.Error()}
		s.opts.Logger.Warn("shared daemon: client refused", "err", err)
	} else if s.opts.Env != nil && h.Surface != SurfaceStatus {
		reply.Notes = s.opts.Env.Join(h.Env)
	}
	line, _ := json.Marshal(reply)
	if _, werr := c.Write(append(line, '\n')); werr != nil || err != nil {
		return
	}
	if h.Surface == SurfaceStatus {
		line, _ := json.Marshal(s.info(cmp.Or(h.Root, s.o.Root())))
		c.Write(append(line, '\n'))
		return
	}
	c.SetDeadline(time.Time{})
	s.mu.Lock()
	s.clients[c] = ClientInfo{Surface: h.Surface, Root: o.Root(), Since: time.Now().UTC().Truncate(time.Second), Notes: reply.Notes}
	s.mu.Unlock()
	s.opts.Logger.Info("shared daemon: client attached", "surface", h.Surface, "root", o.Root(), "notes", len(reply.Notes))
	stream := &Conn{Conn: c, r: r}
	switch h.Surface {
	case SurfaceRPC:
		err = rpc.Serve(s.ctx, o, stream, rpc.Options{Version: s.opts.Version, Logger: s.opts.Logger, Attached: true, Notes: reply.Notes})
	case SurfaceLSP:
		// The client's session — its open documents — is its own; the
		// servers are everyone's.
		lspserver.New(o, lspserver.Options{Servers: h.Servers, Logger: s.opts.Logger}).Serve(s.ctx, stream)
	case SurfaceMCP, SurfaceMCPReadOnly:
		caller, detach := o.Attach(s.ctx, reply.Notes...)
		// The end of the client's stream is the client gone (its relay
		// waits for every answer before it leaves): what it still has in
		// flight is cancelled.
		in := &onEnd{r: stream, end: detach}
		err = mcpserver.New(o, mcpserver.Options{Version: s.opts.Version, ReadOnly: h.Surface == SurfaceMCPReadOnly, Format: h.Format}).Run(caller, mcpserver.StdioTransport(in, c))
		detach()
		if errors.Is(err, context.Canceled) {
			err = nil
		}
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		s.opts.Logger.Info("shared daemon: client left", "surface", h.Surface, "err", err)
		return
	}
	s.opts.Logger.Info("shared daemon: client left", "surface", h.Surface)
}

// hello reads and checks a client's hello.
func (s *server) hello(r *bufio.Reader) (hello, error) {
	line, err := readLine(r)
	if err != nil {
		return hello{}, fmt.Errorf("no hello: %v", err)
	}
	var h hello
	if err := json.Unmarshal(line, &h); err != nil || h.LSPKit != "attach" {
		return h, fmt.Errorf(`expected {"lspkit": "attach", "surface", "version"}, got %q`, bounded(line))
	}
	if h.Version != s.opts.Version {
		return h, fmt.Errorf("this daemon is lspkit %s, the client lspkit %s", s.opts.Version, h.Version)
	}
	if h.Surface != SurfaceRPC && !isMCP(h.Surface) && h.Surface != SurfaceLSP && h.Surface != SurfaceStatus {
		return h, fmt.Errorf("unknown surface %q (expected rpc, mcp, mcp-read, lsp or status)", h.Surface)
	}
	return h, nil
}

// onEnd calls end when its reader ends or fails.
type onEnd struct {
	r   io.Reader
	end func()
}

func (o *onEnd) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	if err != nil {
		o.end()
	}
	return n, err
}

// Info is what a running shared daemon says of itself (Query).
type Info struct {
	PID  int    `json:"pid"`
	Root string `json:"root"`
	// Roots are the roots it serves now (its own, and the other worktrees
	// of its repository clients attached for), sorted.
	Roots   []string  `json:"roots"`
	Version string    `json:"version"`
	Since   time.Time `json:"since"`
	// Clients are the clients attached, in no order.
	Clients []ClientInfo `json:"clients"`
	// Servers are the asking root's servers as lsp/status gives them;
	// none when the daemon does not serve that root now (Roots).
	Servers []api.ServerStatus `json:"servers"`
}

// ClientInfo is one attached client.
type ClientInfo struct {
	Surface string    `json:"surface"`
	Root    string    `json:"root"`
	Since   time.Time `json:"since"`
	Notes   []string  `json:"notes,omitempty"`
}

// info is the daemon's Info, with the servers of root.
func (s *server) info(root string) Info {
	s.mu.Lock()
	clients := slices.Collect(maps.Values(s.clients))
	s.mu.Unlock()
	slices.SortFunc(clients, func(a, b ClientInfo) int { return a.Since.Compare(b.Since) })
	return Info{PID: os.Getpid(), Root: s.o.Root(), Roots: s.roots.list(), Version: s.opts.Version, Since: s.started.UTC().Truncate(time.Second), Clients: nonNilClients(clients), Servers: s.roots.status(root)}
}

func nonNilClients(c []ClientInfo) []ClientInfo {
	if c == nil {
		return []ClientInfo{}
	}
	return c
}

// Query asks the daemon serving e, if one does, what it is and runs; ok is
// false when none serves.
func Query(ctx context.Context, e Endpoint, version, root string) (info Info, ok bool, err error) {
	c, err := Dial(ctx, e, AttachOptions{Surface: SurfaceStatus, Version: version, Root: root})
	if errors.Is(err, errNotServing) {
		return Info{}, false, nil
	}
	if err != nil {
		return Info{}, true, err
	}
	defer c.Close()
	if d, ok := ctx.Deadline(); ok {
		c.SetDeadline(d)
	}
	if err := json.UnmarshalRead(io.LimitReader(c, 4<<20), &info); err != nil {
		return Info{}, true, fmt.Errorf("shared: the daemon's status: %w", err)
	}
	return info, true, nil
}
