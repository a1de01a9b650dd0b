package shared

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/mcpserver/jsonl"
	"github.com/lspkit/lspkit/transport"
)

// A Relay carries one client's stream to a shared daemon and back, so the
// client sees what `lspkit serve` or `lspkit mcp` of its own would show it:
// the daemon's answers unchanged, lsp/ready once, every request it read
// answered before its input's end ends the session. When the daemon dies,
// each request it had not answered fails with an error that says so, and
// the next request attaches again — starting a new daemon if none serves —
// replaying the MCP session's initialize first.
type Relay struct {
	// Surface is SurfaceRPC, SurfaceMCP or SurfaceMCPReadOnly.
	Surface string
	// Attach connects to the daemon, starting it if needed (see Attach).
	Attach func(ctx context.Context) (*Conn, error)
	// Logger receives what the relay sees go wrong; nil discards it.
	Logger *slog.Logger
}

// initID is the id of the initialize request a relay replays to a new
// daemon for an MCP client: its answer is the relay's, not the client's.
const initID = "lspkit-relay-initialize"

// replayTimeout bounds the wait for a new daemon's answer to a replayed
// initialize.
const replayTimeout = 10 * time.Second

// Run attaches and relays between in/out and the daemon until in ends
// (every request read answered first), the daemon ends the session
// (lsp/shutdown or exit answered) or ctx ends. A frame that cannot be read
// from in ends it with the error, as it ends `lspkit serve`.
func (r *Relay) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	if r.Surface == SurfaceLSP {
		return r.pipe(ctx, in, out)
	}
	s := &relaying{Relay: r, pending: map[string]jsontext.Value{}, quiet: make(chan struct{}, 1), ended: make(chan struct{})}
	var next func() ([]byte, error)
	switch r.Surface {
	case SurfaceRPC:
		fr := transport.NewReader(in, transport.ReaderOptions{})
		fw := transport.NewWriter(out)
		next = fr.ReadFrame
		s.emit = fw.WriteFrame
	case SurfaceMCP, SurfaceMCPReadOnly:
		// jsonl answers the client's malformed lines itself, as the
		// daemon would, and holds in's end back until every request read
		// is answered through its writer.
		jr, jw := jsonl.Stream(in, out)
		br := bufio.NewReaderSize(jr, 64<<10)
		next = func() ([]byte, error) {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return nil, err
			}
			return line[:len(line)-1], nil
		}
		s.emit = func(msg []byte) error {
			_, err := jw.Write(append(msg, '\n'))
			return err
		}
	default:
		return fmt.Errorf("shared: unknown surface %q", r.Surface)
	}
	if _, err := s.connect(ctx); err != nil {
		return err
	}
	inputEnded := make(chan error, 1)
	go func() {
		for {
			msg, err := next()
			if err != nil {
				inputEnded <- err
				return
			}
			s.forward(ctx, msg)
		}
	}()
	select {
	case err := <-inputEnded:
		if !errors.Is(err, io.EOF) {
			s.close()
			return fmt.Errorf("rpc: input: %w", err)
		}
		s.drain(ctx)
		s.close()
		return nil
	case <-s.ended:
		return nil
	case <-ctx.Done():
		s.close()
		return nil
	}
}

// relaying is one Run's state.
type relaying struct {
	*Relay
	emit  func(msg []byte) error // writes one message to the client
	outMu sync.Mutex

	mu       sync.Mutex
	conn     *Conn
	attached bool                      // a daemon was attached before
	pending  map[string]jsontext.Value // requests sent and not answered, by id key: their raw ids
	writing  string                    // the key of the request being written: its forward decides its fate, not drop
	quiet    chan struct{}             // gets a value when pending empties or the daemon is lost
	ending   bool                      // lsp/shutdown or exit sent: the daemon ends the session
	ready    bool                      // lsp/ready passed on
	initLine []byte                    // the client's MCP initialize, for a new daemon
	inited   []byte                    // its notifications/initialized
	replayed chan struct{}             // closed when a replayed initialize is answered
	ended    chan struct{}             // closed when the daemon ended the session
	endOnce  sync.Once
}

// send writes msg to the client.
func (s *relaying) send(msg []byte) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if err := s.emit(msg); err != nil {
		s.Logger.Debug("shared relay: write to the client", "err", err)
	}
}

// write writes msg to the daemon on c.
func (s *relaying) write(c *Conn, msg []byte) error {
	if s.Surface == SurfaceRPC {
		return transport.NewWriter(c).WriteFrame(msg)
	}
	_, err := c.Write(append(msg[:len(msg):len(msg)], '\n'))
	return err
}

