package transport

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

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
		// Done first: a caller whose call fails here finds the
		// connection down when it looks, and a handler the cancel wakes
		// finds nobody to answer.
		close(c.done)
		c.cancelAll()
		fail := fmt.Errorf("transport: connection down: %w", cause)
		for _, p := range pending {
			p.done <- fail
		}
	})
	return err
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

// Pending returns how many calls of ours are waiting for their responses.
func (c *Conn) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}
