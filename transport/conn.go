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
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// CancelMethod is the LSP notification that cancels a request.
const CancelMethod = "$/cancelRequest"

// Request is an incoming request or notification.
type Request struct {
	ID           ID // the zero ID for a notification
	Notification bool
	Method       string
	// Params holds the raw params (owned by the Request), valid JSON, when
	// Options.Params did not decode them; nil when absent or decoded.
	Params jsontext.Value
	// Decoded holds the params as Options.Params decoded them, or nil.
	Decoded any

	afterReply func()
	cancelled  bool // $/cancelRequest arrived before it ran (under Conn.mu)
}

// AfterReply registers fn to run once the response to this request has been
// written (or could not be): a handler that ends the connection, such as a
// shutdown request, answers first and closes in fn.
func (r *Request) AfterReply(fn func()) { r.afterReply = fn }

// A Handler handles incoming requests and notifications. For a request, the
// result is encoded as the response's result (nil encodes as null; a
// jsontext.Value or []byte is sent as is) and an error becomes an error
// response (an *Error it is or wraps chooses the code; see ErrMethodNotFound);
// for a notification both are ignored, apart from logging the error. The
// context is cancelled when the peer cancels the request or the connection
// closes.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// ParamsDecoder decodes the params of an incoming request or notification
// (nil when absent) on the connection's read path, so they are read once and
// handlers get typed values: protocol.DecodeClientParams is one. An error
// that is or wraps an *Error with code MethodNotFound means the method is not
// the decoder's: its params reach the Handler raw. Other errors are answered
// (a request) or logged (a notification): invalid JSON as a parse error,
// anything else as its *Error or as invalid params.
type ParamsDecoder func(method string, params []byte) (any, error)

// Options configures a Conn. Zero fields take the defaults.
type Options struct {
	// Handler handles incoming messages; nil answers every request with
	// MethodNotFound and ignores notifications.
	Handler Handler
	// Params decodes incoming params on the read path; nil hands them to
	// the Handler raw (validated).
	Params ParamsDecoder
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
	// Unreadable, when set, hears of each notification whose params could
	// not be read (they are logged and dropped either way): the method,
	// the raw params and why. A client that waits on a notification (a
	// publish of diagnostics) can then say at once that it came and could
	// not be read, instead of waiting for one that never will.
	Unreadable func(method string, params []byte, err error)
	// AnswerAfterEOF keeps the connection up after the peer ends its
	// stream (a half-close, such as a daemon's client closing stdin after
	// its last request) until every message already read is handled and
	// every request among them answered; calls of ours still waiting fail
	// at once, since the peer can no longer answer them.
	AnswerAfterEOF bool
	// InOrder names the incoming requests whose handler runs to its end
	// before any later message is handled, as a notification's does: for
	// handlers that only record what the peer's next messages depend on
	// (window/workDoneProgress/create before the $/progress that uses its
	// token). Such a handler must not call the peer and wait.
	InOrder func(method string) bool
}

// A Conn is a JSON-RPC 2.0 connection over LSP base-protocol framing.
// Incoming notifications are handled one at a time in arrival order; an
// incoming request starts after every notification that arrived before it
// was handled, and runs concurrently with later messages (unless
// Options.InOrder names it). Every incoming
// request is answered; a message whose id cannot be read is answered with
// "id": null when it is not a response.
//
// Payloads are read once, on the read path: a call's result by its decoder
// (CallRaw), incoming params by Options.Params; nothing else validates them
// first. Writes go through one writer goroutine, so a peer that stops
// reading holds up its frames but never a caller past its context.
//
// Messages wait for their handler in an unbounded queue, so reading never
// stops for a busy handler: responses keep flowing to handlers that call the
// peer themselves. A peer that floods faster than handlers finish grows the
// queue.
type Conn struct {
	rwc        io.ReadWriteCloser
	r          *Reader
	w          *Writer
	handler    Handler
	params     ParamsDecoder
	unreadable func(method string, params []byte, err error) // Options.Unreadable
	inOrder    func(method string) bool                      // Options.InOrder

	answerAfterEOF bool
	log            *slog.Logger
	sem            chan struct{}
	nextID         atomic.Int64
	callTimeout    atomic.Int64 // nanoseconds; 0: calls wait as long as their context
	writes         chan *outgoing

	mu        sync.Mutex
	pending   map[int64]*pendingCall    // our calls awaiting responses
	running   map[ID]context.CancelFunc // incoming requests not yet answered
	waiting   map[ID]*Request           // incoming requests read and not yet running (queued, or waiting for a slot)
	queue     []*Request                // incoming messages not yet dispatched
	queued    chan struct{}             // signalled when queue grows
	inflight  int                       // incoming messages queued or being handled (and answered)
	drained   chan struct{}             // closed when inflight falls to 0; replaced when it rises
	closing   bool
	cause     error
	baseCtx   context.Context
	cancelAll context.CancelFunc

	done      chan struct{} // closed when the connection is down
	internal  sync.WaitGroup
	others    sync.WaitGroup // handlers and background sends
	closeOnce sync.Once
}

