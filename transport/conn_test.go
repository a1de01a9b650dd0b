package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// noConnGoroutines fails the test if any goroutine is still running Conn
// code. After Wait returns, the goroutines have finished their work and
// may only be unwinding, so it polls briefly for them to disappear.
func noConnGoroutines(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "transport.(*Conn)") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines outlive the connection:\n%s", stacks)
		}
		runtime.Gosched()
	}
}

func pair(t *testing.T, ha, hb Handler) (*Conn, *Conn) {
	t.Helper()
	pa, pb := net.Pipe()
	a := NewConn(pa, Options{Handler: ha})
	b := NewConn(pb, Options{Handler: hb})
	t.Cleanup(func() {
		a.Close()
		b.Close()
		a.Wait()
		b.Wait()
	})
	return a, b
}

// rawPeer connects a Conn to the test, which speaks frames directly.
type rawPeer struct {
	r   *Reader
	w   *Writer
	raw net.Conn
}

func newRawPeer(t *testing.T, opts Options) (*Conn, *rawPeer) {
	t.Helper()
	pa, pb := net.Pipe()
	c := NewConn(pa, opts)
	t.Cleanup(func() {
		c.Close()
		pb.Close()
		c.Wait()
	})
	return c, &rawPeer{r: NewReader(pb, ReaderOptions{}), w: NewWriter(pb), raw: pb}
}

func (p *rawPeer) send(t *testing.T, msg string) {
	t.Helper()
	if err := p.w.WriteFrame([]byte(msg)); err != nil {
		t.Fatal(err)
	}
}

func (p *rawPeer) recv(t *testing.T) string {
	t.Helper()
	// A missing answer fails the test instead of hanging it.
	if err := p.raw.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	b, err := p.r.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var echo = HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
	if req.Params == nil {
		return nil, nil
	}
	return req.Params, nil
})

func TestCallAndNotify(t *testing.T) {
	var got []string
	var mu sync.Mutex
	notified := make(chan struct{}, 10)
	b := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Notification {
			mu.Lock()
			got = append(got, req.Method+string(req.Params))
			mu.Unlock()
			notified <- struct{}{}
			return nil, nil
		}
		return echo(ctx, req)
	})
	a, _ := pair(t, nil, b)
	ctx := context.Background()
	var res struct {
		X int `json:"x"`
	}
	if err := a.Call(ctx, "echo", map[string]int{"x": 42}, &res); err != nil || res.X != 42 {
		t.Fatalf("call: %+v %v", res, err)
	}
	var raw jsontext.Value
	if err := a.Call(ctx, "echo", nil, &raw); err != nil || string(raw) != "null" {
		t.Fatalf("call without params: %s %v", raw, err)
	}
	for i := 0; i < 3; i++ {
		if err := a.Notify(ctx, "note", jsontext.Value(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ {
		<-notified
	}
	if want := `[note{"n":0} note{"n":1} note{"n":2}]`; fmt.Sprint(got) != want {
		t.Fatalf("notifications: %v", got)
	}
}

func TestHandlerErrors(t *testing.T) {
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		switch req.Method {
		case "typed":
			return nil, &Error{Code: -32001, Message: "outside the workspace", Data: jsontext.Value(`{"path":"/x"}`)}
		case "plain":
			return nil, errors.New("disk on fire")
		case "panic":
			panic("handler bug")
		case "wrapped":
			return nil, fmt.Errorf("context: %w", ErrMethodNotFound)
		}
		return nil, ErrMethodNotFound
	})
	a, _ := pair(t, nil, h)
	ctx := context.Background()
	for method, want := range map[string]Error{
		"typed":   {Code: -32001, Message: "outside the workspace", Data: jsontext.Value(`{"path":"/x"}`)},
		"plain":   {Code: CodeInternalError, Message: "disk on fire"},
		"panic":   {Code: CodeInternalError, Message: "handler for panic panicked: handler bug"},
		"wrapped": {Code: CodeMethodNotFound, Message: "method not found: wrapped"},
		"nothing": {Code: CodeMethodNotFound, Message: "method not found: nothing"},
	} {
		err := a.Call(ctx, method, nil, nil)
		var e *Error
		if !errors.As(err, &e) || e.Code != want.Code || e.Message != want.Message || string(e.Data) != string(want.Data) {
			t.Errorf("%s: got %v, want %+v", method, err, want)
		}
	}
	// The connection survived the panic.
	if err := a.Call(ctx, "typed", nil, nil); err == nil {
		t.Fatal("connection lost after a handler panic")
	}
}

