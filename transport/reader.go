package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Default limits of a Reader.
const (
	DefaultMaxFrameSize  = 64 << 20 // 64 MiB
	DefaultMaxHeaderSize = 4 << 10  // 4 KiB for the whole header block
	defaultBufferSize    = 64 << 10
	// keepBodySize is the largest outsized-frame buffer a Reader keeps for
	// the next outsized frame; a larger one is released at the next read.
	keepBodySize = 1 << 20
	// growStep bounds how far the body buffer of an outsized frame grows
	// ahead of the bytes that actually arrived, so a hostile length cannot
	// make the Reader allocate memory it was never sent.
	growStep = 1 << 20
)

// ReaderOptions configures a Reader. Zero fields take the defaults.
type ReaderOptions struct {
	MaxFrameSize  int // largest accepted Content-Length (DefaultMaxFrameSize)
	MaxHeaderSize int // largest header block, terminating blank line included (DefaultMaxHeaderSize)
	BufferSize    int // read buffer; frames up to this size are served from it (64 KiB)
}

// A FrameError reports input that is not a valid frame. Offset is the
// position in the stream, counted in bytes from the first byte read, where
// the problem lies. A truncated frame is a FrameError wrapping
// io.ErrUnexpectedEOF; a failure of the underlying reader is wrapped as is.
type FrameError struct {
	Offset int64
	Msg    string
	Err    error
}

// Error says what was wrong and at which byte of the stream.
func (e *FrameError) Error() string {
	s := fmt.Sprintf("transport: byte %d: %s", e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *FrameError) Unwrap() error { return e.Err }

// A Reader reads frames of the LSP base protocol: a header block of
// "Name: value" lines, each ended by CRLF or a bare LF, then a blank line,
// then Content-Length bytes of body. Header names are matched without regard
// to case; Content-Type and unknown headers are ignored.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	src    io.Reader
	buf    []byte // buffered input is buf[r:w]
	r, w   int
	body   []byte // the buffer of frames larger than buf
	offset int64  // stream offset of buf[r]
	err    error  // sticky error of src

	maxFrame, maxHeader int
}

// NewReader returns a Reader of frames from src.
func NewReader(src io.Reader, opts ReaderOptions) *Reader {
	if opts.MaxFrameSize <= 0 {
		opts.MaxFrameSize = DefaultMaxFrameSize
	}
	if opts.MaxHeaderSize <= 0 {
		opts.MaxHeaderSize = DefaultMaxHeaderSize
	}
	if opts.BufferSize <= 0 {
		opts.BufferSize = defaultBufferSize
	}
	if opts.BufferSize < opts.MaxHeaderSize {
		opts.BufferSize = opts.MaxHeaderSize
	}
	return &Reader{src: src, buf: make([]byte, opts.BufferSize), maxFrame: opts.MaxFrameSize, maxHeader: opts.MaxHeaderSize}
}

// Reset discards the Reader's state and makes it read from src, keeping its
// buffers.
func (r *Reader) Reset(src io.Reader) {
	r.src, r.r, r.w, r.offset, r.err = src, 0, 0, 0, nil
}

// Offset returns how many bytes of the stream the Reader has consumed.
func (r *Reader) Offset() int64 { return r.offset }

// ReadFrame returns the body of the next frame. The slice is borrowed: it is
// valid only until the next call. At a clean end of the stream, between
// frames, the error is io.EOF.
func (r *Reader) ReadFrame() ([]byte, error) {
	if cap(r.body) > keepBodySize {
		r.body = nil // shrink after an outsized frame
	}
	length, err := r.readHeader()
	if err != nil {
		return nil, err
	}
	if length <= len(r.buf) {
		for r.w-r.r < length {
			if err := r.fill(); err != nil {
				return nil, r.truncated(err, "frame body")
			}
		}
		body := r.buf[r.r : r.r+length]
		r.consume(length)
		return body, nil
	}
	return r.readOutsized(length)
}