// pendingCall is a call of ours awaiting its response: decode reads the
// result on the read path; done receives the outcome.
type pendingCall struct {
	decode func([]byte) error
	done   chan error
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
		rwc:        rwc,
		r:          NewReader(rwc, opts.Reader),
		w:          NewWriter(rwc),
		handler:    opts.Handler,
		params:     opts.Params,
		unreadable: opts.Unreadable,
		inOrder:    opts.InOrder,

		answerAfterEOF: opts.AnswerAfterEOF,
		log:            opts.Logger,
		sem:            make(chan struct{}, opts.MaxConcurrentRequests),
		writes:         make(chan *outgoing, 64),
		pending:        map[int64]*pendingCall{},
		running:        map[ID]context.CancelFunc{},
		waiting:        map[ID]*Request{},
		queued:         make(chan struct{}, 1),
		drained:        closedChan(),
		baseCtx:        ctx,
		cancelAll:      cancel,
		done:           make(chan struct{}),
	}
	c.internal.Add(3)
	go c.readLoop()
	go c.dispatchLoop()
	go c.writeLoop()
	return c
}

func closedChan() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// Drain waits until every incoming message that has arrived is handled,
// and every request among them answered, or ctx ends or the connection
// does. A side about to end the conversation (an LSP client sending
// shutdown) drains first, so no request of the peer goes unanswered.
func (c *Conn) Drain(ctx context.Context) error {
	c.mu.Lock()
	drained := c.drained
	c.mu.Unlock()
	select {
	case <-drained:
		return nil
	case <-c.done:
		return fmt.Errorf("transport: drain: connection down: %w", c.Err())
	case <-ctx.Done():
		return fmt.Errorf("transport: drain: %w", ctx.Err())
	}
}

// answerPending, after the peer ended its stream, fails the calls waiting
// for answers and waits until the messages already read are handled and
// answered, or the connection is closed.
func (c *Conn) answerPending() {
	c.mu.Lock()
	pending := c.pending
	c.pending = map[int64]*pendingCall{}
	drained := c.drained
	c.mu.Unlock()
	fail := fmt.Errorf("transport: connection down: the peer ended its stream: %w", io.EOF)
	for _, p := range pending {
		p.done <- fail
	}
	select {
	case <-drained:
	case <-c.done:
	}
}

// handled counts an incoming message as handled (and answered).
func (c *Conn) handled() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight--
	if c.inflight == 0 {
		close(c.drained)
	}
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
		c.pending = map[int64]*pendingCall{}
		c.queue = nil
		c.mu.Unlock()
		err = c.rwc.Close()
		c.cancelAll()
		// Done first: a caller whose call fails here finds the
		// connection down when it looks.
		close(c.done)
		fail := fmt.Errorf("transport: connection down: %w", cause)
		for _, p := range pending {
			p.done <- fail
		}
	})
	return err
}

// Call sends a request and waits for its response, decoding the result into
// result (a pointer, or nil to discard it) with encoding/json/v2. params is
// encoded as JSON (nil omits it; a jsontext.Value or []byte is sent as is).
// For typed calls use CallRaw with a generated decoder (the protocol
// package's descriptors do).
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	var decode func([]byte) error
	if result != nil {
		decode = func(raw []byte) error {
			if err := Validate(raw); err != nil {
				return err
			}
			if r, ok := result.(*jsontext.Value); ok {
				*r = bytes.Clone(raw)
				return nil
			}
			return json.Unmarshal(raw, result)
		}
	}
	return c.CallRaw(ctx, method, params, decode)
}

