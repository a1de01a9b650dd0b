package transport

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzReader: no input panics, memory stays bounded by MaxFrameSize, errors
// are io.EOF or a FrameError, and the frames read re-frame identically.
func FuzzReader(f *testing.F) {
	f.Add([]byte(frame(`{"jsonrpc":"2.0","method":"x"}`) + frame("")))
	f.Add([]byte("content-length: 3\nX: y\n\nabcContent-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("Content-Length: 5\r\n\r\nab"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bytes.NewReader(in), ReaderOptions{MaxFrameSize: 1 << 20, BufferSize: 256, MaxHeaderSize: 256})
		var bodies [][]byte
		total := 0
		for {
			b, err := r.ReadFrame()
			if err != nil {
				var fe *FrameError
				if err != io.EOF && !errors.As(err, &fe) {
					t.Fatalf("error of an unexpected type: %T %v", err, err)
				}
				break
			}
			total += len(b)
			if total > len(in) {
				t.Fatalf("read %d body bytes from %d input bytes", total, len(in))
			}
			bodies = append(bodies, bytes.Clone(b))
		}
		var out bytes.Buffer
		w := NewWriter(&out)
		for _, b := range bodies {
			if err := w.WriteFrame(b); err != nil {
				t.Fatal(err)
			}
		}
		r2 := NewReader(&out, ReaderOptions{MaxFrameSize: 1 << 20})
		for i, want := range bodies {
			got, err := r2.ReadFrame()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("frame %d does not re-frame: %q %v", i, got, err)
			}
		}
	})
}

// FuzzEnvelope: Scan never panics; what it accepts, with payloads that
// Validate accepts, is valid JSON; Validate agrees with jsontext; and Scan
// calls no valid JSON a syntax error.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"a":[1,2]}}`,
		`{"jsonrpc":"2.0","id":"ts\u0031","result":[{"x":"\ud83d\ude42"}]}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`{"jsonrpc":"2.0","method":"$/progress","params":{"token":1,"value":{"kind":"end"}}}`,
		`[1]`, `{"jsonrpc":"2.0","id":1.5,"result":0}`, `{"a":"\`,
	} {
		f.Add([]byte(s))
	}
	lenient := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	f.Fuzz(func(t *testing.T, in []byte) {
		var e Envelope
		err := e.Scan(in)
		valid := jsontext.Value(in).IsValid(lenient...)
		if verr := Validate(in); (verr == nil) != valid {
			if se, ok := errors.AsType[*ScanError](verr); !ok || !bytes.Contains([]byte(se.Msg), []byte("nested too deeply")) {
				t.Fatalf("Validate(%q) = %v, jsontext says valid=%v", in, verr, valid)
			}
		}
		var exact Envelope
		exactErr := exact.ScanExact(in)
		if exactErr == nil && validSpans(&exact) && !valid {
			t.Fatalf("ScanExact accepted invalid JSON %q", in)
		}
		if err == nil && validSpans(&e) {
			// Scan's fast path must agree with the exact scan whenever its
			// spans hold one valid value each.
			if exactErr != nil || e.Kind != exact.Kind || e.IDKind != exact.IDKind || e.IDNum != exact.IDNum ||
				!bytes.Equal(e.IDStr, exact.IDStr) || !bytes.Equal(e.Method, exact.Method) ||
				!bytes.Equal(e.Params, exact.Params) || !bytes.Equal(e.Result, exact.Result) || !bytes.Equal(e.Error, exact.Error) {
				t.Fatalf("Scan and ScanExact disagree on %q: %+v / %+v (%v)", in, e, exact, exactErr)
			}
		}
		if err == nil {
			spansValid := true
			for _, span := range [][]byte{e.Params, e.Result, e.Error} {
				if span != nil && Validate(span) != nil {
					spansValid = false
				}
			}
			if spansValid && !valid {
				t.Fatalf("Scan accepted invalid JSON %q", in)
			}
			if e.Kind == KindInvalid {
				t.Fatalf("no kind for %q", in)
			}
			return
		}
		if se, ok := errors.AsType[*ScanError](err); ok && se.Syntax && valid && !bytes.Contains([]byte(se.Msg), []byte("nested too deeply")) {
			t.Fatalf("Scan called valid JSON %q a syntax error: %v", in, err)
		}
	})
}

func validSpans(e *Envelope) bool {
	for _, span := range [][]byte{e.Params, e.Result, e.Error} {
		if span != nil && Validate(span) != nil {
			return false
		}
	}
	return true
}
