package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/registry"
	"github.com/lspkit/lspkit/service/sidecar"
)

// A session's server lifecycle: its start (after its install), its
// supervision (crashes, restarts within the policy, a server that cannot
// start), its memory limit, its idle stop, and its end.

// initializeTimeout bounds a server's start (spawn + initialize), whatever
// the caller waits: a check that gives up earlier leaves the start running
// for the next one.
const initializeTimeout = 60 * time.Second

// stopWhenUnused stops the session's server once no request has taken the
// session for the configured idle stop (Config.ServerIdleStop): the
// session is retired, and the next need starts a new one. It returns when
// the daemon ends or the server is no longer running for other reasons.
func (s *session) stopWhenUnused() {
	idle := s.o.cfg.ServerIdleStop
	for {
		t := time.NewTimer(time.Until(s.lastUse().Add(idle)))
		select {
		case <-s.o.life.Done():
			t.Stop()
			return
		case <-t.C:
		}
		s.mu.Lock()
		state, stopping, ready := s.state, s.stopping, s.ready
		s.mu.Unlock()
		if stopping || state == api.StatusBroken || state == api.StatusUnavailable {
			return
		}
		if state != api.StatusActive {
			// Starting (or restarting): unused counts from when it runs.
			select {
			case <-ready:
			case <-s.o.life.Done():
				return
			}
			s.used()
			continue
		}
		if !s.o.retire(s) {
			continue // used since, or still starting: wait again
		}
		s.o.log.Info("server stopped: unused", "server", s.spec.ID, "root", s.root, "after", idle)
		ctx, cancel := context.WithTimeout(s.o.life, s.o.grace+5*time.Second)
		s.stop(ctx)
		cancel()
		s.o.bump()
		return
	}
}

// waitInstalled waits while the session's server is being installed.
func (s *session) waitInstalled(ctx context.Context) {
	for {
		s.mu.Lock()
		installing, ready := s.installing, s.ready
		s.mu.Unlock()
		if !installing {
			return
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return
		}
	}
}

// crashed records a crash now in crashes (those within the restart
// window) and says how long to wait before restarting, or to give up: more
// crashes within the window than the policy restarts. Servers and sidecars
// share it.
func (o *Orchestrator) crashed(crashes []time.Time) (kept []time.Time, backoff time.Duration, giveUp bool) {
	now := time.Now()
	crashes = append(crashes, now)
	for len(crashes) > 0 && now.Sub(crashes[0]) > o.cfg.Restart.Window {
		crashes = crashes[1:]
	}
	backoff = time.Duration(250<<min(len(crashes)-1, 5)) * time.Millisecond
	return crashes, backoff, len(crashes) > o.cfg.Restart.MaxRestarts
}

// pingTimeout is how long a server whose check timed out has to answer a
// ping before it counts as unresponsive.
const pingTimeout = 5 * time.Second

