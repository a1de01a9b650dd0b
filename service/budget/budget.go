// Package budget bounds what one daemon runs across all of its roots: how
// many language servers (maxServers) and their total resident memory
// (maxMemoryMB). Over either, the least recently used server with no
// request in flight is stopped, and says why; the next request for it
// starts it again. A request never fails because of the budget: when every
// server is busy, the one starting starts all the same, over the budget.
package budget

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// A Member is one running server as the budget sees it.
type Member interface {
	// Name says which server it is, for the log: "gopls in /repo".
	Name() string
	// LastUse is when a request last took it.
	LastUse() time.Time
	// Alive reports whether it still counts: running or starting.
	Alive() bool
	// Memory is its resident memory (with its helpers), when measured.
	Memory() (uint64, bool)
	// Stop stops it for reason if no request is in flight on it and
	// reports whether it did.
	Stop(reason string) bool
}

// A Budget is shared by every orchestrator of one daemon.
type Budget struct {
	// MaxServers bounds the servers running at once (0: no bound).
	MaxServers int
	// MaxMemoryMB bounds their total resident memory in MiB (0: no bound).
	MaxMemoryMB int
	// Every is how often memory is measured (10 s when zero).
	Every time.Duration
	// Logger receives what the budget stops; nil discards it.
	Logger *slog.Logger

	mu      sync.Mutex
	members []Member
}

// Join counts m in, first making room for it under MaxServers: while the
// servers that count are as many as the bound, the least recently used
// idle one is stopped. It never refuses m.
func (b *Budget) Join(m Member) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.prune()
	members := slices.Clone(b.members)
	b.members = append(b.members, m)
	b.mu.Unlock()
	if b.MaxServers <= 0 {
		return
	}
	reason := fmt.Sprintf("stopped for another server: the daemon's budget is maxServers %d", b.MaxServers)
	for n := len(members); n >= b.MaxServers; n-- {
		if !b.stopOne(members, reason) {
			b.log().Info("budget: maxServers exceeded, every server busy: starting over it", "server", m.Name(), "max", b.MaxServers)
			return
		}
	}
}

// Run measures the members' memory every b.Every and, while the total is
// over MaxMemoryMB, stops the least recently used idle one, until ctx
// ends. Without a memory bound it returns at once.
func (b *Budget) Run(ctx context.Context) {
	if b == nil || b.MaxMemoryMB <= 0 {
		return
	}
	every := b.Every
	if every <= 0 {
		every = 10 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b.enforceMemory()
	}
}

// enforceMemory stops idle members, least recently used first, while the
// total resident memory is over MaxMemoryMB.
func (b *Budget) enforceMemory() {
	b.mu.Lock()
	b.prune()
	members := slices.Clone(b.members)
	b.mu.Unlock()
	limit := uint64(b.MaxMemoryMB) << 20
	for {
		var total uint64
		for _, m := range members {
			if !m.Alive() {
				continue
			}
			if mem, ok := m.Memory(); ok {
				total += mem
			}
		}
		if total <= limit {
			return
		}
		reason := fmt.Sprintf("stopped to bring the servers' memory (%d MiB) under the daemon's budget, maxMemoryMB %d", total>>20, b.MaxMemoryMB)
		if !b.stopOne(members, reason) {
			return // every one busy: measured again next time
		}
	}
}

// stopOne stops the least recently used member of members that is alive
// and idle, and reports whether one stopped.
func (b *Budget) stopOne(members []Member, reason string) bool {
	order := slices.Clone(members)
	slices.SortStableFunc(order, func(x, y Member) int { return x.LastUse().Compare(y.LastUse()) })
	for _, m := range order {
		if m.Alive() && m.Stop(reason) {
			b.log().Info("budget: server stopped", "server", m.Name(), "reason", reason)
			return true
		}
	}
	return false
}

// prune drops the members that no longer count. b.mu is held.
func (b *Budget) prune() {
	b.members = slices.DeleteFunc(b.members, func(m Member) bool { return !m.Alive() })
}

// Running is how many members count now.
func (b *Budget) Running() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.prune()
	return len(b.members)
}

func (b *Budget) log() *slog.Logger {
	if b.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return b.Logger
}