// readHeader parses the header block and returns the Content-Length.
func (r *Reader) readHeader() (int, error) {
	length := -1
	rel := 0 // scan position relative to r.r
	for {
		i := bytes.IndexByte(r.buf[r.r+rel:r.w], '\n')
		if i < 0 {
			if r.w-r.r >= r.maxHeader {
				return 0, &FrameError{Offset: r.offset, Msg: fmt.Sprintf("header block longer than %d bytes", r.maxHeader)}
			}
			if err := r.fill(); err != nil {
				if r.w == r.r {
					// Between frames nothing is truncated: the stream
					// ended (io.EOF), or its reader failed as it closed
					// (a server's exit closing the pipe), as it says.
					if errors.Is(err, io.EOF) {
						return 0, io.EOF
					}
					return 0, err
				}
				return 0, r.truncated(err, "frame header")
			}
			continue
		}
		lineStart := r.r + rel
		line := r.buf[lineStart : lineStart+i]
		rel += i + 1
		if rel > r.maxHeader {
			return 0, &FrameError{Offset: r.offset, Msg: fmt.Sprintf("header block longer than %d bytes", r.maxHeader)}
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		lineOffset := r.offset + int64(lineStart-r.r)
		if len(line) == 0 {
			if length < 0 {
				return 0, &FrameError{Offset: lineOffset, Msg: "header block without Content-Length"}
			}
			r.consume(rel)
			return length, nil
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return 0, &FrameError{Offset: lineOffset, Msg: fmt.Sprintf("malformed header line %q", clip(line))}
		}
		if !equalFold(line[:colon], "content-length") {
			continue
		}
		n, ok := parseLength(trimSpace(line[colon+1:]), r.maxFrame)
		switch {
		case !ok && n > r.maxFrame:
			return 0, &FrameError{Offset: lineOffset, Msg: fmt.Sprintf("Content-Length %s exceeds the %d-byte limit", clip(trimSpace(line[colon+1:])), r.maxFrame)}
		case !ok:
			return 0, &FrameError{Offset: lineOffset, Msg: fmt.Sprintf("invalid Content-Length %q", clip(trimSpace(line[colon+1:])))}
		case length >= 0 && n != length:
			return 0, &FrameError{Offset: lineOffset, Msg: "conflicting Content-Length headers"}
		}
		length = n
	}
}

// readOutsized reads a body larger than the read buffer into r.body,
// growing it only as bytes arrive.
func (r *Reader) readOutsized(length int) ([]byte, error) {
	start := r.offset
	body := r.body[:0]
	buffered := r.buf[r.r:r.w]
	body = append(body, buffered...)
	r.consume(len(buffered))
	r.r, r.w = 0, 0
	for len(body) < length {
		if len(body) == cap(body) {
			grown := make([]byte, len(body), min(length, cap(body)+max(cap(body), growStep)))
			copy(grown, body)
			body = grown
		}
		if r.err != nil {
			r.body = body[:0]
			return nil, &FrameError{Offset: start + int64(len(body)), Msg: fmt.Sprintf("truncated frame body (%d of %d bytes)", len(body), length), Err: unexpected(r.err)}
		}
		n, err := r.src.Read(body[len(body):min(cap(body), length)])
		body = body[:len(body)+n]
		r.offset += int64(n)
		if err != nil {
			r.err = err
		}
	}
	r.body = body
	return body, nil
}

// fill reads more input into the buffer, moving the unread bytes to its
// start first if the buffer's tail is full. It returns an error only when no
// byte could be added.
func (r *Reader) fill() error {
	if r.err != nil {
		return r.err
	}
	if r.w == len(r.buf) {
		if r.r == 0 {
			return errors.New("read buffer full") // callers bound their needs by len(buf)
		}
		n := copy(r.buf, r.buf[r.r:r.w])
		r.r, r.w = 0, n
	}
	for tries := 0; tries < 100; tries++ {
		n, err := r.src.Read(r.buf[r.w:])
		r.w += n
		if err != nil {
			r.err = err
		}
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
	r.err = io.ErrNoProgress
	return r.err
}

func (r *Reader) consume(n int) {
	r.r += n
	r.offset += int64(n)
	if r.r == r.w {
		r.r, r.w = 0, 0
	}
}

// truncated turns an end of input inside a frame into io.ErrUnexpectedEOF.
func (r *Reader) truncated(err error, what string) error {
	return &FrameError{Offset: r.offset + int64(r.w-r.r), Msg: "truncated " + what, Err: unexpected(err)}
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// parseLength parses a decimal Content-Length: digits only, no sign, at most
// limit. It returns limit+1 and false when the number is larger.
func parseLength(b []byte, limit int) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
		if n > limit {
			return limit + 1, false
		}
	}
	return n, true
}

// tokenChars marks the bytes an RFC 7230 token may hold.
var tokenChars = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune(`"(),/:;<=>?@[\]{}`, rune(c))
	}
	return t
}()

// isToken reports whether b is an RFC 7230 token, as a header name must be.
func isToken(b []byte) bool {
	for _, c := range b {
		if !tokenChars[c] {
			return false
		}
	}
	return true
}

// equalFold reports whether b equals the lower-case ASCII string s, ignoring case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// clip shortens bad input quoted in an error message.
func clip(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}
