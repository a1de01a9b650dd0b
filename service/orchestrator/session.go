package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc"
	"golang.org/x/sync/semaphore"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/registry"
	"github.com/lspkit/lspkit/service/sidecar"
)

// initializeTimeout bounds a server's start (spawn + initialize), whatever
// the caller waits: a check that gives up earlier leaves the start running
// for the next one.
const initializeTimeout = 60 * time.Second

// session is one server for one root: its current client, restarts and the
// documents it was sent.
type session struct {
	o    *Orchestrator
	spec *registry.Spec
	root string // the first root: the server's root URI and working directory

	mu         sync.Mutex
	roots      []string // every root it serves: root, then those taken as workspace folders
	client     *client.Client
	state      string
	reason     string
	ready      chan struct{}  // closed when the current start attempt ends
	updated    chan struct{}  // closed (and replaced) when the supervisor changes the state
	warm       *client.Client // the server process a check has run its course on (its first touch is spent)
	installing bool
	crashes    []time.Time
	restarts   int
	// startFailed is the last start that ended with the server exiting
	// by itself before it answered initialize, in one line; "" once a
	// start succeeds. The same failure twice makes it unavailable.
	startFailed string
	changes     map[protocol.DocumentURI]change // the open documents: what was sent, for refresh and diagnosticsAfter
	uses        uint64                          // counts record calls: change.used orders the open documents by last use
	stopping    bool
	probing     bool             // a ping of the client is under way
	side        *sidecar.Sidecar // the server's sidecar, while the server runs
	// loadWaited: a wait for the server's project load ran out of time;
	// until it is seen idle, questions are answered at once with a note
	// instead of each waiting again (a huge index, or a progress token a
	// server never ends).
	loadWaited bool
	// loadedClient is the client last seen with no work-done progress
	// running: its project has loaded once (see loaded).
	loadedClient *client.Client
	// pending: changes the watcher saw under the root that refresh has not
	// acted on yet; statAll: compare every held document with the disk at
	// the next refresh (the watcher missed or could not see changes).
	pending map[string]pendingChange
	statAll bool

	refreshing sync.Mutex // held through a refresh (not under mu)
	// given is held by a check of given text from its refresh to its
	// answer, alone (all of its weight), and by every other request from
	// its refresh to its answer, shared (weight 1): no request is answered
	// while the server holds a text that is not the disk's, as each
	// refresh restores the disk's. Waiters are served in order.
	given *semaphore.Weighted

	lastUsed atomic.Int64 // when a request last took the session (Unix nanoseconds)
	// recycled says why the server is being restarted on purpose (over
	// maxServerMemoryMB): its end is not a crash.
	recycled string
}

// used records that a request takes the session now.
func (s *session) used() { s.lastUsed.Store(time.Now().UnixNano()) }

// lastUse is when a request last took the session.
func (s *session) lastUse() time.Time { return time.Unix(0, s.lastUsed.Load()) }

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

// change is the last change sent for a document: the daemon epoch then and
// its version.
type change struct {
	epoch   uint64
	version int32
	disk    bool      // the text came from the file on disk, not from the caller
	mod     time.Time // then: the file's modification time and size before it was read
	size    int64
	used    uint64 // when it was last checked or sent, in session.uses
}

// source is the text a server is sent for a file, and where it came from.
type source struct {
	text string
	disk bool      // read from the file, not given by the caller
	mod  time.Time // the file's modification time and size before it was read
	size int64
}

// Why a file is not read.
var (
	errDirectory  = errors.New("is a directory")
	errNotRegular = errors.New("is not a regular file")
)

// tooBigError says a file is over the size limit.
type tooBigError struct{ size, max int64 }

func (e *tooBigError) Error() string {
	return fmt.Sprintf("is %s, over the %s limit (maxFileBytes)", byteSize(e.size), byteSize(e.max))
}

// byteSize writes n bytes for people.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// readSource reads the regular file at path as a source, noting its
// modification time and size first (a write after them shows as a change
// later). Directories, other non-regular files (a FIFO would block the
// read) and files over max bytes are not read.
func readSource(path string, max int64) (source, error) {
	info, err := os.Stat(path)
	if err != nil {
		return source{}, err
	}
	switch {
	case info.IsDir():
		return source{}, errDirectory
	case !info.Mode().IsRegular():
		return source{}, errNotRegular
	case info.Size() > max:
		return source{}, &tooBigError{info.Size(), max}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return source{}, err
	}
	if int64(len(data)) > max {
		return source{}, &tooBigError{int64(len(data)), max}
	}
	return source{text: string(data), disk: true, mod: info.ModTime(), size: info.Size()}, nil
}

