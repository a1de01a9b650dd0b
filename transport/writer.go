package transport

import (
	"io"
	"strconv"
	"sync"
)

// headerRoom is room enough for "Content-Length: <20 digits>\r\n\r\n".
const headerRoom = 40

// keepWriteSize is the largest frame buffer a Writer keeps between frames.
const keepWriteSize = 1 << 20

// A Writer writes frames of the LSP base protocol. Each frame, header and
// body, goes to the underlying writer in one Write call, so frames from
// concurrent callers never interleave. It is safe for concurrent use and
// does not allocate in steady state.
type Writer struct {
	mu  sync.Mutex
	dst io.Writer
	buf []byte
	err error // the first failed Write
}

// Err returns the first error of the underlying writer, after which the
// stream is broken; nil while writes succeed.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// NewWriter returns a Writer of frames to dst.
func NewWriter(dst io.Writer) *Writer {
	return &Writer{dst: dst, buf: make([]byte, headerRoom, 4096)}
}

// WriteFrame writes body as one frame.
func (w *Writer) WriteFrame(body []byte) error {
	return w.WriteFrameFunc(func(dst []byte) ([]byte, error) { return append(dst, body...), nil })
}

// WriteFrameFunc writes one frame whose body appendBody appends to dst, so a
// message can be encoded straight into the frame buffer. If appendBody fails,
// nothing is written.
func (w *Writer) WriteFrameFunc(appendBody func(dst []byte) ([]byte, error)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf, err := appendBody(w.buf[:headerRoom])
	if err != nil {
		return err
	}
	// Write the header right-aligned in the room before the body.
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(len(buf)-headerRoom), 10)
	start := headerRoom - len("Content-Length: ") - len(digits) - len("\r\n\r\n")
	h := buf[start:headerRoom]
	n := copy(h, "Content-Length: ")
	n += copy(h[n:], digits)
	copy(h[n:], "\r\n\r\n")
	if w.err != nil {
		return w.err
	}
	if _, err = w.dst.Write(buf[start:]); err != nil {
		w.err = err
	}
	if cap(buf) > keepWriteSize {
		buf = make([]byte, headerRoom, 4096) // shrink after an outsized frame
	}
	w.buf = buf
	return err
}
