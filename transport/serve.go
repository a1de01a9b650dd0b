package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// This file is the serving side of a Conn: frames read and classified,
// invalid ones answered, requests and notifications dispatched to the
// Handler in order, their replies written, cancellation of incoming
// requests.

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