func newSession(o *Orchestrator, t target) *session {
	s := &session{o: o, spec: t.spec, root: t.root, roots: []string{t.root}, state: api.StatusStarting, ready: make(chan struct{}), updated: make(chan struct{}), changes: map[protocol.DocumentURI]change{}, given: semaphore.NewWeighted(holdAll)}
	if _, found := o.store.Find(t.spec); !found && t.spec.Install != nil && t.spec.Install.From.Kind != "apt" && o.cfg.AutoInstall {
		s.installing, s.reason = true, "installing "+strings.Join(t.spec.Install.From.Packages, " ")
	}
	return s
}

// cold reports whether no check has run its course on the session's
// current server process (settled, or out of its own time): a check then
// waits for the server to start and load the workspace, so it gets the
// first-touch timeout — every one of several files checked at once, not
// only the one that started the server. Once per process: a server that
// never settles costs it once, and a restarted one gets it again.
func (s *session) cold() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.warm == nil || s.warm != s.client
}

// warmed records that a check ran its course on c.
func (s *session) warmed(c *client.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warm = c
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

// current returns the active client, or nil.
func (s *session) current() *client.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != api.StatusActive {
		return nil
	}
	return s.client
}

// await waits for an active client; without one it says why.
func (s *session) await(ctx context.Context) (*client.Client, api.Verdict, string) {
	for {
		s.mu.Lock()
		state, c, reason, ready := s.state, s.client, s.reason, s.ready
		s.mu.Unlock()
		switch state {
		case api.StatusActive:
			return c, "", ""
		case api.StatusBroken:
			return nil, api.VerdictBroken, reason
		case api.StatusUnavailable:
			return nil, api.VerdictUnavailable, reason
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, api.VerdictTimedOut, "server still starting"
		}
	}
}

// diagnose sends the text, waits for the server's complete findings for
// it (client.Diagnose) and records the change.
// Text read from the file is the file's saved content: servers that
// asked for saves are sent didSave too.
func (s *session) diagnose(ctx context.Context, c *client.Client, path, languageID string, src source) (client.Answer, error) {
	diagnose := c.Diagnose
	if src.disk {
		diagnose = c.DiagnoseSaved
	} else {
		s.giving(path)
	}
	a, err := diagnose(ctx, path, languageID, src.text)
	if err != nil {
		return a, err
	}
	s.record(ctx, c, a.URI, a.Version, src)
	return a, nil
}

// awaitHeld awaits an active client (see await) and takes the session's
// hold (see hold) while that client is still the session's: a server
// restarted between the two is awaited again. Without a client it says
// why; release lets the hold go.
func (s *session) awaitHeld(ctx context.Context, given bool) (c *client.Client, release func(), verdict api.Verdict, reason string) {
	for {
		c, verdict, reason := s.await(ctx)
		if c == nil {
			return nil, nil, verdict, reason
		}
		release, err := s.hold(ctx, given)
		if err != nil {
			return nil, nil, api.VerdictTimedOut, err.Error()
		}
		if s.current() == c {
			return c, release, "", ""
		}
		release()
	}
}

// hold takes the session's given-text hold (see session.given): alone
// for a check of given text, shared for any other request, waiting within
// ctx. The result lets it go.
func (s *session) hold(ctx context.Context, given bool) (func(), error) {
	var n int64 = 1
	if given {
		n = holdAll
	}
	if err := s.given.Acquire(ctx, n); err != nil {
		return nil, errHeld
	}
	return func() { s.given.Release(n) }, nil
}

// holdAll is the weight of session.given: a hold of all of it is alone.
const holdAll = 1 << 30

// errHeld says a request waited its whole time for another to let the
// server go.
var errHeld = errors.New("other checks of the file or requests to its server took its time (a check of given text and any other request wait for each other)")

