package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// CancelMethod is the LSP notification that cancels a request.
const CancelMethod = "$/cancelRequest"

// ID is a JSON-RPC request id: an integer or a string. IDs of the two
// directions of a connection are separate spaces: an incoming request's id
// never matches a call this side made.
type ID struct {
	num   int64
	str   string
	isStr bool
}

// IntID returns an integer id.
func IntID(n int64) ID { return ID{num: n} }

// StringID returns a string id.
func StringID(s string) ID { return ID{str: s, isStr: true} }

// IsString reports whether the id is a string.
func (id ID) IsString() bool { return id.isStr }

// String returns the id as JSON.
func (id ID) String() string {
	if id.isStr {
		return strconv.Quote(id.str)
	}
	return strconv.FormatInt(id.num, 10)
}

func (id ID) appendJSON(b []byte) []byte {
	if id.isStr {
		b, _ = jsontext.AppendQuote(b, id.str)
		return b
	}
	return strconv.AppendInt(b, id.num, 10)
}

// Request is an incoming request or notification.
type Request struct {
	ID           ID // zero for a notification
	Notification bool
	Method       string
	Params       jsontext.Value // raw params (owned by the Request); nil when absent

	afterReply func()
}

// AfterReply registers fn to run once the response to this request has been
// written (or could not be): a handler that ends the connection, such as a
// shutdown request, answers first and closes in fn.
func (r *Request) AfterReply(fn func()) { r.afterReply = fn }

// A Handler handles incoming requests and notifications. For a request, the
// result is encoded as the response's result (nil encodes as null; a
// jsontext.Value or []byte is sent as is) and an error becomes an error
// response (see ErrMethodNotFound and Error); for a notification both are
// ignored, apart from logging the error. The context is cancelled when the
// peer cancels the request or the connection closes.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Options configures a Conn. Zero fields take the defaults.
type Options struct {
	// Handler handles incoming messages; nil answers every request with
	// MethodNotFound and ignores notifications.
	Handler Handler
	// MaxConcurrentRequests bounds incoming requests handled at once (16).
	// When the bound is reached, later messages wait. Handlers that call
	// the peer, whose handlers call back, hold a slot on each side per level
	// of nesting: the bound must exceed the chains that can be in flight.
	MaxConcurrentRequests int
	// Logger receives protocol problems (invalid frames, unknown response
	// ids, handler errors for notifications); nil discards them.
	Logger *slog.Logger
	// Reader configures the frame reader.
	Reader ReaderOptions
}

// A Conn is a JSON-RPC 2.0 connection over LSP base-protocol framing.
// Incoming notifications are handled one at a time in arrival order; an
// incoming request starts after every notification that arrived before it
// was handled, and runs concurrently with later messages. Every incoming
// request is answered.
//
// Messages wait for their handler in an unbounded queue, so reading never
// stops for a busy handler: responses keep flowing to handlers that call the
// peer themselves. A peer that floods faster than handlers finish grows the
// queue.
type Conn struct {
	rwc     io.ReadWriteCloser
	r       *Reader
	w       *Writer
	handler Handler
	log     *slog.Logger
	sem     chan struct{}
	nextID  atomic.Int64

	mu        sync.Mutex
	pending   map[int64]chan callResult // our calls awaiting responses
	running   map[ID]context.CancelFunc // incoming requests not yet answered
	queue     []*Request                // incoming messages not yet dispatched
	queued    chan struct{}             // signalled when queue grows
	closing   bool
	cause     error
	baseCtx   context.Context
	cancelAll context.CancelFunc

	done      chan struct{} // closed when the connection is down
	internal  sync.WaitGroup
	others    sync.WaitGroup // handlers and background sends
	closeOnce sync.Once
}

type callResult struct {
	result []byte
	err    error
}

// NewConn starts a connection over rwc. It owns rwc and closes it when the
// connection ends.
func NewConn(rwc io.ReadWriteCloser, opts Options) *Conn {
	if opts.MaxConcurrentRequests <= 0 {
		opts.MaxConcurrentRequests = 16
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		rwc:       rwc,
		r:         NewReader(rwc, opts.Reader),
		w:         NewWriter(rwc),
		handler:   opts.Handler,
		log:       opts.Logger,
		sem:       make(chan struct{}, opts.MaxConcurrentRequests),
		pending:   map[int64]chan callResult{},
		running:   map[ID]context.CancelFunc{},
		queued:    make(chan struct{}, 1),
		baseCtx:   ctx,
		cancelAll: cancel,
		done:      make(chan struct{}),
	}
	c.internal.Add(2)
	go c.readLoop()
	go c.dispatchLoop()
	return c
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended, or nil while it is up. After Close
// it is ErrClosed; after the peer hung up, io.EOF or the read error.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cause
}

