// Package jsonl is the newline-delimited JSON-RPC stream under lspkit's
// MCP stdio transport: it passes the session whole JSON-RPC 2.0 messages
// only, answers the client's malformed lines itself, gives the SDK's
// code-0 errors JSON-RPC codes, and holds the end of input back until
// every request read has its answer written.
package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/transport"
)

// MaxAnswerWait bounds how long the end of a client's input is held back
// for requests still unanswered (a request the SDK never answers must not
// keep the daemon up for ever); the tools' own timeouts are far shorter.
const MaxAnswerWait = 5 * time.Minute

// MaxLineBytes bounds one message (one line) read from the client, as
// serve bounds a frame: a longer line is refused with an error, not read
// into memory. A tool call's largest argument, a file's text, is at most
// maxFileBytes (2 MiB by default) before JSON escaping.
const MaxLineBytes = 16 << 20

// Stream wraps the client's input and output: what the session reads and
// what it writes.
func Stream(in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	t := &tracker{open: map[string]bool{}, idle: closedChan()}
	w := &trackedWriter{w: out, t: t}
	return &trackedReader{r: in, t: t, w: w, lines: lines{max: MaxLineBytes}}, w
}

func closedChan() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// tracker is the set of request ids read and not yet answered.
type tracker struct {
	mu   sync.Mutex
	open map[string]bool
	idle chan struct{} // closed while open is empty
}

func (t *tracker) add(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.open) == 0 {
		t.idle = make(chan struct{})
	}
	t.open[id] = true
}

func (t *tracker) done(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.open[id] {
		return
	}
	delete(t.open, id)
	if len(t.open) == 0 {
		close(t.idle)
	}
}

// abandon forgets every open request.
func (t *tracker) abandon() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.open) > 0 {
		clear(t.open)
		close(t.idle)
	}
}

func (t *tracker) waitIdle() {
	t.mu.Lock()
	idle := t.idle
	t.mu.Unlock()
	select {
	case <-idle:
	case <-time.After(MaxAnswerWait):
	}
}

// lines splits a byte stream into lines, handing each complete one to fn;
// a line longer than max (when set) is handed over once, as its first
// keptBytes (where its id is read from) with overlong set, the rest of its
// bytes dropped as they come.
type lines struct {
	max      int
	partial  []byte
	overlong bool
}

// keptBytes is how much of an overlong line is kept to read its id.
const keptBytes = 64 << 10

func (l *lines) feed(p []byte, fn func(line []byte, overlong bool)) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.add(p)
			return
		}
		l.add(p[:i])
		fn(l.partial, l.overlong)
		l.partial, l.overlong = l.partial[:0], false
		p = p[i+1:]
	}
}

// add appends to the line being read, or drops it past max, keeping its
// beginning.
func (l *lines) add(p []byte) {
	if l.overlong {
		return
	}
	if l.max > 0 && len(l.partial)+len(p) > l.max {
		keep := min(keptBytes, l.max)
		if len(l.partial) < keep {
			l.partial = append(l.partial, p[:keep-len(l.partial)]...)
		}
		l.partial, l.overlong = l.partial[:keep:keep], true
		return
	}
	l.partial = append(l.partial, p...)
}

func (l *lines) flush(fn func(line []byte, overlong bool)) {
	if l.overlong || len(l.partial) > 0 {
		fn(l.partial, l.overlong)
	}
	l.partial, l.overlong = nil, false
}

// message is what the tracker needs of a JSON-RPC message.
type message struct {
	ID     jsontext.Value `json:"id"`
	Method string         `json:"method"`
}

