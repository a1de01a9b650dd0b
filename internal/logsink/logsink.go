// Package logsink is a writer for a daemon's log that never makes its
// callers wait. Hosts spawn lspkit with stderr on a pipe, and some never
// read it (LLxprt Code's client does not): a log written straight to that
// pipe fills it, and the next log line blocks whatever was logging — a
// request, a server's reader — until the daemon stalls. A Sink takes each
// write into a bounded buffer that one goroutine copies to the
// destination; when the destination takes nothing and the buffer is full,
// writes are dropped and counted, and once it drains, a line says how many.
package logsink

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// DefaultMaxBytes is the buffer New uses for 0.
const DefaultMaxBytes = 1 << 20

// A Sink is an io.Writer whose Write never blocks.
type Sink struct {
	dst io.Writer
	max int

	mu       sync.Mutex
	pending  [][]byte // writes not yet copied, in order
	size     int      // their bytes
	dropped  int64    // writes dropped since the last report
	lost     int64    // all writes ever dropped
	closed   bool
	wake     chan struct{} // the copier has work
	done     chan struct{} // closed when the copier returns
	writeErr error
}

// New returns a Sink writing to dst through a buffer of maxBytes (0:
// DefaultMaxBytes).
func New(dst io.Writer, maxBytes int) *Sink {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	s := &Sink{dst: dst, max: maxBytes, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.copy()
	return s
}

// Write queues p (one log record, as log/slog's handlers write them) and
// returns at once. When the queue is full, p is dropped and counted.
func (s *Sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return len(p), nil
	}
	if s.size+len(p) > s.max {
		s.dropped++
		s.lost++
		return len(p), nil
	}
	s.pending = append(s.pending, append([]byte(nil), p...))
	s.size += len(p)
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

// copy writes the queue to dst until Close.
func (s *Sink) copy() {
	defer close(s.done)
	for {
		s.mu.Lock()
		batch, dropped := s.pending, s.dropped
		s.pending, s.size, s.dropped = nil, 0, 0
		closed := s.closed
		s.mu.Unlock()
		if dropped > 0 {
			batch = append(batch, fmt.Appendf(nil, "lspkit: %d log %s dropped: stderr was not read fast enough\n", dropped, plural(dropped)))
		}
		for _, b := range batch {
			if _, err := s.dst.Write(b); err != nil {
				s.mu.Lock()
				s.writeErr = err
				s.mu.Unlock()
			}
		}
		if len(batch) > 0 {
			continue
		}
		if closed {
			return
		}
		<-s.wake
	}
}

func plural(n int64) string {
	if n == 1 {
		return "line"
	}
	return "lines"
}

// Lost is how many writes were dropped in all.
func (s *Sink) Lost() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lost
}

// Close stops taking writes and waits, at most timeout, for the copier to
// write what it holds; a destination that takes nothing (a pipe nobody
// reads, full) is left behind. It reports whether everything was written.
func (s *Sink) Close(timeout time.Duration) bool {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-s.done:
		return true
	case <-t.C:
		return false
	}
}
