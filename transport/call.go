package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// This file is the calling side of a Conn: requests and notifications
// sent, their responses matched to their calls, cancellation and the call
// timeout.

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
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			// The context ended while the request waited to be written:
			// say why it ended (the call's bound, CallTimeoutError).
			err = context.Cause(ctx)
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

func decodeError(raw []byte, e *Error) error {
	if err := Validate(raw); err != nil {
		return err
	}
	return json.Unmarshal(raw, e)
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