func TestNoHandler(t *testing.T) {
	a, _ := pair(t, nil, nil)
	err := a.Call(context.Background(), "anything", nil, nil)
	if e, ok := errors.AsType[*Error](err); !ok || e.Code != CodeMethodNotFound {
		t.Fatalf("got %v", err)
	}
	if err := a.Notify(context.Background(), "anything", nil); err != nil {
		t.Fatal(err)
	}
}

// TestCancelOutgoing: cancelling a call's context returns at once, sends
// $/cancelRequest, and the peer's handler sees its context cancelled.
func TestCancelOutgoing(t *testing.T) {
	started := make(chan struct{})
	handlerDone := make(chan error, 1)
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		handlerDone <- ctx.Err()
		return nil, ctx.Err()
	})
	a, _ := pair(t, nil, h)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- a.Call(ctx, "slow", nil, nil) }()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	if err := <-handlerDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("peer handler context: %v", err)
	}
}

// TestCallTimeout: with a call timeout, a call the peer does not answer
// fails with a *CallTimeoutError (a context.DeadlineExceeded) naming the
// method, and the peer's handler is cancelled; a call answered in time
// and one made after the bound is removed are untouched.
func TestCallTimeout(t *testing.T) {
	handlerDone := make(chan error, 1)
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Method == "quick" {
			return "ok", nil
		}
		<-ctx.Done()
		handlerDone <- ctx.Err()
		return nil, ctx.Err()
	})
	a, _ := pair(t, nil, h)
	a.SetCallTimeout(50 * time.Millisecond)
	err := a.Call(context.Background(), "slow", nil, nil)
	var te *CallTimeoutError
	if !errors.As(err, &te) || te.Method != "slow" || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer to slow within 50 ms") {
		t.Fatalf("call: %v", err)
	}
	if err := <-handlerDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("peer handler context: %v", err)
	}
	var got string
	if err := a.Call(context.Background(), "quick", nil, &got); err != nil || got != "ok" {
		t.Fatalf("quick: %q %v", got, err)
	}
	a.SetCallTimeout(0)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- a.Call(ctx, "slow", nil, nil) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Fatalf("unbounded call: %v", err)
	}
}

// TestCallTimeoutWhileWriting: a call whose request cannot even be
// written within the bound (a peer that reads nothing) fails with the
// same CallTimeoutError as one whose answer does not come.
func TestCallTimeoutWhileWriting(t *testing.T) {
	mine, theirs := net.Pipe()
	defer theirs.Close()
	c := NewConn(mine, Options{})
	defer c.Close()
	c.SetCallTimeout(50 * time.Millisecond)
	err := c.Call(context.Background(), "stuck", nil, nil)
	var te *CallTimeoutError
	if !errors.As(err, &te) || te.Method != "stuck" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call: %v", err)
	}
}

// TestCancelIncoming: a $/cancelRequest from the peer cancels the handler
// and the request is answered with RequestCancelled.
func TestCancelIncoming(t *testing.T) {
	started := make(chan struct{}, 2)
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	_, peer := newRawPeer(t, Options{Handler: h})
	peer.send(t, `{"jsonrpc":"2.0","id":"s1","method":"slow"}`)
	peer.send(t, `{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	<-started
	<-started
	peer.send(t, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"s1"}}`)
	if got := peer.recv(t); got != `{"jsonrpc":"2.0","id":"s1","error":{"code":-32800,"message":"request cancelled"}}` {
		t.Fatalf("got %s", got)
	}
	peer.send(t, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	if got := peer.recv(t); got != `{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"request cancelled"}}` {
		t.Fatalf("got %s", got)
	}
}

// TestCancelQueued: a $/cancelRequest for a request still waiting for a
// handler slot is not lost: the request starts cancelled and is answered
// with RequestCancelled, instead of running to its end.
func TestCancelQueued(t *testing.T) {
	release := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Method == "first" {
			<-release
			return "done", nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Minute):
			return "ran to its end", nil
		}
	})
	// A notification whose params the decoder refuses is reported on the
	// read path: it says every message before it has been read.
	read := make(chan struct{})
	opts := Options{Handler: h, MaxConcurrentRequests: 1,
		Params: func(method string, _ []byte) (any, error) {
			if method == "probe" {
				return nil, errors.New("probe")
			}
			return nil, ErrMethodNotFound
		},
		Unreadable: func(string, []byte, error) { close(read) },
	}
	_, peer := newRawPeer(t, opts)
	peer.send(t, `{"jsonrpc":"2.0","id":1,"method":"first"}`)
	peer.send(t, `{"jsonrpc":"2.0","id":2,"method":"slow"}`)
	peer.send(t, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}`)
	peer.send(t, `{"jsonrpc":"2.0","id":3,"method":"first"}`)
	peer.send(t, `{"jsonrpc":"2.0","method":"probe","params":{}}`)
	<-read // the cancel was read while 2 waited for the slot 1 holds
	close(release)
	want := map[string]bool{
		`{"jsonrpc":"2.0","id":1,"result":"done"}`:                                       true,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"request cancelled"}}`: true,
		`{"jsonrpc":"2.0","id":3,"result":"done"}`:                                       true,
	}
	for range 3 {
		if got := peer.recv(t); !want[got] {
			t.Fatalf("got %s", got)
		}
	}
}