// probe pings c in the background after a check on it timed out; a
// server that does not answer (stopped, stuck) is abandoned, and its
// supervisor restarts it under the restart policy with the reason.
func (s *session) probe(c *client.Client) {
	s.mu.Lock()
	if s.probing || s.client != c {
		s.mu.Unlock()
		return
	}
	s.probing = true
	s.mu.Unlock()
	s.o.bg.Go(func() {
		defer func() {
			s.mu.Lock()
			s.probing = false
			s.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(s.o.life, pingTimeout)
		defer cancel()
		if err := c.Ping(ctx); err == nil || s.o.life.Err() != nil {
			return
		}
		reason := fmt.Sprintf("unresponsive: no answer to a ping within %s after a check timed out", pingTimeout)
		s.o.log.Error("server unresponsive; restarting it", "server", s.spec.ID, "root", s.root, "reason", reason)
		c.Abandon(reason)
	})
}

// supervise starts the server, watches it, and restarts it after a crash
// within the restart policy; it returns when the session stops, is broken,
// or its server is unavailable.
func (s *session) supervise() {
	o := s.o
	o.budget.Join(budgeted{s}) // room made first: the least recently used idle server stops
	for {
		c, err := s.start()
		if c != nil {
			s.sendFolders(c) // roots taken as folders while it started
		}
		s.mu.Lock()
		if s.stopping || o.life.Err() != nil {
			s.state, s.reason = api.StatusBroken, "the daemon is shutting down"
			close(s.ready)
			s.mu.Unlock()
			if c != nil {
				c.Shutdown(context.Background())
			}
			return
		}
		if err != nil && c == nil && s.state == api.StatusUnavailable {
			close(s.ready)
			s.mu.Unlock()
			return
		}
		var reason string
		if err == nil {
			// After a restart the reason says what the last one was for.
			s.client, s.state, s.reason = c, api.StatusActive, strings.Replace(s.reason, "restarting after: ", "restarted after: ", 1)
			s.startFailed = ""
			s.side = s.startSidecar() // after the server, never before
			for _, root := range s.roots {
				// Taken since sendFolders, while not active: given now,
				// before a request waiting for the start goes on.
				if !slices.Contains(c.Folders(), root) {
					if err := c.AddFolder(o.life, root); err != nil {
						o.log.Warn("add a workspace folder", "server", s.spec.ID, "root", root, "err", err)
					}
				}
			}
			close(s.ready)
			side := s.side
			s.mu.Unlock()
			o.log.Info("server started", "server", s.spec.ID, "root", s.root, "pid", c.Status().PID)
			reason = s.watch(c)
			side.Close() // it goes with its server, and comes back with the next
			if reason == "" {
				return // stopped
			}
			s.mu.Lock()
			s.ready = make(chan struct{})
		} else {
			reason = err.Error()
			if se := (*client.StartError)(nil); errors.As(err, &se) {
				reason = se.Summary() // the whole story, stderr and all, is logged at debug
				o.log.Debug("server failed to start", "server", s.spec.ID, "root", s.root, "err", err)
			}
			close(s.ready)
			s.ready = make(chan struct{})
			why, ok := cannotStart(err)
			switch {
			case !ok:
			case s.startFailed != "" && sameFailure(why, s.startFailed):
				// The same failure at start twice: the server cannot
				// start here; no restarts with backoff.
				s.state, s.reason = api.StatusUnavailable, s.unstartable(err, why)
				close(s.ready)
				s.updatedLocked()
				s.mu.Unlock()
				o.log.Error("server cannot start", "server", s.spec.ID, "root", s.root, "reason", s.reason)
				o.bump()
				return
			case s.startFailed != "" || o.cfg.Restart.MaxRestarts == 0:
				// Failed at start again, another way (or restarts are
				// off): the restart policy decides.
				s.startFailed = why
			default:
				// Tried again at once: a start that failed for a passing
				// reason does not wait, one that cannot succeed is said
				// after the second.
				s.startFailed = why
				s.restartAtOnce(why, "server failed to start; trying again")
				continue
			}
		}
		// A crash: the client's documents and diagnostics go with it.
		s.client = nil
		s.changes = map[protocol.DocumentURI]change{}
		s.pending = nil
		if why := s.recycled; why != "" {
			// Stopped on purpose: started again at once, not counted
			// against the restart policy.
			s.recycled = ""
			s.restartAtOnce(why, "server restarted")
			continue
		}
		var backoff time.Duration
		var giveUp bool
		s.crashes, backoff, giveUp = o.crashed(s.crashes)
		if giveUp {
			s.state = api.StatusBroken
			s.reason = fmt.Sprintf("crashed %d times within %s, not restarted (restarts %d): %s", len(s.crashes), o.cfg.Restart.Window, s.restarts, reason)
			close(s.ready)
			s.updatedLocked()
			s.mu.Unlock()
			o.log.Error("server broken", "server", s.spec.ID, "root", s.root, "reason", s.reason)
			o.bump()
			return
		}
		s.restarts++
		s.state, s.reason = api.StatusStarting, "restarting after: "+reason
		s.updatedLocked()
		s.mu.Unlock()
		o.log.Warn("server crashed; restarting", "server", s.spec.ID, "root", s.root, "restarts", s.restarts, "backoff", backoff, "reason", reason)
		o.bump()
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-o.life.Done():
			t.Stop()
			s.mu.Lock()
			close(s.ready)
			s.mu.Unlock()
			return
		}
	}
}