// Close ends the connection: it closes the stream, fails pending calls with
// ErrClosed, cancels running handlers and waits for the connection's own
// goroutines. It does not wait for handlers (see Wait), so a handler may call
// it. Close is idempotent; it returns the stream's close error the first time.
func (c *Conn) Close() error {
	err := c.shutdown(ErrClosed)
	c.internal.Wait()
	return err
}

// Wait blocks until the connection has ended and every goroutine it started,
// handlers included, has returned.
func (c *Conn) Wait() {
	<-c.done
	c.internal.Wait()
	c.others.Wait()
}

// shutdown takes the connection down once, with cause.
func (c *Conn) shutdown(cause error) error {
	var err error
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.cause = cause
		pending := c.pending
		c.pending = map[int64]chan callResult{}
		c.queue = nil
		c.mu.Unlock()
		err = c.rwc.Close()
		c.cancelAll()
		fail := fmt.Errorf("transport: connection down: %w", cause)
		for _, ch := range pending {
			ch <- callResult{err: fail}
		}
		close(c.done)
	})
	return err
}

// Call sends a request and waits for its response, decoding the result into
// result (a pointer, or nil to discard it). params is encoded as JSON (nil
// omits it; a jsontext.Value or []byte is sent as is). A peer's error
// response is returned as *Error. If ctx ends first, Call sends
// $/cancelRequest and returns at once with ctx's error.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("transport: call %s: %w", method, err)
	}
	id := c.nextID.Add(1)
	ch := make(chan callResult, 1)
	c.mu.Lock()
	if c.closing {
		cause := c.cause
		c.mu.Unlock()
		return fmt.Errorf("transport: call %s: connection down: %w", method, cause)
	}
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.send(IntID(id), true, method, params); err != nil {
		c.forget(id)
		return fmt.Errorf("transport: call %s: %w", method, err)
	}
	select {
	case res := <-ch:
		if res.err != nil {
			return res.err
		}
		if result == nil {
			return nil
		}
		if raw, ok := result.(*jsontext.Value); ok {
			*raw = res.result
			return nil
		}
		if err := json.Unmarshal(res.result, result); err != nil {
			return fmt.Errorf("transport: call %s: decode result: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		// Tell the peer to stop, without waiting on a writer that may be stuck.
		c.goBackground(func() {
			_ = c.send(ID{}, false, CancelMethod, jsontext.Value(`{"id":`+strconv.FormatInt(id, 10)+`}`))
		})
		return fmt.Errorf("transport: call %s: %w", method, ctx.Err())
	}
}

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.send(ID{}, false, method, params); err != nil {
		return fmt.Errorf("transport: notify %s: %w", method, err)
	}
	return nil
}

// goBackground runs fn in a goroutine that Wait waits for, unless the
// connection is already down.
func (c *Conn) goBackground(fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return
	}
	c.others.Add(1)
	go func() {
		defer c.others.Done()
		fn()
	}()
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// send writes a request (withID) or a notification.
func (c *Conn) send(id ID, withID bool, method string, params any) error {
	select {
	case <-c.done:
		return fmt.Errorf("connection down: %w", c.Err())
	default:
	}
	raw, err := marshalRaw(params)
	if err != nil {
		return fmt.Errorf("encode params: %w", err)
	}
	err = c.w.WriteFrameFunc(func(b []byte) ([]byte, error) {
		b = append(b, `{"jsonrpc":"2.0",`...)
		if withID {
			b = append(b, `"id":`...)
			b = id.appendJSON(b)
			b = append(b, ',')
		}
		b = append(b, `"method":`...)
		b, err := jsontext.AppendQuote(b, method)
		if err != nil {
			return nil, err
		}
		if raw != nil {
			b = append(b, `,"params":`...)
			b = append(b, raw...)
		}
		return append(b, '}'), nil
	})
	if werr := c.w.Err(); werr != nil {
		c.shutdown(fmt.Errorf("write: %w", werr))
	}
	return err
}

