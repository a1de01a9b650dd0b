package shared

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
)

// ErrRunning says another daemon holds the endpoint: attach to it.
var ErrRunning = errors.New("shared: another daemon serves this endpoint")

// A Listener is a shared daemon's socket: it holds the endpoint's lock for
// its life and accepts only connections of the user it runs as.
type Listener struct {
	ln    net.Listener
	lock  *os.File
	path  string
	log   *slog.Logger
	close sync.Once
}

// Listen takes e's lock and listens on its socket, replacing a socket a
// dead daemon left. It returns ErrRunning when another daemon holds the
// lock.
func Listen(e Endpoint, log *slog.Logger) (*Listener, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lock, err := os.OpenFile(e.lockPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("shared: lock: %w", err)
	}
	if err := lockFile(lock); err != nil {
		lock.Close()
		if errors.Is(err, errLocked) {
			return nil, ErrRunning
		}
		return nil, fmt.Errorf("shared: lock %s: %w", e.lockPath(), err)
	}
	// The lock is ours: a socket file here is a dead daemon's.
	if err := removeStale(e.Socket()); err != nil {
		lock.Close()
		return nil, fmt.Errorf("shared: remove the stale socket: %w", err)
	}
	ln, err := listen(e.Socket())
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("shared: listen: %w", err)
	}
	return &Listener{ln: ln, lock: lock, path: e.Socket(), log: log}, nil
}

// Accept returns the next connection from a process of this user; others
// are refused (closed) and logged.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return nil, err
		}
		if err := samePeer(c); err != nil {
			l.log.Warn("shared: connection refused", "err", err)
			c.Close()
			continue
		}
		return c, nil
	}
}

// Close stops listening, removes the socket and lets the lock go, in that
// order: a daemon that takes the lock next finds no socket of ours.
func (l *Listener) Close() error {
	var err error
	l.close.Do(func() {
		err = l.ln.Close()
		removeStale(l.path)
		l.lock.Close()
	})
	return err
}

// Addr is the socket's address.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }
