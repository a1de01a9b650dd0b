package procshare

import (
	"io"
	"sync"

	"github.com/lspkit/lspkit/transport"
)

// An outbox writes frames to one client in order, from a queue of its own:
// a client slow to read holds up its own messages, never the server's
// other members.
type outbox struct {
	w    *transport.Writer
	pipe *io.PipeWriter

	mu     sync.Mutex
	ready  *sync.Cond
	queue  [][]byte
	closed bool
}

func newOutbox(w *transport.Writer, pipe *io.PipeWriter) *outbox {
	o := &outbox{w: w, pipe: pipe}
	o.ready = sync.NewCond(&o.mu)
	go o.run()
	return o
}

// put queues one message; after close it is dropped.
func (o *outbox) put(body []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.queue = append(o.queue, body)
	o.ready.Signal()
}

// close ends the stream after what is queued.
func (o *outbox) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.ready.Signal()
}

func (o *outbox) run() {
	for {
		o.mu.Lock()
		for len(o.queue) == 0 && !o.closed {
			o.ready.Wait()
		}
		queue := o.queue
		o.queue = nil
		closed := o.closed
		o.mu.Unlock()
		for _, body := range queue {
			if o.w.WriteFrame(body) != nil {
				o.drop()
				return
			}
		}
		if closed && len(queue) == 0 {
			o.pipe.Close()
			return
		}
	}
}

// drop ends the outbox after the client stopped reading.
func (o *outbox) drop() {
	o.mu.Lock()
	o.closed, o.queue = true, nil
	o.mu.Unlock()
	o.pipe.Close()
}