// restartAtOnce marks the session starting again after why, without the
// crash policy's wait, and says so in the log (msg). It is called with
// s.mu held and releases it.
func (s *session) restartAtOnce(why, msg string) {
	s.restarts++
	s.state, s.reason = api.StatusStarting, "restarting after: "+why
	s.updatedLocked()
	s.mu.Unlock()
	s.o.log.Warn(msg, "server", s.spec.ID, "root", s.root, "reason", why)
	s.o.bump()
}

// cannotStart says, for a failed start, whether the server exited by
// itself before it answered initialize — a server that cannot start, not
// one stopped for taking too long — and how, in one line.
func cannotStart(err error) (string, bool) {
	var se *client.StartError
	if !errors.As(err, &se) || !se.Exited {
		return "", false
	}
	return se.Summary(), true
}

// sameFailure reports whether two start failures are the same one: equal
// but for their numbers (a process id, a time, a port).
func sameFailure(a, b string) bool {
	digits := func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '#'
		}
		return r
	}
	return strings.Map(digits, a) == strings.Map(digits, b)
}

// unstartable is the reason a server that cannot start is unavailable:
// what it said, and the fix where lspkit knows it (a rustup proxy without
// its component, a pyenv shim of another Python, …).
func (s *session) unstartable(err error, why string) string {
	var se *client.StartError
	errors.As(err, &se)
	reason := fmt.Sprintf("it cannot start (%s)", why)
	if se.Path == "" || se.Exit == nil {
		return reason
	}
	d := registry.Diagnose(se.Path, se.Exit.Lines())
	switch {
	case d.Missing && d.Fix != "":
		return fmt.Sprintf("not installed (its command is %s's proxy: %s); fix: %s", d.Proxy, strings.TrimPrefix(why, "exit status 1: "), d.Fix)
	case d.Proxy != "":
		return fmt.Sprintf("%s; its command is %s's proxy", reason, d.Proxy)
	}
	return reason
}

// start resolves the server's binary (installing it if allowed) and starts
// a client. A missing binary leaves the session unavailable.
func (s *session) start() (*client.Client, error) {
	o := s.o
	path, err := o.store.Resolve(o.life, s.spec, o.cfg.AutoInstall)
	s.mu.Lock()
	s.installing = false
	s.mu.Unlock()
	if err != nil {
		s.mu.Lock()
		s.state, s.reason = api.StatusUnavailable, err.Error()
		s.mu.Unlock()
		o.log.Warn("server unavailable", "server", s.spec.ID, "reason", err)
		return nil, err
	}
	ctx, cancel := context.WithTimeout(o.life, initializeTimeout)
	defer cancel()
	c, err := client.Start(ctx, o.clientConfig(s.spec, path, s.root, s.folders()[1:]...))
	if err != nil {
		return nil, err
	}
	if len(s.folders()) > 1 && !c.SupportsFolders() {
		o.log.Warn("server does not take workspace folder changes: one process per root", "server", s.spec.ID)
		o.splitFolders(s)
		s.mu.Lock()
		s.roots = s.roots[:1]
		s.mu.Unlock()
	}
	return c, nil
}

// memoryCheckEvery is how often a server's resident memory is compared
// with maxServerMemoryMB.
const memoryCheckEvery = 10 * time.Second