// forward passes one message of the client's to the daemon, attaching
// first when none is attached.
func (s *relaying) forward(ctx context.Context, msg []byte) {
	var e transport.Envelope
	scanned := e.ScanExact(msg) == nil
	key, id := "", jsontext.Value(nil)
	if scanned && e.Kind == transport.KindRequest {
		key, id = idOf(&e)
	}
	method := ""
	if scanned {
		method = string(e.Method)
	}
	if isMCP(s.Surface) {
		switch method {
		case "initialize":
			s.initLine = append([]byte(nil), msg...)
		case "notifications/initialized":
			s.inited = append([]byte(nil), msg...)
		}
	}
	for attempt := 0; ; attempt++ {
		c, err := s.connect(ctx)
		if err != nil {
			if key != "" {
				s.fail(id, fmt.Sprintf("cannot attach to the shared lspkit daemon: %v", err))
			}
			return
		}
		s.mu.Lock()
		if key != "" {
			s.pending[key], s.writing = id, key
		}
		if s.Surface == SurfaceRPC {
			switch method {
			case "lsp/shutdown", "shutdown", "exit", "lsp/exit":
				s.ending = true
			}
		}
		s.mu.Unlock()
		err = s.write(c, msg)
		s.mu.Lock()
		s.writing = ""
		dropped := s.conn != c // the daemon was found gone while this was written
		if (err != nil || dropped) && key != "" {
			// Not written, or written to a daemon found gone: its fate
			// stays this forward's (retried on the next daemon, or failed
			// below), in the same breath as it stops being written — else
			// a reader finding a daemon gone now would fail it too, and
			// the retry answer it a second time.
			delete(s.pending, key)
			if len(s.pending) == 0 {
				s.signal()
			}
		}
		s.mu.Unlock()
		switch {
		case err == nil && !dropped:
			return
		case err == nil:
			// Written as the daemon went: it may have read it, so it
			// fails as the daemon's other requests did.
			if key != "" {
				s.fail(id, fmt.Sprintf("the shared lspkit daemon (pid %d) ended as the request reached it; the next request starts it again", c.PID))
			}
			return
		}
		s.Logger.Debug("shared relay: write to the daemon", "err", err)
		s.drop(c, err)
		if attempt > 0 {
			if key != "" {
				s.fail(id, fmt.Sprintf("the shared lspkit daemon (pid %d) could not be written to: %v", c.PID, err))
			}
			return
		}
		// The daemon was gone before this message reached it: the
		// requests it had fail, and this one goes to the next daemon.
	}
}

// connect returns the attached daemon's connection, attaching (and, for
// MCP, replaying the session's initialize) when there is none.
func (s *relaying) connect(ctx context.Context) (*Conn, error) {
	s.mu.Lock()
	c, again := s.conn, s.attached
	s.mu.Unlock()
	if c != nil {
		return c, nil
	}
	c, err := s.Attach(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.conn, s.attached = c, true
	s.mu.Unlock()
	if again {
		s.Logger.Info("shared relay: attached again", "pid", c.PID)
	}
	var replayed chan struct{}
	if again && isMCP(s.Surface) && s.initLine != nil {
		replayed = make(chan struct{})
		s.mu.Lock()
		s.replayed = replayed
		s.mu.Unlock()
	}
	go s.read(c)
	if replayed != nil {
		if err := s.replay(c, replayed); err != nil {
			s.drop(c, err)
			return nil, fmt.Errorf("the new daemon's MCP session: %w", err)
		}
	}
	return c, nil
}

// replay begins the MCP session again on a new daemon: the client's
// initialize (under the relay's id, its answer kept from the client) and
// its notifications/initialized.
func (s *relaying) replay(c *Conn, replayed chan struct{}) error {
	var m map[string]jsontext.Value
	if err := json.Unmarshal(s.initLine, &m); err != nil {
		return err
	}
	m["id"] = jsontext.Value(strconv.Quote(initID))
	line, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := s.write(c, line); err != nil {
		return err
	}
	timer := time.NewTimer(replayTimeout)
	defer timer.Stop()
	select {
	case <-replayed:
	case <-timer.C:
		return fmt.Errorf("initialize not answered within %s", replayTimeout)
	}
	if s.inited != nil {
		return s.write(c, s.inited)
	}
	return nil
}

// read passes the daemon's messages on c to the client until c ends.
func (s *relaying) read(c *Conn) {
	var next func() ([]byte, error)
	if s.Surface == SurfaceRPC {
		next = transport.NewReader(c, transport.ReaderOptions{}).ReadFrame
	} else {
		br := bufio.NewReaderSize(c, 64<<10)
		next = func() ([]byte, error) {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return nil, err
			}
			return line[:len(line)-1], nil
		}
	}
	var err error
	for {
		var msg []byte
		if msg, err = next(); err != nil {
			break
		}
		var e transport.Envelope
		if e.ScanExact(msg) == nil {
			switch e.Kind {
			case transport.KindResponse:
				key, _ := idOf(&e)
				if key == "s"+initID {
					s.mu.Lock()
					if s.replayed != nil {
						close(s.replayed)
						s.replayed = nil
					}
					s.mu.Unlock()
					continue
				}
				s.answered(key)
			case transport.KindNotification:
				if string(e.Method) == "lsp/ready" {
					s.mu.Lock()
					again := s.ready
					s.ready = true
					s.mu.Unlock()
					if again {
						continue // the client was told once
					}
				}
			}
		}
		s.send(msg)
	}
	s.drop(c, err)
}