// reply writes a response to an incoming request.
func (c *Conn) reply(id ID, result any, rerr *Error) {
	var raw []byte
	if rerr == nil {
		var err error
		if raw, err = marshalRaw(result); err != nil {
			rerr = &Error{Code: CodeInternalError, Message: "encode result: " + err.Error()}
		} else if raw == nil {
			raw = []byte("null")
		}
	}
	var errRaw []byte
	if rerr != nil {
		var err error
		if errRaw, err = json.Marshal(rerr); err != nil {
			errRaw, _ = json.Marshal(&Error{Code: CodeInternalError, Message: rerr.Message})
		}
	}
	err := c.w.WriteFrameFunc(func(b []byte) ([]byte, error) {
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = id.appendJSON(b)
		if rerr != nil {
			b = append(b, `,"error":`...)
			b = append(b, errRaw...)
		} else {
			b = append(b, `,"result":`...)
			b = append(b, raw...)
		}
		return append(b, '}'), nil
	})
	if werr := c.w.Err(); err != nil && werr != nil {
		c.shutdown(fmt.Errorf("write: %w", werr))
	}
}

// marshalRaw encodes v, passing raw JSON through; nil stays nil.
func marshalRaw(v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case jsontext.Value:
		return x, nil
	case []byte:
		return x, nil
	}
	return json.Marshal(v)
}

// readLoop reads frames until the stream ends, delivering responses and
// queueing requests and notifications.
func (c *Conn) readLoop() {
	defer c.internal.Done()
	var env Envelope
	for {
		frame, err := c.r.ReadFrame()
		if err != nil {
			c.shutdown(err)
			return
		}
		if err := c.scan(&env, frame); err != nil {
			c.invalid(&env, frame, err)
			continue
		}
		switch env.Kind {
		case KindResponse, KindError:
			c.deliver(&env)
		case KindRequest, KindNotification:
			c.incoming(&env)
		}
	}
}

// invalid handles a message that could not be read: a request (it has a
// method member) is answered with a parse or invalid-request error; a response to
// a call of ours fails that call; anything else is logged and skipped.
func (c *Conn) invalid(env *Envelope, frame []byte, err error) {
	c.log.Warn("transport: invalid message", "err", err, "message", clip(frame))
	code := int64(CodeInvalidRequest)
	if se, ok := errors.AsType[*ScanError](err); ok && se.Syntax {
		code = CodeParseError
	}
	if !env.HasMethod() {
		if env.IDKind == IDNumber {
			c.resolve(env.IDNum, callResult{err: fmt.Errorf("transport: invalid response: %w", err)})
		}
		return
	}
	switch env.IDKind {
	case IDNumber:
		c.reply(IntID(env.IDNum), nil, &Error{Code: code, Message: err.Error()})
	case IDString:
		c.reply(StringID(string(env.IDStr)), nil, &Error{Code: code, Message: err.Error()})
	}
}

// deliver hands a response to the call waiting for it.
func (c *Conn) deliver(env *Envelope) {
	if env.IDKind != IDNumber {
		c.log.Warn("transport: response with an id this side never sent", "kind", env.IDKind, "id", string(env.IDStr))
		return
	}
	res := callResult{result: env.Result}
	if env.Kind == KindError {
		var e Error
		if err := json.Unmarshal(env.Error, &e); err != nil {
			res = callResult{err: fmt.Errorf("transport: unreadable error response: %w", err)}
		} else {
			res = callResult{err: &e}
		}
	}
	if !c.resolve(env.IDNum, res) {
		c.log.Debug("transport: response to an unknown or cancelled call", "id", env.IDNum)
	}
}

// resolve completes the pending call id with res (copying its borrowed
// result) and reports whether the call was pending.
func (c *Conn) resolve(id int64, res callResult) bool {
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ok {
		res.result = bytes.Clone(res.result)
		ch <- res
	}
	return ok
}

// incoming queues a request or notification, or applies $/cancelRequest.
func (c *Conn) incoming(env *Envelope) {
	req := &Request{Method: string(env.Method), Notification: env.Kind == KindNotification}
	if env.Params != nil {
		req.Params = bytes.Clone(env.Params)
	}
	if req.Notification && req.Method == CancelMethod {
		c.cancelIncoming(req.Params)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return
	}
	if !req.Notification {
		switch env.IDKind {
		case IDNumber:
			req.ID = IntID(env.IDNum)
		case IDString:
			req.ID = StringID(string(env.IDStr))
		}
	}
	c.queue = append(c.queue, req)
	select {
	case c.queued <- struct{}{}:
	default:
	}
}