// idKey is a request id as a map key: strings as themselves, numbers in
// one canonical form, anything else not at all.
func idKey(id jsontext.Value) (string, bool) {
	switch id.Kind() {
	case '"':
		var s string
		if json.Unmarshal(id, &s) != nil {
			return "", false
		}
		return "s" + s, true
	case '0':
		f, err := strconv.ParseFloat(string(id), 64)
		if err != nil {
			return "", false
		}
		return "n" + strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}

// trackedReader passes the client's valid messages on to the session,
// answers the others itself, records the requests read, and holds back the
// end of input until they are answered.
type trackedReader struct {
	r     io.Reader
	t     *tracker
	w     *trackedWriter // where its own answers go
	lines lines
	ready []byte // valid lines for the session, newline-terminated
	buf   []byte
	eof   bool
}

func (r *trackedReader) Read(p []byte) (int, error) {
	for len(r.ready) == 0 {
		if r.eof {
			r.t.waitIdle()
			return 0, io.EOF
		}
		if r.buf == nil {
			r.buf = make([]byte, 64<<10)
		}
		n, err := r.r.Read(r.buf)
		r.lines.feed(r.buf[:n], r.take)
		if err == io.EOF {
			r.lines.flush(r.take)
			r.eof = true
		} else if err != nil {
			return 0, err
		}
	}
	n := copy(p, r.ready)
	r.ready = r.ready[n:]
	if len(r.ready) == 0 {
		r.ready = nil
	}
	return n, nil
}

// take passes a valid line on (recording a request) or answers an invalid
// one; an overlong line is only the beginning of one over the limit.
func (r *trackedReader) take(line []byte, overlong bool) {
	line = bytes.TrimSpace(line)
	if !overlong && len(line) == 0 {
		return // blank lines are nothing
	}
	id, code, msg := check(line, overlong)
	if code != 0 {
		r.w.reply(id, code, msg)
		return
	}
	var m message
	json.Unmarshal(line, &m)
	if key, ok := idKey(m.ID); ok && m.Method != "" {
		r.t.add(key)
	}
	r.ready = append(append(r.ready, line...), '\n')
}

// check says whether line is one JSON-RPC 2.0 message; if not, the error
// code and message to answer with, and the id to answer to: the message's
// top-level id whenever it can be read (transport.PeekID), else null. An
// overlong line is the beginning of a message over the limit.
func check(line []byte, overlong bool) (jsontext.Value, int64, string) {
	if overlong {
		return peekID(line), transport.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", MaxLineBytes)
	}
	var v jsontext.Value
	if err := json.Unmarshal(line, &v); err != nil {
		return peekID(line), transport.CodeParseError, "parse error: " + bounded(err.Error())
	}
	null := jsontext.Value("null")
	switch jsontext.Value(line).Kind() {
	case '[':
		return null, transport.CodeInvalidRequest, "batches are not supported: send one message per line"
	case '{':
	default:
		return null, transport.CodeInvalidRequest, "a message must be a JSON object"
	}
	var m struct {
		JSONRPC *string        `json:"jsonrpc"`
		ID      jsontext.Value `json:"id"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return null, transport.CodeInvalidRequest, "invalid message: " + bounded(err.Error())
	}
	id := null
	switch m.ID.Kind() {
	case 0, 'n':
	case '"':
		id = m.ID
	case '0':
		if _, err := strconv.ParseInt(string(m.ID), 10, 64); err != nil {
			return null, transport.CodeInvalidRequest, "an id number must be an integer that fits 64 bits"
		}
		id = m.ID
	default:
		return null, transport.CodeInvalidRequest, "an id must be a string, an integer or null"
	}
	if m.JSONRPC == nil || *m.JSONRPC != "2.0" {
		return id, transport.CodeInvalidRequest, `"jsonrpc" must be "2.0"`
	}
	return nil, 0, ""
}

// bounded cuts a message that may quote the client's input.
func bounded(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}

// trackedWriter writes the session's messages a line at a time, giving
// code-0 errors their JSON-RPC codes, and marks requests answered as their
// responses are written.
type trackedWriter struct {
	mu    sync.Mutex
	w     io.Writer
	t     *tracker
	lines lines
	err   error
}

func (w *trackedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines.feed(p, w.line)
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// line writes one complete message of the session's.
func (w *trackedWriter) line(line []byte, _ bool) {
	var m struct {
		ID     jsontext.Value `json:"id"`
		Method string         `json:"method"`
		Error  *struct {
			Code    int64          `json:"code"`
			Message string         `json:"message"`
			Data    jsontext.Value `json:"data,omitzero"`
		} `json:"error"`
	}
	decoded := json.Unmarshal(line, &m) == nil
	if decoded && m.Error != nil && m.Error.Code == 0 {
		if fixed, err := json.Marshal(errorReply{JSONRPC: "2.0", ID: m.ID, Error: replyError{Code: sdkErrorCode(m.Error.Message), Message: m.Error.Message, Data: m.Error.Data}}); err == nil {
			line = fixed
		}
	}
	w.writeLocked(line)
	if decoded && m.Method == "" {
		if key, ok := idKey(m.ID); ok {
			w.t.done(key)
		}
	}
}

// sdkErrorCode is the JSON-RPC code for an error the SDK sent with code 0.
func sdkErrorCode(msg string) int64 {
	switch {
	case strings.Contains(msg, "unsupported"), strings.Contains(msg, "not handled"):
		return transport.CodeMethodNotFound
	case strings.Contains(msg, "during session initialization"):
		return transport.CodeInvalidRequest
	}
	return transport.CodeInternalError
}

// errorReply is an error response, its members in the usual order.
type errorReply struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      jsontext.Value `json:"id"`
	Error   replyError     `json:"error"`
}

type replyError struct {
	Code    int64          `json:"code"`
	Message string         `json:"message"`
	Data    jsontext.Value `json:"data,omitzero"`
}

// reply writes an error answer of the transport's own.
func (w *trackedWriter) reply(id jsontext.Value, code int64, msg string) {
	line, err := json.Marshal(errorReply{JSONRPC: "2.0", ID: id, Error: replyError{Code: code, Message: msg}})
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeLocked(line)
}

func (w *trackedWriter) writeLocked(line []byte) {
	if w.err != nil {
		return
	}
	if _, err := w.w.Write(append(line, '\n')); err != nil {
		w.err = err
		w.t.abandon() // nothing more reaches the client: nothing to wait for
	}
}

// peekID is the top-level id of a message that could not be read whole, as
// JSON, or null.
func peekID(line []byte) jsontext.Value {
	id, ok := transport.PeekID(line)
	if str, isStr := id.Str(); !ok || isStr && !utf8.ValidString(str) {
		return jsontext.Value("null")
	}
	return jsontext.Value(id.String())
}