// giving notes, before it is sent, that the document at path is to hold a
// check's given text: a request beside the check restores the disk's
// text first (waiting for the check to let go of the document), so no
// other request is answered from it.
func (s *session) giving(path string) {
	uri, err := protocol.FileURI(path)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.uses++
	ch := s.changes[uri]
	ch.disk, ch.used = false, s.uses
	s.changes[uri] = ch
}

// sync sends the text and records the change.
func (s *session) sync(ctx context.Context, c *client.Client, path, languageID string, src source) (protocol.DocumentURI, int32, error) {
	uri, version, err := c.Sync(ctx, path, languageID, src.text)
	if err != nil {
		return uri, version, err
	}
	s.record(ctx, c, uri, version, src)
	return uri, version, nil
}

// record notes that c was sent version of uri from src, and closes the
// least recently used documents beyond the open-document limit.
func (s *session) record(ctx context.Context, c *client.Client, uri protocol.DocumentURI, version int32, src source) {
	epoch := s.o.Epoch()
	s.mu.Lock()
	if s.client != c {
		s.mu.Unlock()
		return
	}
	s.uses++
	s.changes[uri] = change{epoch: epoch, version: version, disk: src.disk, mod: src.mod, size: src.size, used: s.uses}
	var evict []protocol.DocumentURI
	for limit := s.o.maxOpenDocuments(); len(s.changes) > limit; {
		oldest := uri
		for u, ch := range s.changes {
			if ch.used < s.changes[oldest].used {
				oldest = u
			}
		}
		delete(s.changes, oldest)
		evict = append(evict, oldest)
	}
	s.mu.Unlock()
	for _, u := range evict {
		path, err := u.Path()
		if err != nil {
			continue
		}
		if err := c.CloseDocument(ctx, path); err != nil {
			s.o.log.Warn("close the least recently used document", "server", s.spec.ID, "file", s.o.rel(path), "err", err)
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

// forgetGone closes the document of a file that is gone and drops its
// diagnostics, in the background (a check of it may hold the document).
func (s *session) forgetGone(c *client.Client, uri protocol.DocumentURI, path string) {
	s.mu.Lock()
	delete(s.changes, uri)
	s.mu.Unlock()
	s.o.bg.Go(func() {
		ctx, cancel := context.WithTimeout(s.o.life, time.Minute)
		defer cancel()
		if err := c.ForgetDocument(ctx, path); err != nil && ctx.Err() == nil {
			s.o.log.Warn("forget a file that is gone", "file", s.o.rel(path), "err", err)
		}
	})
}

// quietSpell is how long a server must report nothing new, after the
// changed documents settled, before diagnosticsAfter trusts that the
// reports on other files are in.
const quietSpell = 150 * time.Millisecond

// settleAfter waits until the documents changed after epoch have settled,
// then for a quiet spell, within ctx.
func (s *session) settleAfter(ctx context.Context, epoch uint64) {
	s.mu.Lock()
	c := s.client
	var pending []struct {
		uri     protocol.DocumentURI
		version int32
	}
	for uri, ch := range s.changes {
		if ch.epoch > epoch {
			pending = append(pending, struct {
				uri     protocol.DocumentURI
				version int32
			}{uri, ch.version})
		}
	}
	active := s.state == api.StatusActive
	s.mu.Unlock()
	if !active || len(pending) == 0 {
		return
	}
	changed := map[protocol.DocumentURI]bool{}
	for _, p := range pending {
		changed[p.uri] = true
		if c.WaitSettled(ctx, p.uri, p.version) != client.Settled {
			return
		}
	}
	s.recheckOthers(ctx, c, changed)
	for {
		before := c.Epoch()
		changed := c.Changed()
		t := time.NewTimer(quietSpell)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
			if c.Epoch() == before && !c.Busy() {
				return
			}
		case <-changed:
			t.Stop()
		}
	}
}

// recheckOthers re-checks, at once, the documents open in c other than
// the changed ones, as they are: a file that imports a changed one may be
// broken by it, and servers that check open files only (pyright, clangd)
// say so only when asked again.
func (s *session) recheckOthers(ctx context.Context, c *client.Client, changed map[protocol.DocumentURI]bool) {
	s.refresh(ctx, c, "")
	s.mu.Lock()
	var others []protocol.DocumentURI
	for uri := range s.changes {
		if !changed[uri] {
			others = append(others, uri)
		}
	}
	s.mu.Unlock()
	var wg conc.WaitGroup
	for _, uri := range others {
		path, err := uri.Path()
		text, open := c.DocumentText(uri)
		if err != nil || !open {
			continue
		}
		wg.Go(func() {
			if _, err := c.Diagnose(ctx, path, s.spec.LanguageID(path), text); err != nil && ctx.Err() == nil {
				s.o.log.Warn("re-check after a change", "file", s.o.rel(path), "err", err)
			}
		})
	}
	if p := wg.WaitAndRecover(); p != nil {
		s.o.log.Error("re-check after a change: panic", "panic", p.String())
	}
}

// supervise starts the server, watches it, and restarts it after a crash
// within the restart policy; it returns when the session stops, is broken,
// or its server is unavailable.
func (s *session) supervise() {
	o := s.o
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

// folders returns the roots s serves, its own first.
func (s *session) folders() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.roots)
}

// takesFolders reports whether s may take another root as a workspace
// folder: it is not stopping or broken, and its server, once started,
// said it takes folder changes.
func (s *session) takesFolders() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stopping, s.state == api.StatusBroken, s.state == api.StatusUnavailable:
		return false
	case s.client != nil:
		return s.client.SupportsFolders()
	}
	return true // starting: it is started with the folders it has then
}

