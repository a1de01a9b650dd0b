// Package fdpair is one byte stream over the two descriptors a host gives
// for it (`lspkit serve --mcp-fds R,W`), whichever way the host wired them.
//
// A host's extra pipes are often socket pairs, usable both ways at each
// end: Node's child_process "pipe" entries are. Such a host may write to
// either descriptor and read the other — LLxprt Code's client writes to 4
// and reads 3, the opposite of the documented R,W = 3,4 — so the stream
// reads both, takes the descriptor the host first writes to as its input
// and answers on the other. Whatever the host writes is read, even after
// the stream ends: a socket closed with unread bytes makes the kernel
// reset the connection, and the host sees ECONNRESET.
package fdpair

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"
)

// chunkBytes is what one read of a descriptor takes at most.
const chunkBytes = 32 << 10

// A Pair is the stream over two descriptors. Read returns what the host
// writes, from the descriptor it writes to; Write writes to the other one,
// once the host has written (before that, it waits).
type Pair struct {
	files [2]*os.File
	log   *slog.Logger

	chunks  chan chunk    // what the readers read, in order per descriptor
	decided chan struct{} // closed when the input is known
	closed  chan struct{} // closed by Close
	readers sync.WaitGroup

	mu        sync.Mutex
	input     int // index of the input descriptor, once decided
	ended     [2]bool
	rest      []byte // the part of the last chunk Read has not returned
	inErr     error  // why the input ended, once it has
	discarded int64  // bytes the host wrote to the output descriptor
	closeOnce sync.Once
}

type chunk struct {
	from int
	data []byte
	err  error // the descriptor ended (data is empty)
}

// Open starts reading both descriptors. r and w are as the host named
// them (R,W); either may turn out to be the input. log, when not nil,
// hears which way the host wired them.
func Open(r, w *os.File, log *slog.Logger) *Pair {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Pair{files: [2]*os.File{r, w}, log: log, chunks: make(chan chunk, 16), decided: make(chan struct{}), closed: make(chan struct{}), input: -1}
	for i := range p.files {
		p.readers.Add(1)
		go p.read(i)
	}
	return p
}

// read reads descriptor i until it ends or the pair closes.
func (p *Pair) read(i int) {
	defer p.readers.Done()
	for {
		buf := make([]byte, chunkBytes)
		n, err := p.files[i].Read(buf)
		if n > 0 {
			select {
			case p.chunks <- chunk{from: i, data: buf[:n]}:
			case <-p.closed:
				p.mu.Lock()
				p.discarded += int64(n) // read, and dropped: the stream is over
				p.mu.Unlock()
				return
			}
		}
		if err != nil {
			select {
			case p.chunks <- chunk{from: i, err: err}:
			case <-p.closed:
			}
			return
		}
	}
}

// Read reads the host's input: the bytes of the descriptor it writes to.
func (p *Pair) Read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		if len(p.rest) > 0 {
			n := copy(b, p.rest)
			p.rest = p.rest[n:]
			p.mu.Unlock()
			return n, nil
		}
		if p.inErr != nil {
			err := p.inErr
			p.mu.Unlock()
			return 0, err
		}
		p.mu.Unlock()
		var c chunk
		select {
		case c = <-p.chunks:
		case <-p.closed:
			return 0, io.EOF
		}
		p.take(c)
	}
}

// take files one chunk: the first data decides the input; data on the
// output descriptor is dropped; an end of the input ends Read.
func (p *Pair) take(c chunk) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.err != nil {
		p.ended[c.from] = true
		switch {
		case p.input == c.from:
			p.inErr = eof(c.err)
		case p.input < 0 && p.ended[0] && p.ended[1]:
			p.inErr = io.EOF // neither ever spoke
		}
		return
	}
	if p.input < 0 {
		p.input = c.from
		close(p.decided)
		if c.from == 1 {
			p.log.Info("mcp: the host writes to the second descriptor: answering on the first", "in", p.files[1].Name(), "out", p.files[0].Name())
		}
	}
	if c.from != p.input {
		p.discarded += int64(len(c.data))
		p.log.Warn("mcp: the host wrote to the descriptor lspkit answers on; dropped", "bytes", len(c.data))
		return
	}
	p.rest = c.data
}

// eof is io.EOF for any end of a descriptor a host closed.
func eof(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded) {
		return io.EOF
	}
	return err
}

// Write writes to the descriptor the host does not write to, once it has
// written; before that it waits, and fails once the pair is closed.
func (p *Pair) Write(b []byte) (int, error) {
	select {
	case <-p.decided:
	case <-p.closed:
		return 0, os.ErrClosed
	}
	p.mu.Lock()
	out := p.files[1-p.input]
	p.mu.Unlock()
	return out.Write(b)
}

// closeWait bounds Close's wait for a reader the deadline cannot wake (a
// descriptor outside the poller, as on Windows).
const closeWait = time.Second

// Close stops the stream: every byte the host has written to either
// descriptor is read (and dropped), then both are closed.
func (p *Pair) Close() error {
	p.closeOnce.Do(func() {
		close(p.closed)
		// Readers blocked in a read are woken (a descriptor in the
		// poller honours deadlines), then what is left is drained.
		for _, f := range p.files {
			f.SetReadDeadline(time.Now())
		}
		done := make(chan struct{})
		go func() {
			p.readers.Wait()
			close(done)
		}()
		t := time.NewTimer(closeWait)
		select {
		case <-done:
			p.dropQueued()
			for _, f := range p.files {
				f.SetReadDeadline(time.Time{}) // else the raw read is refused as past its deadline
				n := drain(f)
				p.mu.Lock()
				p.discarded += n
				p.mu.Unlock()
			}
		case <-t.C:
		}
		t.Stop()
		for _, f := range p.files {
			f.Close()
		}
	})
	return nil
}

// dropQueued counts the chunks read and not taken by Read as dropped.
func (p *Pair) dropQueued() {
	for {
		select {
		case c := <-p.chunks:
			p.mu.Lock()
			p.discarded += int64(len(c.data))
			p.mu.Unlock()
		default:
			return
		}
	}
}

// Discarded is how many bytes the host wrote that were not its input:
// written to the output descriptor, or after the stream closed.
func (p *Pair) Discarded() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.discarded
}
