package transport

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

func TestWriterFormat(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, body := range []string{`{"a":1}`, "", strings.Repeat("z", 2<<20)} {
		buf.Reset()
		if err := w.WriteFrame([]byte(body)); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != frame(body) {
			t.Fatalf("got %.60q, want %.60q", got, frame(body))
		}
	}
	if cap(w.buf) > keepWriteSize {
		t.Fatalf("kept a %d-byte buffer after an outsized frame", cap(w.buf))
	}
}

// writeLog records every Write call separately.
type writeLog struct {
	mu     sync.Mutex
	writes [][]byte
}

func (l *writeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, bytes.Clone(p))
	return len(p), nil
}

// TestWriterConcurrent: frames from concurrent writers never interleave;
// every Write is exactly one whole frame.
func TestWriterConcurrent(t *testing.T) {
	log := &writeLog{}
	w := NewWriter(log)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				body := fmt.Sprintf(`{"g":%d,"i":%d,"pad":"%s"}`, g, i, strings.Repeat("p", i*13%700))
				if err := w.WriteFrame([]byte(body)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(log.writes) != 1600 {
		t.Fatalf("%d writes, want 1600", len(log.writes))
	}
	seen := map[string]bool{}
	for _, wr := range log.writes {
		r := NewReader(bytes.NewReader(wr), ReaderOptions{})
		body, err := r.ReadFrame()
		if err != nil {
			t.Fatalf("write %.80q is not a frame: %v", wr, err)
		}
		if _, err := r.ReadFrame(); err != io.EOF {
			t.Fatalf("write holds more than one frame: %v", err)
		}
		seen[string(body)] = true
	}
	if len(seen) != 1600 {
		t.Fatalf("%d distinct frames", len(seen))
	}
}

func TestWriterFuncError(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	err := w.WriteFrameFunc(func(b []byte) ([]byte, error) { return append(b, "half"...), fmt.Errorf("encode failed") })
	if err == nil || buf.Len() != 0 {
		t.Fatalf("failed encoding wrote %q (%v)", buf.String(), err)
	}
	if err := w.WriteFrame([]byte("ok")); err != nil || buf.String() != frame("ok") {
		t.Fatalf("after a failed encoding: %q %v", buf.String(), err)
	}
}

func TestWriterAllocs(t *testing.T) {
	w := NewWriter(io.Discard)
	body := []byte(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.go","version":7}}}`)
	if allocs := testing.AllocsPerRun(10000, func() {
		if err := w.WriteFrame(body); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Fatalf("WriteFrame: %v allocations per frame, want 0", allocs)
	}
	if allocs := testing.AllocsPerRun(10000, func() {
		if err := w.WriteFrameFunc(func(b []byte) ([]byte, error) { return append(b, body...), nil }); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Fatalf("WriteFrameFunc: %v allocations per frame, want 0", allocs)
	}
}