// TestIDSpacesApart: the peer's request ids (integer 1 and string "1")
// collide with this side's own call id 1, and each message still goes to
// the right place.
func TestIDSpacesApart(t *testing.T) {
	c, peer := newRawPeer(t, Options{Handler: echo})
	errc := make(chan error, 1)
	var res jsontext.Value
	go func() { errc <- c.Call(context.Background(), "ours", nil, &res) }()
	if got := peer.recv(t); got != `{"jsonrpc":"2.0","id":1,"method":"ours"}` {
		t.Fatalf("call: %s", got)
	}
	peer.send(t, `{"jsonrpc":"2.0","id":1,"method":"theirs","params":{"n":1}}`)
	if got := peer.recv(t); got != `{"jsonrpc":"2.0","id":1,"result":{"n":1}}` {
		t.Fatalf("answer to their integer id: %s", got)
	}
	peer.send(t, `{"jsonrpc":"2.0","id":"1","method":"theirs","params":{"n":2}}`)
	if got := peer.recv(t); got != `{"jsonrpc":"2.0","id":"1","result":{"n":2}}` {
		t.Fatalf("answer to their string id: %s", got)
	}
	peer.send(t, `{"jsonrpc":"2.0","id":"1","result":"not ours"}`) // a string id never matches our calls
	peer.send(t, `{"jsonrpc":"2.0","id":1,"result":"ours"}`)
	if err := <-errc; err != nil || string(res) != `"ours"` {
		t.Fatalf("our call: %s %v", res, err)
	}
}

