package client

import (
	"strconv"
	"sync"
)

// State is where a client is in its life.
type State int

// The states of a client: starting → active → stopped, or broken when the
// server failed (crashed, or never finished initializing).
const (
	StateStarting State = iota
	StateActive
	StateStopped
	StateBroken
)

// String names the state; an unknown value is named by its number.
func (s State) String() string {
	switch s {
	case StateStarting:
		return "starting"
	case StateActive:
		return "active"
	case StateStopped:
		return "stopped"
	case StateBroken:
		return "broken"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// Status is a client's state, with the reason for stopped and broken.
type Status struct {
	State  State
	PID    int
	Reason string // why it stopped or broke: exit status, signal, last stderr lines
}

// lifecycle is the client's state and whether it is being stopped.
type lifecycle struct {
	mu       sync.Mutex
	state    State
	reason   string
	stopping bool
}

// set moves to s unless the state is already final; it reports whether it
// changed.
func (l *lifecycle) set(s State, reason string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state == StateStopped || l.state == StateBroken {
		return false
	}
	l.state, l.reason = s, reason
	return true
}

// get returns the state and its reason.
func (l *lifecycle) get() (State, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state, l.reason
}

// stop marks the client stopping and reports whether it already was.
func (l *lifecycle) stop() (already bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	already, l.stopping = l.stopping, true
	return already
}

func (l *lifecycle) isStopping() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopping
}
