package transport

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/internal/servertest"
)

// stuckPeer is a stream to a peer that neither writes nor reads: reads and
// writes block until Close.
type stuckPeer struct {
	in   *io.PipeReader // nobody writes its other end
	out  *io.PipeWriter // nobody reads its other end
	inW  *io.PipeWriter
	outR *io.PipeReader
}

func newStuckPeer() *stuckPeer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	return &stuckPeer{in: inR, out: outW, inW: inW, outR: outR}
}

func (s *stuckPeer) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s *stuckPeer) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s *stuckPeer) Close() error {
	s.in.Close()
	s.outR.Close()
	return s.out.Close()
}

// TestWriteHonoursContext: a peer that stops reading its input cannot hold
// a call or a notification past its deadline, and the connection still
// closes cleanly.
func TestWriteHonoursContext(t *testing.T) {
	// The Conn writes into w, which nobody reads: every Write blocks.
	peer := newStuckPeer()
	c := NewConn(peer, Options{})
	defer func() {
		c.Close()
		c.Wait()
	}()
	for i, call := range []func(context.Context) error{
		func(ctx context.Context) error { return c.Call(ctx, "first", map[string]int{"n": 1}, nil) },
		func(ctx context.Context) error { return c.Call(ctx, "second", nil, nil) },
		func(ctx context.Context) error { return c.Notify(ctx, "third", nil) },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		done := make(chan error, 1)
		go func() { done <- call(ctx) }()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("call %d: %v, want the deadline", i, err)
			}
		case <-time.After(servertest.Scale(10 * time.Second)):
			t.Fatalf("call %d blocked past its deadline on a peer that does not read", i)
		}
		cancel()
	}
}

func TestIDValidity(t *testing.T) {
	if (ID{}).IsValid() || !IntID(0).IsValid() || !StringID("").IsValid() {
		t.Fatal("the zero ID must be invalid, IntID(0) and StringID(\"\") valid")
	}
	if (ID{}) == IntID(0) {
		t.Fatal("ID{} equals IntID(0)")
	}
	for id, want := range map[ID]string{{}: "null", IntID(0): "0", IntID(-7): "-7", StringID("a\"b"): `"a\"b"`, StringID("\xff"): `"\ufffd"`} {
		if got := id.String(); got != want && !(want == `"\ufffd"` && got == "\"\uFFFD\"") {
			t.Errorf("%#v.String() = %s, want %s", id, got, want)
		}
	}
}

// typedParams decodes params of method "typed" into a struct, strictly,
// reporting trailing data the way protocol's decoders do.
type typedParams struct{ N int }

type trailing struct{ error }

func (trailing) TrailingData() bool { return true }