// addRoot makes root one more root of s: a workspace folder of its
// server, sent now if the server runs (a starting one is given its roots
// when it has started, see supervise).
func (s *session) addRoot(root string) {
	s.mu.Lock()
	if !slices.Contains(s.roots, root) {
		s.roots = append(s.roots, root)
	}
	c := s.client
	if s.state != api.StatusActive {
		c = nil
	}
	s.mu.Unlock()
	if c != nil {
		s.sendFolders(c)
	}
}

// sendFolders gives c the roots of s it does not have yet.
func (s *session) sendFolders(c *client.Client) {
	ctx, cancel := context.WithTimeout(s.o.life, 5*time.Second)
	defer cancel()
	for _, root := range s.folders() {
		if err := c.AddFolder(ctx, root); err != nil {
			s.o.log.Warn("add a workspace folder", "server", s.spec.ID, "root", root, "err", err)
		}
	}
}

// serves reports whether path is under one of the roots s serves.
func (s *session) serves(path string) bool {
	return slices.ContainsFunc(s.folders(), func(root string) bool { return within(root, path) })
}

// rootOf is the root of s that path is under (the innermost), or s.root.
func (s *session) rootOf(path string) string {
	best := s.root
	for _, r := range s.folders() {
		if within(r, path) && len(r) > len(best) {
			best = r
		}
	}
	return best
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

// loaded waits, within timeout, until c has no work-done progress running
// (its project loaded, its index built), and returns "" or a note saying
// the answer may be incomplete. Once c has been seen idle, later work
// (re-analysis after a change) is waited for at most reloadWait: servers
// answer from their current state meanwhile, and some leave such progress
// open until their next change (pyright's "1 file to analyze" after a
// file it tracked was deleted). After one wait ran out, the next questions
// do not wait until the server is seen idle again.
func (s *session) loaded(ctx context.Context, c *client.Client, timeout time.Duration) string {
	if !c.Busy() {
		s.mu.Lock()
		s.loadWaited, s.loadedClient = false, c
		s.mu.Unlock()
		return ""
	}
	s.mu.Lock()
	waited, again := s.loadWaited, s.loadedClient == c
	s.mu.Unlock()
	if again {
		timeout = min(timeout, reloadWait)
	}
	if !waited {
		wctx, cancel := context.WithTimeout(ctx, timeout)
		err := c.WaitIdle(wctx)
		cancel()
		if err == nil {
			s.mu.Lock()
			s.loadedClient = c
			s.mu.Unlock()
			return ""
		}
		if ctx.Err() != nil {
			return ""
		}
		s.mu.Lock()
		s.loadWaited = true
		s.mu.Unlock()
	}
	return fmt.Sprintf("%s is still loading the project (%s); the answer may be incomplete", s.spec.ID, c.Loading())
}

// reloadWait bounds the wait for a server's work-done progress once its
// project has loaded (see loaded).
const reloadWait = 2 * time.Second

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
