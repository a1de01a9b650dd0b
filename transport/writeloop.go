package transport

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// outgoing is one frame body on its way to the writer goroutine. Whoever
// ends up owning it when the write is over returns it to the pool: the
// sender when it waited for the write, the writer when the sender gave up.
type outgoing struct {
	body  []byte
	state atomic.Int32
	done  chan error
}

// The states of an outgoing frame.
const (
	queuedState    = iota // waiting for the writer
	writingState          // being written
	writtenState          // written (or failed); the sender is told
	abandonedState        // the sender's context ended; the writer recycles it
)

// keepOutgoingSize is the largest body buffer kept for reuse.
const keepOutgoingSize = 1 << 20

var outgoingPool = sync.Pool{New: func() any { return &outgoing{body: make([]byte, 0, 512), done: make(chan error, 1)} }}

func newOutgoing() *outgoing {
	o := outgoingPool.Get().(*outgoing)
	o.state.Store(queuedState)
	return o
}

func (o *outgoing) recycle() {
	if cap(o.body) > keepOutgoingSize {
		o.body = make([]byte, 0, 512)
	}
	o.body = o.body[:0]
	outgoingPool.Put(o)
}

// write hands o to the writer goroutine and waits until it is written or
// ctx ends. sent reports whether the frame went (or is going) out: false
// when ctx ended or the connection was down before the writer took it.
func (c *Conn) write(ctx context.Context, o *outgoing) (sent bool, err error) {
	select {
	case <-c.done:
		o.recycle()
		return false, fmt.Errorf("connection down: %w", c.Err())
	default:
	}
	select {
	case c.writes <- o:
	case <-ctx.Done():
		o.recycle()
		return false, ctx.Err()
	case <-c.done:
		o.recycle()
		return false, fmt.Errorf("connection down: %w", c.Err())
	}
	var cause error
	select {
	case err := <-o.done:
		o.recycle()
		return true, err
	case <-ctx.Done():
		cause = ctx.Err()
	case <-c.done:
		// The writer may have stopped before taking it.
		cause = fmt.Errorf("connection down: %w", c.Err())
	}
	if o.state.CompareAndSwap(queuedState, abandonedState) {
		return false, cause // the writer, if it ever gets to it, skips and recycles it
	}
	if o.state.CompareAndSwap(writingState, abandonedState) {
		return true, cause // the writer will finish and recycle it
	}
	err = <-o.done // written just now
	o.recycle()
	return true, err
}

// writeLoop writes queued frames one at a time until the connection ends.
// A write error takes the connection down.
func (c *Conn) writeLoop() {
	defer c.internal.Done()
	for {
		select {
		case o := <-c.writes:
			c.writeOne(o)
		case <-c.done:
			for {
				select {
				case o := <-c.writes:
					c.finish(o, fmt.Errorf("connection down: %w", c.Err()))
				default:
					return
				}
			}
		}
	}
}

func (c *Conn) writeOne(o *outgoing) {
	if !o.state.CompareAndSwap(queuedState, writingState) {
		o.recycle() // abandoned before it was written
		return
	}
	err := c.w.WriteFrame(o.body)
	if err != nil {
		c.shutdown(fmt.Errorf("write: %w", err))
	}
	c.finish(o, err)
}

// finish reports the outcome to the sender, or recycles a frame whose
// sender gave up.
func (c *Conn) finish(o *outgoing, err error) {
	if o.state.CompareAndSwap(writingState, writtenState) || o.state.CompareAndSwap(queuedState, writtenState) {
		o.done <- err
		return
	}
	o.recycle()
}
