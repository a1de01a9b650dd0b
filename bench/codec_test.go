// Package bench compares lspkit's wire layer with other Go JSON-RPC 2.0
// implementations on identical LSP traffic. It is its own module so that the
// peers never enter lspkit's dependencies.
package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"testing"

	sgjsonrpc2 "github.com/sourcegraph/jsonrpc2"
	lspdev "go.lsp.dev/jsonrpc2"
	xjsonrpc2 "golang.org/x/exp/jsonrpc2"

	"github.com/lspkit/lspkit/bench/corpus"
	"github.com/lspkit/lspkit/transport"
)

// A reader is one implementation's way of reading every frame of a stream
// and decoding its envelope, params left raw. It returns how many messages
// it read.
type reader func(stream []byte) (int, error)

type rwc struct{ io.Reader }

func (rwc) Write(p []byte) (int, error) { return len(p), nil }
func (rwc) Close() error                { return nil }

// lspkit: transport.Reader frames and transport.Envelope scans, leaving
// payloads to their decoder. With validate it also runs transport.Validate
// on every params, result and error, as transport.Conn does, so what is
// handed on is known-good JSON.
func lspkitReader(validate bool) func() reader {
	return func() reader {
		r := transport.NewReader(nil, transport.ReaderOptions{})
		var env transport.Envelope
		src := bytes.NewReader(nil)
		return func(stream []byte) (int, error) {
			src.Reset(stream)
			r.Reset(src)
			for n := 0; ; n++ {
				frame, err := r.ReadFrame()
				if err == io.EOF {
					return n, nil
				}
				if err != nil {
					return n, err
				}
				if err := env.Scan(frame); err != nil {
					return n, err
				}
				if !validate {
					continue
				}
				for _, span := range [][]byte{env.Params, env.Result, env.Error} {
					if span != nil {
						if err := transport.Validate(span); err != nil {
							return n, err
						}
					}
				}
			}
		}
	}
}

// go.lsp.dev/jsonrpc2 v1.0.1 through its Stream.Read, which its Conn uses.
func lspdevReader(stream []byte) (int, error) {
	s := lspdev.NewHeaderStream(rwc{bytes.NewReader(stream)})
	ctx := context.Background()
	n := 0
	for {
		_, _, err := s.Read(ctx)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// go.lsp.dev/jsonrpc2 v1.0.1 through its fastest path: ReadFrame and the
// borrowed ScanFrameView (which checks only bracket balance inside values).
func lspdevViewReader(stream []byte) (int, error) {
	s := lspdev.NewHeaderStream(rwc{bytes.NewReader(stream)}).(interface {
		ReadFrame(context.Context) ([]byte, int64, error)
	})
	ctx := context.Background()
	n := 0
	for {
		frame, _, err := s.ReadFrame(ctx)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if _, err := lspdev.ScanFrameView(frame); err != nil {
			return n, err
		}
		n++
	}
}

// golang.org/x/exp/jsonrpc2 through its header framer's Reader.
func xexpReader(stream []byte) (int, error) {
	r := xjsonrpc2.HeaderFramer().Reader(bytes.NewReader(stream))
	ctx := context.Background()
	n := 0
	for {
		_, _, err := r.Read(ctx)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// sgMessage decodes a message the way sourcegraph/jsonrpc2's Conn does
// (its anyMessage is unexported): classify by the members present, then
// decode into its exported Request or Response, whose params and result are
// raw.
type sgMessage struct {
	request  *sgjsonrpc2.Request
	response *sgjsonrpc2.Response
}

func (m *sgMessage) UnmarshalJSON(data []byte) error {
	var probe struct {
		ID     any              `json:"id"`
		Method *string          `json:"method"`
		Result *json.RawMessage `json:"result"`
		Error  any              `json:"error"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	if probe.Method != nil {
		return json.Unmarshal(data, &m.request)
	}
	return json.Unmarshal(data, &m.response)
}

// github.com/sourcegraph/jsonrpc2 through its VSCodeObjectCodec.
func sourcegraphReader(stream []byte) (int, error) {
	br := bufio.NewReader(bytes.NewReader(stream))
	codec := sgjsonrpc2.VSCodeObjectCodec{}
	n := 0
	for {
		var m sgMessage
		err := codec.ReadObject(br, &m)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

var readers = []struct {
	name string
	make func() reader
}{
	{"lspkit", lspkitReader(false)},
	{"lspkit-validated", lspkitReader(true)},
	{"go.lsp.dev", func() reader { return lspdevReader }},
	{"go.lsp.dev-view", func() reader { return lspdevViewReader }},
	{"x-exp", func() reader { return xexpReader }},
	{"sourcegraph", func() reader { return sourcegraphReader }},
}

// TestReadersAgree: every implementation reads every message of every corpus.
func TestReadersAgree(t *testing.T) {
	for _, c := range corpus.Corpora() {
		for _, r := range readers {
			n, err := r.make()(c.Stream)
			if err != nil || n != c.Messages {
				t.Errorf("%s on %s: %d of %d messages, %v", r.name, c.Name, n, c.Messages, err)
			}
		}
	}
}

// BenchmarkRead reads each corpus whole per op and reports ns/msg,
// allocs/msg and MB/s.
func BenchmarkRead(b *testing.B) {
	for _, c := range corpus.Corpora() {
		for _, r := range readers {
			b.Run(c.Name+"/"+r.name, func(b *testing.B) {
				read := r.make()
				b.SetBytes(int64(len(c.Stream)))
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				b.ResetTimer()
				for b.Loop() {
					if n, err := read(c.Stream); err != nil || n != c.Messages {
						b.Fatalf("%d messages, %v", n, err)
					}
				}
				b.StopTimer()
				runtime.ReadMemStats(&after)
				msgs := float64(b.N) * float64(c.Messages)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/msgs, "ns/msg")
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/msgs, "allocs/msg")
			})
		}
	}
}