// TestInvalidMessages: invalid JSON is answered when it has an id, skipped
// when not; the stream goes on.
func TestInvalidMessages(t *testing.T) {
	_, peer := newRawPeer(t, Options{Handler: echo})
	peer.send(t, `{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":}`)
	if got := peer.recv(t); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":7,"error":{"code":-32700,`) {
		t.Fatalf("parse error: %s", got)
	}
	peer.send(t, `{"jsonrpc":"2.0","id":8,"method":7}`)
	if got := peer.recv(t); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":8,"error":{"code":-32600,`) {
		t.Fatalf("invalid request: %s", got)
	}
	// JSON-RPC 2.0 §5: what has no readable id is answered with "id": null.
	for in, want := range map[string]string{
		`garbage without an id`:                `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`,
		``:                                     `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`,
		`[{"jsonrpc":"2.0","method":"batch"}]`: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches are not supported`,
		`{"jsonrpc":"1.0","id":3,"method":"old"}`:                    `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"x"}`:                `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"x\xfe\"}": `{"jsonrpc":"2.0",`,
		// The id after what cannot be read: nesting past the limit, invalid
		// UTF-8, a value cut short.
		`{"jsonrpc":"2.0","method":"x","params":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `,"id":"deep"}`: `{"jsonrpc":"2.0","id":"deep","error":{"code":-32700,`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"x\xfe\",\"params\":{\"a\":\"\xc3(\"},\"id\":11}":                                     `{"jsonrpc":"2.0","id":11,"error":`,
		`{"jsonrpc":"2.0","method":"x","params":{"a":tru},"id":12}`:                                                             `{"jsonrpc":"2.0","id":12,"error":{"code":-32700,`,
	} {
		peer.send(t, in)
		got := peer.recv(t)
		if !strings.HasPrefix(got, want) || !jsontext.Value(got).IsValid() {
			t.Errorf("%q: answered %s, want %s…", in, got, want)
		}
	}
	// A string id with invalid UTF-8 cannot be echoed exactly: the
	// request is refused with "id": null, not answered under a rewritten id.
	peer.send(t, "{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ok\",\"params\":[1]}")
	if got := peer.recv(t); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the request's id is a string with invalid UTF-8`) {
		t.Fatalf("id with invalid UTF-8: %s", got)
	}
	peer.send(t, `{"jsonrpc":"2.0","id":9,"method":"ok","params":[1]}`)
	if got := peer.recv(t); got != `{"jsonrpc":"2.0","id":9,"result":[1]}` {
		t.Fatalf("after invalid messages: %s", got)
	}
	// Valid, if unusual: a member holding an object after params.
	peer.send(t, `{"jsonrpc":"2.0","id":10,"method":"ok","params":{"p":1},"extension":{"q":2}}`)
	if got := peer.recv(t); got != `{"jsonrpc":"2.0","id":10,"result":{"p":1}}` {
		t.Fatalf("member after params: %s", got)
	}
	// Invalid JSON inside params is answered as a parse error.
	peer.send(t, `{"jsonrpc":"2.0","id":11,"method":"ok","params":{"p":tru}}`)
	if got := peer.recv(t); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":11,"error":{"code":-32700,`) {
		t.Fatalf("invalid params: %s", got)
	}
}

// TestBrokenHeader: a broken header ends the connection with a descriptive
// error, failing pending calls.
func TestBrokenHeader(t *testing.T) {
	c, peer := newRawPeer(t, Options{})
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "x", nil, nil) }()
	peer.recv(t)
	if _, err := peer.raw.Write([]byte("Content-Length: twelve\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	err := <-errc
	if !strings.Contains(err.Error(), `invalid Content-Length "twelve"`) {
		t.Fatalf("pending call: %v", err)
	}
	<-c.Done()
	if !strings.Contains(c.Err().Error(), "byte 0") {
		t.Fatalf("Err: %v", c.Err())
	}
}

// TestPeerDies: when the peer goes away every pending call fails at once
// with an error wrapping the cause, and no goroutine is left.
func TestPeerDies(t *testing.T) {
	pa, pb := net.Pipe()
	c := NewConn(pa, Options{})
	peer := NewReader(pb, ReaderOptions{})
	errs := make(chan error, 5)
	for i := 0; i < 5; i++ {
		go func() { errs <- c.Call(context.Background(), "wait", nil, nil) }()
	}
	for i := 0; i < 5; i++ {
		if _, err := peer.ReadFrame(); err != nil {
			t.Fatal(err)
		}
	}
	pb.Close()
	for i := 0; i < 5; i++ {
		if err := <-errs; !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "connection down") {
			t.Fatalf("pending call: %v", err)
		}
	}
	if err := c.Call(context.Background(), "late", nil, nil); !errors.Is(err, io.EOF) {
		t.Fatalf("call after the peer died: %v", err)
	}
	c.Wait()
	if err := c.Close(); err != nil && !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Close after death: %v", err)
	}
	noConnGoroutines(t)
}

func TestCloseIdempotent(t *testing.T) {
	blocked := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		close(blocked)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	a, b := net.Pipe()
	ca := NewConn(a, Options{})
	cb := NewConn(b, Options{Handler: h})
	errc := make(chan error, 1)
	go func() { errc <- ca.Call(context.Background(), "block", nil, nil) }()
	<-blocked
	if err := ca.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := ca.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
	}
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("pending call after Close: %v", err)
	}
	if err := ca.Notify(context.Background(), "x", nil); err == nil {
		t.Fatal("Notify after Close succeeded")
	}
	cb.Wait() // the peer saw EOF, cancelled its handler and ended
	ca.Wait()
	if !errors.Is(cb.Err(), io.EOF) {
		t.Fatalf("peer Err: %v", cb.Err())
	}
	noConnGoroutines(t)
}

