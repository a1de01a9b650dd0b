package client

import "sync"

// changes is the client's change signal: an epoch that advances on every
// document change and diagnostics update, and a channel closed (and
// replaced) on every change of anything a waiter may look at — documents,
// diagnostics, state, registrations, progress.
type changes struct {
	mu    sync.Mutex
	epoch uint64
	ch    chan struct{}
}

func newChanges() *changes { return &changes{ch: make(chan struct{})} }

// wait returns a channel closed at the next change.
func (c *changes) wait() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ch
}

// current returns the epoch.
func (c *changes) current() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

// advance advances the epoch and returns its new value, without waking
// anyone: record what the epoch stands for, then wake.
func (c *changes) advance() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	return c.epoch
}

// wake wakes every waiter.
func (c *changes) wake() {
	c.mu.Lock()
	defer c.mu.Unlock()
	close(c.ch)
	c.ch = make(chan struct{})
}