// CallRaw sends a request and waits for its response. decode, unless nil,
// reads the raw result on the connection's read path before CallRaw returns
// (the bytes are valid only during the call; a decoder that meets invalid
// JSON reports it). A peer's error response is returned as *Error. If ctx
// ends first — before the request could even be written, or while waiting
// for the answer — CallRaw sends $/cancelRequest (when the request went out)
// and returns ctx's error.
func (c *Conn) CallRaw(ctx context.Context, method string, params any, decode func([]byte) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("transport: call %s: %w", method, err)
	}
	if d := time.Duration(c.callTimeout.Load()); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, &CallTimeoutError{Method: method, After: d})
		defer cancel()
	}
	id := c.nextID.Add(1)
	p := &pendingCall{decode: decode, done: make(chan error, 1)}
	c.mu.Lock()
	if c.closing {
		cause := c.cause
		c.mu.Unlock()
		return fmt.Errorf("transport: call %s: connection down: %w", method, cause)
	}
	c.pending[id] = p
	c.mu.Unlock()
	sent, err := c.send(ctx, IntID(id), method, params)
	if err != nil {
		if !c.forget(id) {
			<-p.done // the answer is being read: let its decoder finish
		}
		if sent {
			c.cancelRemote(id)
		}
		return fmt.Errorf("transport: call %s: %w", method, err)
	}
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		if !c.forget(id) {
			// The answer arrived as the context ended; its decoder is
			// writing into the caller's result: wait for it.
			if err := <-p.done; err == nil {
				return nil
			}
		}
		c.cancelRemote(id)
		return fmt.Errorf("transport: call %s: %w", method, context.Cause(ctx))
	}
}

// SetCallTimeout bounds each call made from now on (Call, CallRaw): one
// the peer has not answered within d is cancelled ($/cancelRequest) and
// fails with a *CallTimeoutError. 0 removes the bound.
func (c *Conn) SetCallTimeout(d time.Duration) { c.callTimeout.Store(int64(max(d, 0))) }

// CallTimeoutError is a call the peer did not answer within the
// connection's call timeout (SetCallTimeout). It is a
// context.DeadlineExceeded.
type CallTimeoutError struct {
	Method string
	After  time.Duration
}

func (e *CallTimeoutError) Error() string {
	return fmt.Sprintf("no answer to %s within %d ms", e.Method, e.After.Milliseconds())
}

// Unwrap makes it a context.DeadlineExceeded.
func (e *CallTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// cancelRemote tells the peer to stop working on call id, without waiting
// on a writer that may be stuck.
func (c *Conn) cancelRemote(id int64) {
	c.goBackground(func() {
		_, _ = c.send(c.baseCtx, ID{}, CancelMethod, jsontext.Value(`{"id":`+strconv.FormatInt(id, 10)+`}`))
	})
}

// Notify sends a notification; it returns once the notification is written,
// or ctx's error if it ends first.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := c.send(ctx, ID{}, method, params); err != nil {
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

// forget removes a pending call; false means its response is being
// delivered (or the connection failed it), so its done channel will receive.
func (c *Conn) forget(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; ok {
		delete(c.pending, id)
		return true
	}
	return false
}

// send writes a request (id valid) or a notification; sent reports whether
// the frame went out (or is going out) even if err is set.
func (c *Conn) send(ctx context.Context, id ID, method string, params any) (sent bool, err error) {
	raw, err := marshalRaw(params)
	if err != nil {
		return false, fmt.Errorf("encode params: %w", err)
	}
	o := newOutgoing()
	b := append(o.body[:0], `{"jsonrpc":"2.0",`...)
	if id.IsValid() {
		b = append(b, `"id":`...)
		b = id.appendJSON(b)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	b = appendString(b, method)
	if raw != nil {
		b = append(b, `,"params":`...)
		b = append(b, raw...)
	}
	o.body = append(b, '}')
	return c.write(ctx, o)
}

// reply writes a response to an incoming request: result, or the error
// object rerr. What is written is always one complete, valid JSON message.
func (c *Conn) reply(id ID, result any, rerr *Error) {
	var raw []byte
	if rerr == nil {
		var err error
		if raw, err = marshalRaw(result); err != nil {
			rerr = &Error{Code: CodeInternalError, Message: "encode result: " + err.Error()}
		} else if raw == nil {
			raw = []byte("null")
		} else if !jsontext.Value(raw).IsValid(jsontext.AllowDuplicateNames(true)) {
			rerr = &Error{Code: CodeInternalError, Message: "the handler's result is not valid JSON"}
		}
	}
	o := newOutgoing()
	b := append(o.body[:0], `{"jsonrpc":"2.0","id":`...)
	b = id.appendJSON(b)
	if rerr != nil {
		b = append(b, `,"error":`...)
		b = rerr.appendJSON(b)
	} else {
		b = append(b, `,"result":`...)
		b = append(b, raw...)
	}
	o.body = append(b, '}')
	c.write(c.baseCtx, o)
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
			if !errors.Is(err, io.EOF) {
				c.log.Warn("transport: read failed; connection down", "err", err)
			}
			if c.answerAfterEOF {
				// The stream ended, or broke where it cannot be read
				// on: what was read before is still answered.
				c.answerPending()
			}
			c.shutdown(err)
			return
		}
		if err := env.Scan(frame); err != nil {
			c.invalid(&env, frame, err)
			continue
		}
		switch env.Kind {
		case KindResponse, KindError:
			c.deliver(&env, frame)
		case KindRequest, KindNotification:
			c.incoming(&env, frame)
		}
	}
}

