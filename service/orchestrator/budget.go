package orchestrator

import (
	"context"
	"time"

	"github.com/lspkit/lspkit/service/api"
)

// budgeted is a session as the daemon's budget sees it (budget.Member).
type budgeted struct{ s *session }

func (b budgeted) Name() string       { return b.s.spec.ID + " in " + b.s.root }
func (b budgeted) LastUse() time.Time { return b.s.lastUse() }

// Alive: the session is still its root's, and neither stopping nor given
// up on.
func (b budgeted) Alive() bool {
	s := b.s
	s.o.mu.Lock()
	current := !s.o.closed && s.o.sessions[s.spec.ID+"\x00"+s.root] == s
	s.o.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	return current && !s.stopping && s.state != api.StatusBroken && s.state != api.StatusUnavailable
}

// Memory is the server's resident memory with its helpers.
func (b budgeted) Memory() (uint64, bool) {
	if c := b.s.current(); c != nil {
		return c.ResidentMemory()
	}
	return 0, false
}

// Stop retires the session for why and stops its server, when no request
// holds it (requests hold it from their refresh to their answer) and
// nothing is in flight on it; the next need of the server starts a new
// session, cold.
func (b budgeted) Stop(why string) bool {
	s := b.s
	if !s.given.TryAcquire(holdAll) {
		return false
	}
	defer s.given.Release(holdAll)
	if c := s.current(); c != nil && c.InFlight() > 0 {
		return false
	}
	s.o.mu.Lock()
	dropped := s.o.drop(s, why)
	s.o.mu.Unlock()
	if !dropped {
		return false
	}
	s.o.log.Info("server stopped: the daemon's budget", "server", s.spec.ID, "root", s.root, "why", why)
	s.o.bg.Go(func() {
		ctx, cancel := context.WithTimeout(s.o.life, s.o.grace+5*time.Second)
		defer cancel()
		s.stop(ctx)
		s.o.bump()
	})
	return true
}