// limitMemory restarts the server when its resident memory (with its
// helpers) exceeds maxServerMemoryMB, at a moment it has no request in
// flight (Config.MaxServerMemoryMB). It returns when the daemon ends or
// the session stops for good.
func (s *session) limitMemory() {
	limit := uint64(s.o.cfg.MaxServerMemoryMB) << 20
	every := s.o.memoryEvery
	if every <= 0 {
		every = memoryCheckEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	unmeasured := false
	for {
		select {
		case <-s.o.life.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		state, stopping, c := s.state, s.stopping, s.client
		s.mu.Unlock()
		switch {
		case stopping, state == api.StatusBroken, state == api.StatusUnavailable:
			return
		case state != api.StatusActive || c == nil:
			continue
		}
		b, ok := c.ResidentMemory()
		if !ok {
			// Gone meanwhile (restarting, crashed: the next one is
			// measured), or not measurable on this system.
			if !unmeasured {
				s.o.log.Info("maxServerMemoryMB: the server's memory could not be measured", "server", s.spec.ID)
				unmeasured = true
			}
			continue
		}
		// Over the limit: restarted while no request holds the session
		// (requests hold it from their refresh to their answer) and
		// nothing is in flight; else looked at again later.
		if b <= limit || !s.given.TryAcquire(holdAll) {
			continue
		}
		if c.InFlight() == 0 {
			why := fmt.Sprintf("resident memory %d MiB over maxServerMemoryMB %d", b>>20, s.o.cfg.MaxServerMemoryMB)
			s.mu.Lock()
			if s.client == c && s.state == api.StatusActive {
				s.recycled = why
				s.mu.Unlock()
				c.Abandon(why)
			} else {
				s.mu.Unlock()
			}
		}
		s.given.Release(holdAll)
	}
}

// watch follows an active client until it stops (""), or breaks (the
// reason), advancing the daemon epoch whenever its diagnostics change.
func (s *session) watch(c *client.Client) string {
	last := c.Epoch()
	for {
		changed := c.Changed()
		if e := c.Epoch(); e != last {
			last = e
			s.o.bump()
		}
		st := c.Status()
		switch st.State {
		case client.StateStopped:
			return ""
		case client.StateBroken:
			return st.Reason
		}
		<-changed
	}
}

// crashHandled waits (within ctx) until the supervisor has dealt with the
// crash of client c: restarting it, or marking the session broken.
func (s *session) crashHandled(ctx context.Context, c *client.Client) {
	for {
		s.mu.Lock()
		handled, ready := s.client != c || s.state != api.StatusActive, s.updated
		s.mu.Unlock()
		if handled {
			return
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return
		}
	}
}

// restarting reports whether the session's server is being started again
// after it stopped (within the restart policy).
func (s *session) restarting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == api.StatusStarting && !s.stopping && strings.HasPrefix(s.reason, "restarting after: ")
}

// updatedLocked wakes whoever waits for the supervisor's next change.
func (s *session) updatedLocked() {
	close(s.updated)
	s.updated = make(chan struct{})
}

// kill ends the session's server at once.
func (s *session) kill() {
	s.mu.Lock()
	s.stopping = true
	c, side := s.client, s.side
	s.mu.Unlock()
	side.Kill()
	if c != nil {
		c.Kill()
	}
}

// stop shuts the session's server down and ends its supervisor.
func (s *session) stop(ctx context.Context) {
	s.mu.Lock()
	s.stopping = true
	c, side := s.client, s.side
	s.mu.Unlock()
	if c != nil {
		if err := c.Shutdown(ctx); err != nil {
			s.o.log.Info("server shutdown", "server", s.spec.ID, "err", err)
		}
	}
	side.Close()
}

// startSidecar starts the sidecar of the session's server, if it has one,
// and returns it (nil without one).
func (s *session) startSidecar() *sidecar.Sidecar {
	if s.spec.Sidecar == nil {
		return nil
	}
	o := s.o
	return sidecar.Start(sidecar.Options{Server: s.spec.ID, Root: s.root, Config: *s.spec.Sidecar,
		Guard: o.guard, Grace: o.grace, Log: o.log, Crashed: o.crashed, Window: o.cfg.Restart.Window})
}
