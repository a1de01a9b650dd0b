package orchestrator

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/registry"
	"github.com/lspkit/lspkit/service/sidecar"
)

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
	// coldAfter says why the server was not running when this session
	// began: it had been stopped (unused, or for the daemon's budget); its
	// first check says it started cold for that.
	coldAfter string
	changes   map[protocol.DocumentURI]change // the open documents: what was sent, for refresh and diagnosticsAfter
	uses      uint64                          // counts record calls: change.used orders the open documents by last use
	stopping  bool
	probing   bool             // a ping of the client is under way
	side      *sidecar.Sidecar // the server's sidecar, while the server runs
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
	if !s.given.TryAcquire(n) {
		if s.o.holdWaits != nil {
			s.o.holdWaits()
		}
		if err := s.given.Acquire(ctx, n); err != nil {
			return nil, errHeld
		}
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
