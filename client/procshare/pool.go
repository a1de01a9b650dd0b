// Package procshare shares one language server process among the clients
// of several roots — the worktrees of one repository — each root a
// workspace folder of that one process.
//
// A Pool is a client.Launch. The first launch of a command starts the
// process; a later launch of the same command (its directory aside) is
// given a member of that process instead, once the process said in its
// initialize answer that it takes workspace folder changes and the
// member's initialize asks for the same as the first one's (options,
// capabilities). Each member is a client.Proc of its own: its client
// speaks the protocol to it as to a process of its own, and the pool
// makes one conversation of them:
//
//   - the member's initialize is answered with the process's answer, and
//     its folders are added (workspace/didChangeWorkspaceFolders); its
//     shutdown and exit close its documents and remove its folders; the
//     last member's end the process;
//   - request ids are renumbered both ways, cancellations with them;
//   - what the server publishes for a file goes to the member that has it
//     open or whose folder holds it; what it asks goes to the member whose
//     folder it names (workspace/configuration's scope, an edit's files),
//     or to all, answered once (registrations, progress, refreshes);
//   - answers never name a file of another member's folder: locations,
//     symbols, edits and reports into it are left out.
//
// A server that does not take folder changes, or a member that asks for
// something else, gets a process of its own.
package procshare

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/lspkit/lspkit/client"
)

// A Pool shares server processes among the clients of several roots.
type Pool struct {
	base client.Launch
	log  *slog.Logger

	mu     sync.Mutex
	groups map[string][]*group    // by command (commandKey)
	starts map[string]*sync.Mutex // held through a launch of a command: the second waits for the first's process
}

// New returns a pool that starts processes with base (client.LaunchProcess
// when nil) and logs to log (none when nil).
func New(base client.Launch, log *slog.Logger) *Pool {
	if base == nil {
		base = client.LaunchProcess
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Pool{base: base, log: log, groups: map[string][]*group{}, starts: map[string]*sync.Mutex{}}
}

// Launch is a client.Launch: a member of a running process of the same
// command that may take one more folder, or a new process.
func (p *Pool) Launch(ctx context.Context, cmd client.Command) (client.Proc, error) {
	key := commandKey(cmd)
	p.mu.Lock()
	start, ok := p.starts[key]
	if !ok {
		start = &sync.Mutex{}
		p.starts[key] = start
	}
	p.mu.Unlock()
	start.Lock()
	defer start.Unlock()
	p.mu.Lock()
	for _, g := range p.groups[key] {
		if m := g.attach(cmd); m != nil {
			p.mu.Unlock()
			p.log.Info("server process shared", "pid", g.proc.PID(), "dir", cmd.Dir, "members", g.size())
			return m, nil
		}
	}
	p.mu.Unlock()
	return p.start(ctx, key, cmd)
}

// start starts a process for cmd and returns its first member.
func (p *Pool) start(ctx context.Context, key string, cmd client.Command) (*member, error) {
	proc, err := p.base(ctx, cmd)
	if err != nil {
		return nil, err
	}
	g := newGroup(p, key, proc)
	m := g.attach(cmd)
	p.mu.Lock()
	p.groups[key] = append(p.groups[key], g)
	p.mu.Unlock()
	go g.serve()
	return m, nil
}

// forget drops an ended group.
func (p *Pool) forget(g *group) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.groups[g.key] = slices.DeleteFunc(p.groups[g.key], func(x *group) bool { return x == g })
	if len(p.groups[g.key]) == 0 {
		delete(p.groups, g.key)
	}
}

// Processes returns how many processes the pool runs and how many members
// they serve in all.
func (p *Pool) Processes() (processes, members int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, gs := range p.groups {
		for _, g := range gs {
			processes++
			members += g.size()
		}
	}
	return processes, members
}

// commandKey is what must be equal for two launches to share a process:
// the executable, its arguments and environment — not its directory,
// which is the first member's root.
func commandKey(cmd client.Command) string {
	env := slices.Clone(cmd.Env)
	slices.Sort(env)
	return strings.Join(slices.Concat([]string{cmd.Path}, cmd.Args, []string{"\x00"}, env, []string{"\x00"}, cmd.Guard), "\x01")
}