// invalid handles a message that could not be read: a request is answered
// with a parse or invalid-request error (with "id": null when its id could
// not be read); a response to a call of ours fails that call; a message
// that is neither (unreadable JSON, a batch, an object with neither method
// nor result) is answered with "id": null as JSON-RPC 2.0 asks.
func (c *Conn) invalid(env *Envelope, frame []byte, err error) {
	c.log.Warn("transport: invalid message", "err", err, "message", clip(frame))
	code := int64(CodeInvalidRequest)
	msg := err.Error()
	if se, ok := errors.AsType[*ScanError](err); ok && se.Syntax {
		code = CodeParseError
	}
	if errors.Is(err, ErrBatch) {
		msg = "batches are not supported: send one message per frame"
	}
	if env.IDKind == IDNone {
		env.recoverID(frame)
	}
	id := envelopeID(env)
	if !env.HasMethod() {
		// Perhaps a broken response: fail the call it answers, and never
		// answer a response.
		if n, ok := id.Int(); ok && c.resolve(n, nil, fmt.Errorf("transport: invalid response: %w", err)) {
			return
		}
		if env.members&(hasResult|hasError) != 0 {
			return
		}
	}
	c.reply(id, nil, &Error{Code: code, Message: msg})
}

// deliver hands a response to the call waiting for it, decoding its result
// on the way.
func (c *Conn) deliver(env *Envelope, frame []byte) {
	if env.IDKind != IDNumber {
		c.log.Warn("transport: response with an id this side never sent", "kind", env.IDKind, "id", string(env.IDStr))
		return
	}
	if env.Kind == KindError {
		var e Error
		err := c.exactly(env, frame, func() error { return decodeError(env.Error, &e) })
		if err != nil {
			c.resolve(env.IDNum, nil, fmt.Errorf("transport: unreadable error response: %w", err))
		} else {
			c.resolve(env.IDNum, nil, &e)
		}
		return
	}
	if !c.resolve(env.IDNum, func(p *pendingCall) error {
		decode := p.decode
		if decode == nil {
			decode = Validate // discarded, but the message must still be one
		}
		err := c.exactly(env, frame, func() error { return decode(env.Result) })
		if _, ok := errors.AsType[*ScanError](err); ok {
			return fmt.Errorf("transport: invalid response: %w", err)
		} else if err != nil {
			return fmt.Errorf("transport: decode result: %w", err)
		}
		return nil
	}, nil) {
		c.log.Debug("transport: response to an unknown or cancelled call", "id", env.IDNum)
	}
}

func decodeError(raw []byte, e *Error) error {
	if err := Validate(raw); err != nil {
		return err
	}
	return json.Unmarshal(raw, e)
}

// exactly runs decode on a payload span Scan found from the end of the
// message; if the decoder reports data after the value (a member holding an
// object or array followed the payload), the message is scanned exactly and
// decoded again.
func (c *Conn) exactly(env *Envelope, frame []byte, decode func() error) error {
	err := decode()
	if se, ok := errors.AsType[syntaxError](err); ok && se.TrailingData() {
		if serr := env.ScanExact(frame); serr != nil {
			return serr
		}
		err = decode()
	}
	return err
}

// resolve completes the pending call id: read (unless nil) decodes its
// result, err (unless nil) fails it. It reports whether the call was pending.
func (c *Conn) resolve(id int64, read func(*pendingCall) error, err error) bool {
	c.mu.Lock()
	p, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if !ok {
		return false
	}
	if err == nil && read != nil {
		err = read(p)
	}
	p.done <- err
	return true
}