// scan reads a frame's envelope and validates its payloads, so handlers and
// callers only ever get valid JSON. A payload span that validates but for
// data after its value means a member holding an object or array followed
// it; the frame is then read again exactly.
func (c *Conn) scan(env *Envelope, frame []byte) error {
	if err := env.Scan(frame); err != nil {
		return err
	}
	err := validatePayloads(env)
	if trailingData(err) {
		if err := env.ScanExact(frame); err != nil {
			return err
		}
		err = validatePayloads(env)
	}
	return err
}

func validatePayloads(env *Envelope) error {
	for _, span := range [][]byte{env.Params, env.Result, env.Error} {
		if span != nil {
			if err := Validate(span); err != nil {
				return err
			}
		}
	}
	return nil
}

// cancelIncoming cancels the handler of the request $/cancelRequest names.
func (c *Conn) cancelIncoming(params []byte) {
	var p struct {
		ID jsontext.Value `json:"id"`
	}
	id, ok := ID{}, false
	if json.Unmarshal(params, &p) == nil {
		id, ok = parseID(p.ID)
	}
	if !ok {
		c.log.Warn("transport: unreadable $/cancelRequest", "params", clip(params))
		return
	}
	c.mu.Lock()
	cancel := c.running[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// parseID reads a raw JSON id: an integer or a string.
func parseID(raw []byte) (ID, bool) {
	if len(raw) > 0 && raw[0] == '"' {
		s, err := jsontext.AppendUnquote(nil, raw)
		return StringID(string(s)), err == nil
	}
	n, ok := parseInt(raw)
	return IntID(n), ok
}

// dispatchLoop hands queued messages to the handler in arrival order.
func (c *Conn) dispatchLoop() {
	defer c.internal.Done()
	for {
		c.mu.Lock()
		var req *Request
		if len(c.queue) > 0 {
			req = c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
		}
		c.mu.Unlock()
		if req == nil {
			select {
			case <-c.queued:
				continue
			case <-c.done:
				return
			}
		}
		if req.Notification {
			c.handleNotification(req)
			continue
		}
		select {
		case c.sem <- struct{}{}:
		case <-c.done:
			return
		}
		ctx, cancel := context.WithCancel(c.baseCtx)
		c.mu.Lock()
		if c.closing {
			c.mu.Unlock()
			cancel()
			<-c.sem
			return
		}
		c.running[req.ID] = cancel
		c.others.Add(1)
		c.mu.Unlock()
		go c.handleRequest(ctx, cancel, req)
	}
}

func (c *Conn) handleNotification(req *Request) {
	if c.handler == nil {
		return
	}
	_, err := c.call(c.baseCtx, req)
	if err != nil && !errors.Is(err, ErrMethodNotFound) {
		c.log.Warn("transport: notification handler failed", "method", req.Method, "err", err)
	}
}

func (c *Conn) handleRequest(ctx context.Context, cancel context.CancelFunc, req *Request) {
	defer c.others.Done()
	defer func() { <-c.sem }()
	defer func() {
		c.mu.Lock()
		delete(c.running, req.ID)
		c.mu.Unlock()
		cancel()
	}()
	if c.handler == nil {
		c.reply(req.ID, nil, &Error{Code: CodeMethodNotFound, Message: "method not found: " + req.Method})
		return
	}
	result, err := c.call(ctx, req)
	if req.afterReply != nil {
		defer req.afterReply()
	}
	select {
	case <-c.done:
		return // nobody to answer
	default:
	}
	switch {
	case err == nil:
		c.reply(req.ID, result, nil)
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		c.reply(req.ID, nil, &Error{Code: CodeRequestCancelled, Message: "request cancelled"})
	case errors.Is(err, ErrMethodNotFound):
		c.reply(req.ID, nil, &Error{Code: CodeMethodNotFound, Message: "method not found: " + req.Method})
	default:
		c.reply(req.ID, nil, errorObject(err))
	}
}

// call runs the handler, turning a panic into an error.
func (c *Conn) call(ctx context.Context, req *Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("transport: handler panicked", "method", req.Method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("handler for %s panicked: %v", req.Method, p)}
		}
	}()
	return c.handler.Handle(ctx, req)
}