func decodeTyped(method string, raw []byte) (any, error) {
	if method != "typed" {
		return nil, ErrMethodNotFound
	}
	if err := Validate(raw); err != nil {
		var se *ScanError
		if errors.As(err, &se) && se.TrailingData() {
			return nil, trailing{err}
		}
		return nil, err
	}
	var p typedParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// TestParamsDecodedOnReadPath: Options.Params decodes params before the
// handler runs; a span that ran past the params (a member holding an object
// after them) is read exactly; methods the decoder does not know arrive raw;
// invalid params are answered without reaching the handler.
func TestParamsDecodedOnReadPath(t *testing.T) {
	handler := HandlerFunc(func(_ context.Context, req *Request) (any, error) {
		if p, ok := req.Decoded.(*typedParams); ok {
			return map[string]any{"decoded": p.N}, nil
		}
		return map[string]any{"raw": string(req.Params)}, nil
	})
	_, peer := newRawPeer(t, Options{Handler: handler, Params: decodeTyped})
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":"typed","params":{"N":4}}`:                   `{"jsonrpc":"2.0","id":1,"result":{"decoded":4}}`,
		`{"jsonrpc":"2.0","id":2,"method":"typed","params":{"N":5},"extra":{"x":[1]}}`: `{"jsonrpc":"2.0","id":2,"result":{"decoded":5}}`,
		`{"jsonrpc":"2.0","id":3,"method":"other","params":{"N":6}}`:                   `{"jsonrpc":"2.0","id":3,"result":{"raw":"{\"N\":6}"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"typed","params":{"N":tru}}`:                 `{"jsonrpc":"2.0","id":4,"error":{"code":-32700,`,
		`{"jsonrpc":"2.0","id":5,"method":"typed","params":{"N":"x"}}`:                 `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,`,
	} {
		peer.send(t, in)
		if got := peer.recv(t); !strings.HasPrefix(got, want) {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
}

// TestCallRawDecodesOnce: the result decoder sees the exact result, also
// when an object member follows it.
func TestCallRawDecodesOnce(t *testing.T) {
	c, peer := newRawPeer(t, Options{})
	got := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- c.CallRaw(context.Background(), "m", nil, func(raw []byte) error {
			if err := Validate(raw); err != nil {
				var se *ScanError
				if errors.As(err, &se) && se.TrailingData() {
					return trailing{err}
				}
				return err
			}
			got <- string(raw)
			return nil
		})
	}()
	peer.recv(t)
	peer.send(t, `{"jsonrpc":"2.0","id":1,"result":{"a":[1,2]},"extension":{"b":3}}`)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if r := <-got; r != `{"a":[1,2]}` {
		t.Fatalf("decoder saw %s", r)
	}
}

// TestDrain: Drain returns once every incoming request is answered.
func TestDrain(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	c, peer := newRawPeer(t, Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-release
		return "done", nil
	})})
	if err := c.Drain(context.Background()); err != nil {
		t.Fatalf("an idle connection does not drain: %v", err)
	}
	peer.send(t, `{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	<-started
	drained := make(chan error, 1)
	go func() { drained <- c.Drain(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.Drain(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("drained with a request unanswered: %v", err)
	}
	close(release)
	if got := peer.recv(t); got != `{"jsonrpc":"2.0","id":1,"result":"done"}` {
		t.Fatalf("answer: %s", got)
	}
	if err := <-drained; err != nil {
		t.Fatal(err)
	}
}

// eofPeer is a stream whose reads come from in and signal eof when in
// ends; writes go to out.
type eofPeer struct {
	in  io.Reader
	out io.Writer
	eof chan struct{}
}

func (p *eofPeer) Read(b []byte) (int, error) {
	n, err := p.in.Read(b)
	if err == io.EOF {
		select {
		case <-p.eof:
		default:
			close(p.eof)
		}
	}
	return n, err
}
func (p *eofPeer) Write(b []byte) (int, error) { return p.out.Write(b) }
func (p *eofPeer) Close() error                { return nil }

// TestAnswerAfterEOF: with AnswerAfterEOF, a request read before the peer
// ended its stream is still answered — its handler runs on after the end
// of input — and the connection goes down after; without it, the end of
// input cancels the handler and nothing is answered.
func TestAnswerAfterEOF(t *testing.T) {
	for _, answer := range []bool{true, false} {
		var in, out strings.Builder
		in.WriteString(frame(`{"jsonrpc":"2.0","id":1,"method":"slow"}`))
		peer := &eofPeer{in: strings.NewReader(in.String()), out: &out, eof: make(chan struct{})}
		c := NewConn(peer, Options{AnswerAfterEOF: answer, Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			if answer {
				<-peer.eof // the end of input was read before the answer
			} else {
				// The end of input cancels it; an answer all the same
				// finds the connection down and is not written.
				<-ctx.Done()
			}
			return "done", nil
		})})
		c.Wait()
		got := out.String()
		if answer && !strings.Contains(got, `"result":"done"`) {
			t.Errorf("AnswerAfterEOF: the request was not answered: %q", got)
		}
		if !answer && got != "" {
			t.Errorf("without AnswerAfterEOF: %q written after the end of input", got)
		}
		if !errors.Is(c.Err(), io.EOF) {
			t.Errorf("AnswerAfterEOF=%v: Err = %v, want io.EOF", answer, c.Err())
		}
	}
}
