package mcpserver

import (
	"bytes"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxAnswerWait bounds how long the end of a client's input is held back
// for requests still unanswered (a request the SDK never answers must not
// keep the daemon up for ever); the tools' own timeouts are far shorter.
const MaxAnswerWait = 5 * time.Minute

// StdioTransport is MCP's stdio transport (newline-delimited JSON) over in
// and out that answers every request read before in ended: the end of
// input reaches the MCP session only once each request read so far has
// its response written, so a client that writes its last request and
// closes its side at once still gets the answer.
func StdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	t := &tracker{open: map[string]bool{}, idle: closedChan()}
	return &mcp.IOTransport{
		Reader: io.NopCloser(&trackedReader{r: in, t: t}),
		Writer: nopWriteCloser{&trackedWriter{w: out, t: t}},
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

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

// lines splits a byte stream into lines, handing each complete one to fn.
type lines struct {
	partial []byte
}

func (l *lines) feed(p []byte, fn func([]byte)) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.partial = append(l.partial, p...)
			return
		}
		line := p[:i]
		if len(l.partial) > 0 {
			line = append(l.partial, line...)
			l.partial = l.partial[:0]
		}
		fn(line)
		p = p[i+1:]
	}
}

func (l *lines) flush(fn func([]byte)) {
	if len(l.partial) > 0 {
		fn(l.partial)
		l.partial = nil
	}
}

// message is what the tracker needs of a JSON-RPC message.
type message struct {
	ID     jsontext.Value `json:"id"`
	Method string         `json:"method"`
}

// messages calls fn for each message on a line (one, or a batch's).
func messages(line []byte, fn func(message)) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] == '[' {
		var batch []message
		if json.Unmarshal(line, &batch) == nil {
			for _, m := range batch {
				fn(m)
			}
		}
		return
	}
	var m message
	if json.Unmarshal(line, &m) == nil {
		fn(m)
	}
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

// trackedReader records the requests read, and holds back the end of input
// until they are answered.
type trackedReader struct {
	r     io.Reader
	t     *tracker
	lines lines
}

func (r *trackedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.lines.feed(p[:n], r.record)
	if err == io.EOF {
		r.lines.flush(r.record)
		if n > 0 {
			return n, nil // the next Read reports the end
		}
		r.t.waitIdle()
	}
	return n, err
}

func (r *trackedReader) record(line []byte) {
	messages(line, func(m message) {
		if m.Method == "" {
			return
		}
		if key, ok := idKey(m.ID); ok {
			r.t.add(key)
		}
	})
}

// trackedWriter marks requests answered as their responses are written.
type trackedWriter struct {
	mu    sync.Mutex
	w     io.Writer
	t     *tracker
	lines lines
}

func (w *trackedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.w.Write(p)
	if err != nil {
		w.t.abandon() // nothing more reaches the client: nothing to wait for
	}
	w.lines.feed(p[:n], func(line []byte) {
		messages(line, func(m message) {
			if m.Method != "" {
				return // a request or notification of ours
			}
			if key, ok := idKey(m.ID); ok {
				w.t.done(key)
			}
		})
	})
	return n, err
}
