package orchestrator

import (
	"context"
	"strconv"
	"sync/atomic"
)

// A caller is one client of an orchestrator that several share (a shared
// daemon's attached agent): what the orchestrator remembers for answers
// to a client — the findings its checks showed, for delta answers — is
// kept per caller, and its requests end when it detaches.
type caller struct {
	id    string
	ctx   context.Context // ends when the caller detaches
	notes []string        // said on this caller's status (StatusOf)
}

type callerKey struct{}

// callers numbers the callers of one orchestrator.
type callers struct{ next atomic.Uint64 }

// Attach names a new client of o: requests made with the returned context
// (or joined to it with Join) are that client's, and end when detach is
// called (its connection closed, the client died). detach also forgets
// what o remembered for the client. A request made without a caller is the
// one anonymous client's (a daemon that serves one).
func (o *Orchestrator) Attach(ctx context.Context, notes ...string) (callerCtx context.Context, detach func()) {
	id := "c" + strconv.FormatUint(o.callers.next.Add(1), 10)
	ctx, cancel := context.WithCancel(ctx)
	c := &caller{id: id, ctx: ctx, notes: notes}
	return context.WithValue(ctx, callerKey{}, c), func() {
		cancel()
		o.shown.Forget(id + "\x00")
	}
}

// Join returns ctx made the request of the caller that from names (see
// Attach): it carries the caller and ends when ctx ends or the caller
// detaches. Without a caller in from, it is ctx.
func Join(ctx, from context.Context) (context.Context, context.CancelFunc) {
	c, ok := from.Value(callerKey{}).(*caller)
	if !ok {
		return context.WithCancel(ctx)
	}
	ctx, cancel := context.WithCancel(context.WithValue(ctx, callerKey{}, c))
	stop := context.AfterFunc(c.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

// callerOf names ctx's caller: "" for the anonymous one.
func callerOf(ctx context.Context) string {
	if c, ok := ctx.Value(callerKey{}).(*caller); ok {
		return c.id
	}
	return ""
}

// shownKey is the record of what file's checks showed ctx's caller.
func shownKey(ctx context.Context, file string) string {
	return callerOf(ctx) + "\x00" + file
}