// answered notes that the request with key has its answer.
func (s *relaying) answered(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pending[key]; !ok {
		return
	}
	delete(s.pending, key)
	if len(s.pending) == 0 {
		s.signal()
	}
}

// signal wakes drain; s.mu is held.
func (s *relaying) signal() {
	select {
	case s.quiet <- struct{}{}:
	default:
	}
}

// drop forgets c, ended by err: its unanswered requests fail, saying the
// daemon is gone, unless the client ended the session.
func (s *relaying) drop(c *Conn, err error) {
	c.Close()
	s.mu.Lock()
	if s.conn != c {
		s.mu.Unlock()
		return
	}
	s.conn = nil
	ending := s.ending
	lost := s.pending
	s.pending = map[string]jsontext.Value{}
	if id, ok := lost[s.writing]; ok {
		// Still being written: its forward retries it on the next daemon
		// when the write fails, or fails it.
		s.pending[s.writing] = id
		delete(lost, s.writing)
	}
	s.signal()
	s.mu.Unlock()
	if ending {
		s.endOnce.Do(func() { close(s.ended) })
		return
	}
	why := "its connection closed"
	if err != nil && !errors.Is(err, io.EOF) {
		why = err.Error()
	}
	if len(lost) > 0 {
		s.Logger.Warn("shared relay: the daemon is gone", "pid", c.PID, "unanswered", len(lost), "why", why)
	} else {
		s.Logger.Info("shared relay: the daemon is gone", "pid", c.PID, "why", why)
	}
	for _, id := range lost {
		s.fail(id, fmt.Sprintf("the shared lspkit daemon (pid %d) ended before answering (%s); the next request starts it again", c.PID, why))
	}
}

// fail answers the request with id with an internal error saying why.
func (s *relaying) fail(id jsontext.Value, why string) {
	msg, err := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      jsontext.Value `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{transport.CodeInternalError, why}})
	if err == nil {
		s.send(msg)
	}
}

// drain waits until every request sent has its answer, or the daemon is
// gone (then they were failed), or ctx ends.
func (s *relaying) drain(ctx context.Context) {
	for {
		s.mu.Lock()
		done := len(s.pending) == 0 || s.conn == nil
		s.mu.Unlock()
		if done {
			return
		}
		select {
		case <-s.quiet:
		case <-ctx.Done():
			return
		}
	}
}

// close leaves the daemon.
func (s *relaying) close() {
	s.mu.Lock()
	c := s.conn
	s.ending = true // what follows is our own leaving
	s.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// idOf is a request's id as a map key and as raw JSON; "" for an id the
// daemon cannot echo (a string that is not UTF-8 is answered with null).
func idOf(e *transport.Envelope) (string, jsontext.Value) {
	switch e.IDKind {
	case transport.IDNumber:
		n := strconv.FormatInt(e.IDNum, 10)
		return "n" + n, jsontext.Value(n)
	case transport.IDString:
		if !utf8.Valid(e.IDStr) {
			return "", nil
		}
		raw, err := json.Marshal(string(e.IDStr))
		if err != nil {
			return "", nil
		}
		return "s" + string(e.IDStr), raw
	}
	return "", nil
}

// ErrExitWithoutShutdown is what Run returns for an LSP client that sent
// exit without shutdown first, or left without either: the exit status
// the protocol gives that is 1.
var ErrExitWithoutShutdown = errors.New("shared: the lsp client exited without shutdown")

// pipe relays an LSP client (lspkit lsp --shared) frame by frame: its
// session, its open documents, lives in the daemon, so a daemon lost is
// the session's end, not replayed. It returns when the daemon ends the
// session (after the client's exit, or the end of its input); nil after
// shutdown then exit, ErrExitWithoutShutdown otherwise.
func (r *Relay) pipe(ctx context.Context, in io.Reader, out io.Writer) error {
	conn, err := r.Attach(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var shutdown, exited atomic.Bool
	go func() {
		fr, fw := transport.NewReader(in, transport.ReaderOptions{}), transport.NewWriter(conn)
		for {
			frame, err := fr.ReadFrame()
			if err != nil {
				break
			}
			var m struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(frame, &m) == nil {
				switch m.Method {
				case protocol.ShutdownRequest.Method():
					shutdown.Store(true)
				case protocol.ExitNotification.Method():
					exited.Store(true)
				}
			}
			if err := fw.WriteFrame(frame); err != nil {
				break
			}
		}
		// The client's input ended: so does the daemon's.
		if cw, ok := conn.Conn.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		} else {
			conn.Close()
		}
	}()
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		if _, err := io.Copy(out, conn); err != nil {
			r.Logger.Debug("shared relay: lsp: from the daemon", "err", err)
		}
	}()
	select {
	case <-copied:
	case <-ctx.Done():
		return nil
	}
	if exited.Load() && shutdown.Load() {
		return nil
	}
	return ErrExitWithoutShutdown
}