// TestNotificationOrder: notifications run one at a time in arrival order,
// and a request starts only after the notifications before it.
func TestNotificationOrder(t *testing.T) {
	var mu sync.Mutex
	var log []string
	var active atomic.Int32
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Notification {
			if active.Add(1) != 1 {
				t.Error("notifications overlapped")
			}
			runtime.Gosched()
			active.Add(-1)
		}
		mu.Lock()
		log = append(log, string(req.Params))
		mu.Unlock()
		return nil, nil
	})
	a, _ := pair(t, nil, h)
	ctx := context.Background()
	for i := 0; i < 100; i++ {
		if err := a.Notify(ctx, "n", jsontext.Value(fmt.Sprint(`[`, i, `]`))); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Call(ctx, "r", jsontext.Value(`["req"]`), nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 0; i < 100; i++ {
		if log[i] != fmt.Sprint(`[`, i, `]`) {
			t.Fatalf("position %d: %s", i, log[i])
		}
	}
	if log[100] != `["req"]` {
		t.Fatalf("request ran before a notification: %v", log[100])
	}
}

// TestStress: many concurrent calls in both directions, with handlers
// that call back, over one in-memory pipe.
func TestStress(t *testing.T) {
	var a, b *Conn
	callback := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		var p struct{ N, Depth int }
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, err
		}
		if p.Depth > 0 {
			peer := a
			if req.Method == "toB" {
				peer = b
			}
			var r struct{ N int }
			method := map[string]string{"toA": "toB", "toB": "toA"}[req.Method]
			if err := peer.Call(ctx, method, map[string]int{"N": p.N + 1, "Depth": p.Depth - 1}, &r); err != nil {
				return nil, err
			}
			return map[string]int{"N": r.N}, nil
		}
		return map[string]int{"N": p.N}, nil
	})
	pa, pb := net.Pipe()
	// 16 callers, each chain holding at most 2 slots on a side.
	a = NewConn(pa, Options{Handler: callback, MaxConcurrentRequests: 32})
	b = NewConn(pb, Options{Handler: callback, MaxConcurrentRequests: 32})
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			from, method := a, "toB"
			if g%2 == 1 {
				from, method = b, "toA"
			}
			for i := 0; i < 100; i++ {
				var r struct{ N int }
				depth := i % 3
				if err := from.Call(context.Background(), method, map[string]int{"N": i, "Depth": depth}, &r); err != nil {
					t.Error(err)
					return
				}
				if r.N != i+depth {
					t.Errorf("got %d, want %d", r.N, i+depth)
					return
				}
			}
		}()
	}
	wg.Wait()
	a.Close()
	b.Close()
	a.Wait()
	b.Wait()
	noConnGoroutines(t)
}

// TestConcurrencyBound: no more than MaxConcurrentRequests handlers run at
// once, and requests beyond the bound start as slots free up.
func TestConcurrencyBound(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	var active, peak atomic.Int32
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		n := active.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		started <- struct{}{}
		<-release
		active.Add(-1)
		return nil, nil
	})
	pa, pb := net.Pipe()
	a := NewConn(pa, Options{})
	b := NewConn(pb, Options{Handler: h, MaxConcurrentRequests: 2})
	defer func() { a.Close(); b.Close(); a.Wait(); b.Wait() }()
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		go func() { errs <- a.Call(context.Background(), "block", nil, nil) }()
	}
	<-started
	<-started
	// Wait until the other four have arrived: three queued, one held by the
	// dispatcher waiting for a slot.
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		queued := len(b.queue)
		b.mu.Unlock()
		if queued == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests queued, want 3", queued)
		}
		runtime.Gosched()
	}
	select {
	case <-started:
		t.Fatal("a third handler started beyond the bound of 2")
	default:
	}
	close(release)
	for i := 0; i < 6; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if p := peak.Load(); p != 2 {
		t.Fatalf("peak concurrency %d, want 2", p)
	}
}

// TestInvalidResponse: a malformed response fails the call it answers and
// is never answered itself.
func TestInvalidResponse(t *testing.T) {
	c, peer := newRawPeer(t, Options{})
	errc := make(chan error, 2)
	go func() { errc <- c.Call(context.Background(), "a", nil, nil) }()
	peer.recv(t)
	peer.send(t, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`)
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "invalid response") {
		t.Fatalf("call answered by a malformed response: %v", err)
	}
	go func() { errc <- c.Call(context.Background(), "b", nil, nil) }()
	peer.recv(t) // the next frame is the second call, not an answer to the bad response
	peer.send(t, `{"jsonrpc":"2.0","id":2,"result":{"ok":true}}`)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestInOrderRequest: a request Options.InOrder names is handled to its
// end before the notification the peer sent after it, as a server's
// window/workDoneProgress/create must be before the $/progress using its
// token (a handler running beside it lost that race now and then).
func TestInOrderRequest(t *testing.T) {
	var created, misses atomic.Int64
	created.Store(-1)
	h := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		var p struct{ N int64 }
		json.Unmarshal(req.Params, &p)
		n := p.N
		switch req.Method {
		case "create":
			for range 100 {
				runtime.Gosched() // a handler's work: room for the next message to overtake it
			}
			created.Store(n)
		case "progress":
			if created.Load() < n {
				misses.Add(1)
			}
		}
		return nil, nil
	})
	_, peer := newRawPeer(t, Options{Handler: h, InOrder: func(m string) bool { return m == "create" }})
	for i := range 200 {
		peer.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"create","params":{"N":%d}}`, i, i))
		peer.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"progress","params":{"N":%d}}`, i))
		if got := peer.recv(t); !strings.Contains(got, fmt.Sprintf(`"id":%d`, i)) {
			t.Fatalf("answer %d: %s", i, got)
		}
	}
	if n := misses.Load(); n > 0 {
		t.Fatalf("the notification after an in-order request was handled before it %d times in 200", n)
	}
}