// incoming decodes a request's or notification's params and queues it, or
// applies $/cancelRequest.
func (c *Conn) incoming(env *Envelope, frame []byte) {
	if env.Kind == KindRequest && env.IDKind == IDString && !utf8.Valid(env.IDStr) {
		// Its answer could not carry its id exactly (JSON text is UTF-8):
		// it is refused, unhandled, with "id": null.
		c.log.Warn("transport: request id with invalid UTF-8", "message", clip(frame))
		c.reply(ID{}, nil, &Error{Code: CodeInvalidRequest, Message: "the request's id is a string with invalid UTF-8, which no answer can echo: not handled"})
		return
	}
	req := &Request{Method: string(env.Method), Notification: env.Kind == KindNotification}
	if !req.Notification {
		req.ID = envelopeID(env)
	}
	if req.Notification && req.Method == CancelMethod {
		if err := c.exactly(env, frame, func() error { return Validate(env.Params) }); err == nil {
			c.cancelIncoming(env.Params)
		}
		return
	}
	if err := c.readParams(req, env, frame); err != nil {
		if req.Notification {
			c.log.Warn("transport: notification with unreadable params", "method", req.Method, "err", err)
			if c.unreadable != nil {
				c.unreadable(req.Method, bytes.Clone(env.Params), err)
			}
			return
		}
		c.reply(req.ID, nil, paramsError(req.Method, err))
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return
	}
	if c.inflight == 0 {
		c.drained = make(chan struct{})
	}
	c.inflight++
	c.queue = append(c.queue, req)
	if !req.Notification {
		c.waiting[req.ID] = req
	}
	select {
	case c.queued <- struct{}{}:
	default:
	}
}

// readParams fills req.Decoded through the ParamsDecoder, or req.Params with
// the validated raw params.
func (c *Conn) readParams(req *Request, env *Envelope, frame []byte) error {
	if c.params != nil {
		var v any
		err := c.exactly(env, frame, func() (err error) {
			v, err = c.params(req.Method, env.Params)
			return err
		})
		if err == nil {
			req.Decoded = v
			return nil
		}
		if !errors.Is(err, ErrMethodNotFound) {
			return err
		}
	}
	if env.Params == nil {
		return nil
	}
	if err := c.exactly(env, frame, func() error { return Validate(env.Params) }); err != nil {
		return err
	}
	req.Params = bytes.Clone(env.Params)
	return nil
}

// paramsError is the answer to a request whose params could not be read:
// invalid JSON is a parse error, an *Error is itself, anything else invalid
// params.
func paramsError(method string, err error) *Error {
	if _, ok := errors.AsType[syntaxError](err); ok {
		return &Error{Code: CodeParseError, Message: method + ": params are not valid JSON: " + err.Error()}
	}
	if se, ok := errors.AsType[*ScanError](err); ok && se.Syntax {
		return &Error{Code: CodeParseError, Message: method + ": params are not valid JSON: " + err.Error()}
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e
	}
	return &Error{Code: CodeInvalidParams, Message: method + ": " + err.Error()}
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
	if r := c.waiting[id]; cancel == nil && r != nil {
		r.cancelled = true // not running yet: its context starts cancelled
	}
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
			c.handled()
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
		if c.waiting[req.ID] == req {
			delete(c.waiting, req.ID)
		}
		if req.cancelled {
			cancel() // cancelled while it waited: its handler sees it at once
		}
		c.others.Add(1)
		c.mu.Unlock()
		if c.inOrder != nil && c.inOrder(req.Method) {
			c.handleRequest(ctx, cancel, req)
			continue
		}
		go c.handleRequest(ctx, cancel, req)
	}
}

func (c *Conn) handleNotification(req *Request) {
	if c.handler == nil {
		return
	}
	_, err := c.call(c.baseCtx, req)
	switch {
	case errors.Is(err, ErrMethodNotFound):
		// Servers send extensions of their own ($/typescriptVersion):
		// worth a trace, never a warning.
		c.log.Debug("transport: notification not handled", "method", req.Method)
	case err != nil:
		c.log.Warn("transport: notification handler failed", "method", req.Method, "err", err)
	}
}

func (c *Conn) handleRequest(ctx context.Context, cancel context.CancelFunc, req *Request) {
	defer c.others.Done()
	defer c.handled() // after the reply is written
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

// Pending returns how many calls of ours are waiting for their responses.
func (c *Conn) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}
