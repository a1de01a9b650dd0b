// Package typed compares lspkit's typed read path, as transport.Conn runs
// it (frame → envelope → generated protocol types, one pass over each
// payload), with the fastest Go peer stack: go.lsp.dev/jsonrpc2 v0.10.0
// reading messages and go.lsp.dev/protocol v0.12.0 types decoded with
// github.com/segmentio/encoding, as that stack's client does. It is its own
// module: go.lsp.dev/protocol v0.12.0 needs jsonrpc2 v0.10.0, while the
// envelope benchmark (../) measures jsonrpc2 v1.0.1.
package typed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"

	sgjson "github.com/segmentio/encoding/json"
	lspjsonrpc2 "go.lsp.dev/jsonrpc2"
	lspprotocol "go.lsp.dev/protocol"

	"github.com/lspkit/lspkit/bench/corpus"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// The corpora: every message is a server-to-client notification the client
// decodes by method, or a response it decodes as the result type of the
// request it made (hover, workspace/symbol).
func corpora() []corpus.Corpus {
	return []corpus.Corpus{corpus.Mixed(), corpus.Diagnostics200(), corpus.Symbols512K()}
}

// resultOf says which request a response answers: the corpora's responses
// are hovers, except the one workspace/symbol answer (id 42).
func resultOf(id int64) string {
	if id == 42 {
		return protocol.MethodWorkspaceSymbol
	}
	return protocol.MethodTextDocumentHover
}

// reader reads every message of a stream into typed values and returns how
// many it read; sink keeps the values alive.
type reader func(stream []byte) (int, error)

var sink any

// lspkitReader runs lspkit's read path: transport.Reader frames,
// transport.Envelope classifies, and the generated decoders read each
// payload once, as transport.Conn hands notifications to
// protocol.DecodeClientParams and responses to their call's typed decoder.
func lspkitReader() reader {
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
			switch env.Kind {
			case transport.KindNotification:
				v, err := protocol.DecodeClientParams(string(env.Method), env.Params)
				if err != nil {
					return n, err
				}
				sink = v
			case transport.KindResponse:
				var err error
				switch resultOf(env.IDNum) {
				case protocol.MethodWorkspaceSymbol:
					sink, err = protocol.WorkspaceSymbolRequest.DecodeResult(env.Result)
				default:
					sink, err = protocol.HoverRequest.DecodeResult(env.Result)
				}
				if err != nil {
					return n, err
				}
			default:
				return n, fmt.Errorf("unexpected %s", env.Kind)
			}
		}
	}
}

type rwc struct{ io.Reader }

func (rwc) Write(p []byte) (int, error) { return len(p), nil }
func (rwc) Close() error                { return nil }

// lspdevReader runs go.lsp.dev's: jsonrpc2 v0.10.0's Stream.Read (what its
// Conn uses), then segmentio/encoding's json.Unmarshal into go.lsp.dev/protocol
// types, as protocol's client dispatch and Conn.Call do.
func lspdevReader(stream []byte) (int, error) {
	s := lspjsonrpc2.NewStream(rwc{bytes.NewReader(stream)})
	ctx := context.Background()
	for n := 0; ; n++ {
		msg, _, err := s.Read(ctx)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		switch m := msg.(type) {
		case *lspjsonrpc2.Notification:
			switch m.Method() {
			case lspprotocol.MethodTextDocumentPublishDiagnostics:
				var p lspprotocol.PublishDiagnosticsParams
				err = sgjson.Unmarshal(m.Params(), &p)
				sink = &p
			case lspprotocol.MethodProgress:
				var p lspprotocol.ProgressParams
				err = sgjson.Unmarshal(m.Params(), &p)
				sink = &p
			default:
				err = fmt.Errorf("unexpected %s", m.Method())
			}
		case *lspjsonrpc2.Response:
			mid := m.ID()
			id, _ := mid.MarshalJSON()
			if string(id) == "42" {
				var r []lspprotocol.SymbolInformation
				err = sgjson.Unmarshal(m.Result(), &r)
				sink = r
			} else {
				var r lspprotocol.Hover
				err = sgjson.Unmarshal(m.Result(), &r)
				sink = &r
			}
		default:
			err = fmt.Errorf("unexpected %T", msg)
		}
		if err != nil {
			return n, err
		}
	}
}

var readers = []struct {
	name string
	make func() reader
}{
	{"lspkit", lspkitReader},
	{"go.lsp.dev+segmentio", func() reader { return lspdevReader }},
}

// TestReadersAgree: both stacks read every message of every corpus, and
// decode the same number of diagnostics and symbols.
func TestReadersAgree(t *testing.T) {
	for _, c := range corpora() {
		for _, r := range readers {
			n, err := r.make()(c.Stream)
			if err != nil || n != c.Messages {
				t.Errorf("%s on %s: %d of %d messages, %v", r.name, c.Name, n, c.Messages, err)
			}
		}
	}
	d, _ := lspkitReader()(corpus.Diagnostics200().Stream)
	if d != 1 {
		t.Fatal("diagnostics200")
	}
	if p, ok := sink.(*protocol.PublishDiagnosticsParams); !ok || len(p.Diagnostics) != 200 {
		t.Fatalf("lspkit decoded %T, want 200 diagnostics", sink)
	}
	lspdevReader(corpus.Diagnostics200().Stream)
	if p, ok := sink.(*lspprotocol.PublishDiagnosticsParams); !ok || len(p.Diagnostics) != 200 {
		t.Fatalf("go.lsp.dev decoded %T, want 200 diagnostics", sink)
	}
	lspkitReader()(corpus.Symbols512K().Stream)
	ours, _ := sink.(protocol.Nullable[protocol.SymbolInformationSliceOrWorkspaceSymbolSlice])
	v, _ := ours.Get()
	syms, _ := v.AsSymbolInformationSlice()
	lspdevReader(corpus.Symbols512K().Stream)
	theirs, _ := sink.([]lspprotocol.SymbolInformation)
	if len(syms) == 0 || len(syms) != len(theirs) {
		t.Fatalf("symbols: lspkit %d, go.lsp.dev %d", len(syms), len(theirs))
	}
}

// BenchmarkTypedRead reads each corpus whole per op and reports ns/msg,
// allocs/msg and MB/s.
func BenchmarkTypedRead(b *testing.B) {
	for _, c := range corpora() {
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
