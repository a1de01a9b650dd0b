package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// readAll reads frames until an error and returns the bodies and the error.
func readAll(r *Reader) ([]string, error) {
	var out []string
	for {
		b, err := r.ReadFrame()
		if err != nil {
			return out, err
		}
		out = append(out, string(b))
	}
}

// splitReader delivers its input in the given chunks, one per Read.
type splitReader struct{ chunks [][]byte }

func (s *splitReader) Read(p []byte) (int, error) {
	for len(s.chunks) > 0 && len(s.chunks[0]) == 0 {
		s.chunks = s.chunks[1:]
	}
	if len(s.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.chunks[0])
	s.chunks[0] = s.chunks[0][n:]
	return n, nil
}

func TestReaderSplitAtEveryByte(t *testing.T) {
	stream := frame(`{"a":1}`) + "content-length: 5\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\nhello" + frame("")
	want := []string{`{"a":1}`, "hello", ""}
	for k := 0; k <= len(stream); k++ {
		for _, j := range []int{k, (k + len(stream)) / 2} {
			src := &splitReader{chunks: [][]byte{[]byte(stream[:k]), []byte(stream[k:j]), []byte(stream[j:])}}
			got, err := readAll(NewReader(src, ReaderOptions{}))
			if err != io.EOF || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("split at %d,%d: got %q, %v", k, j, got, err)
			}
		}
	}
	got, err := readAll(NewReader(iotest.OneByteReader(strings.NewReader(stream)), ReaderOptions{}))
	if err != io.EOF || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("one byte at a time: %q %v", got, err)
	}
	// A small buffer forces compaction and the outsized path.
	got, err = readAll(NewReader(iotest.HalfReader(strings.NewReader(stream+frame(strings.Repeat("x", 300)))), ReaderOptions{BufferSize: 128, MaxHeaderSize: 128}))
	if err != io.EOF || len(got) != 4 || got[3] != strings.Repeat("x", 300) {
		t.Fatalf("small buffer: %d frames, %v", len(got), err)
	}
}

func TestReaderHeaders(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"back to back in one read", frame("a") + frame("bc") + frame("def"), []string{"a", "bc", "def"}},
		{"odd case", "cOnTeNt-LeNgTh: 2\r\n\r\nok", []string{"ok"}},
		{"extra headers", "X-Foo: bar\r\nContent-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\nok", []string{"ok"}},
		{"bare LF", "Content-Length: 2\n\nok", []string{"ok"}},
		{"mixed endings", "Content-Length: 2\r\n\nok", []string{"ok"}},
		{"spaces around the value", "Content-Length:   2 \t\r\n\r\nok", []string{"ok"}},
		{"zero length", "Content-Length: 0\r\n\r\n", []string{""}},
		{"same length twice", "Content-Length: 2\r\ncontent-length: 2\r\n\r\nok", []string{"ok"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAll(NewReader(strings.NewReader(c.in), ReaderOptions{}))
			if err != io.EOF || fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("got %q, %v", got, err)
			}
		})
	}
}

func TestReaderErrors(t *testing.T) {
	cases := []struct {
		name, in string
		opts     ReaderOptions
		want     string
		offset   int64
		eof      bool // wraps io.ErrUnexpectedEOF
	}{
		{"truncated body", "Content-Length: 10\r\n\r\nabc", ReaderOptions{}, "truncated frame body", 25, true},
		{"truncated header", "Content-Length: 10\r\n", ReaderOptions{}, "truncated frame header", 20, true},
		{"truncated second frame", frame("ok") + "Content-Len", ReaderOptions{}, "truncated frame header", 34, true},
		{"negative", "Content-Length: -5\r\n\r\n", ReaderOptions{}, `invalid Content-Length "-5"`, 0, false},
		{"plus sign", "Content-Length: +5\r\n\r\n", ReaderOptions{}, `invalid Content-Length "+5"`, 0, false},
		{"not a number", frame("ok") + "Content-Length: 12a\r\n\r\n", ReaderOptions{}, `invalid Content-Length "12a"`, 23, false},
		{"empty value", "Content-Length:\r\n\r\n", ReaderOptions{}, `invalid Content-Length ""`, 0, false},
		{"over the limit", "Content-Length: 2147483648\r\n\r\n", ReaderOptions{}, "exceeds the 67108864-byte limit", 0, false},
		{"overflowing digits", "Content-Length: 99999999999999999999999999\r\n\r\n", ReaderOptions{}, "exceeds the", 0, false},
		{"over a custom limit", "Content-Length: 11\r\n\r\nhello world", ReaderOptions{MaxFrameSize: 10}, "exceeds the 10-byte limit", 0, false},
		{"no Content-Length", "Content-Type: x\r\n\r\n{}", ReaderOptions{}, "header block without Content-Length", 17, false},
		{"no colon", "Content-Length 2\r\n\r\nok", ReaderOptions{}, `malformed header line "Content-Length 2"`, 0, false},
		{"leading colon", ": 2\r\n\r\nok", ReaderOptions{}, `malformed header line`, 0, false},
		{"conflicting lengths", "Content-Length: 2\r\nContent-Length: 3\r\n\r\nok", ReaderOptions{}, "conflicting Content-Length", 19, false},
		{"header too long", "X: " + strings.Repeat("y", 5000) + "\r\n", ReaderOptions{}, "header block longer than 4096 bytes", 0, false},
		{"garbage", "{\"jsonrpc\":\"2.0\"}\r\n\r\n", ReaderOptions{}, "malformed header line", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAll(NewReader(strings.NewReader(c.in), c.opts))
			var fe *FrameError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a FrameError containing %q", err, c.want)
			}
			if fe.Offset != c.offset {
				t.Errorf("offset %d, want %d (%v)", fe.Offset, c.offset, err)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) != c.eof {
				t.Errorf("errors.Is(err, io.ErrUnexpectedEOF) = %v, want %v", !c.eof, c.eof)
			}
		})
	}
	// A failing source is reported as itself.
	boom := errors.New("boom")
	_, err := NewReader(iotest.ErrReader(boom), ReaderOptions{}).ReadFrame()
	if !errors.Is(err, boom) {
		t.Fatalf("source error: %v", err)
	}
	// An empty stream is a clean EOF.
	if _, err := NewReader(strings.NewReader(""), ReaderOptions{}).ReadFrame(); err != io.EOF {
		t.Fatalf("empty stream: %v", err)
	}
}

// TestReaderOutsized reads frames larger than the read buffer and checks
// the big buffer is released after them.
func TestReaderOutsized(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	r := NewReader(iotest.HalfReader(strings.NewReader(frame(big)+frame("small")+frame(big[:100<<10]))), ReaderOptions{})
	b, err := r.ReadFrame()
	if err != nil || string(b) != big {
		t.Fatalf("big frame: %d bytes, %v", len(b), err)
	}
	b, err = r.ReadFrame()
	if err != nil || string(b) != "small" {
		t.Fatalf("small frame: %q, %v", b, err)
	}
	if r.body != nil {
		t.Fatalf("the %d-byte body buffer was kept after an outsized frame", cap(r.body))
	}
	if b, err = r.ReadFrame(); err != nil || len(b) != 100<<10 {
		t.Fatalf("second big frame: %d, %v", len(b), err)
	}
	if cap(r.body) > keepBodySize {
		t.Fatalf("buffer of %d for a 100 KiB frame", cap(r.body))
	}
}

// TestReaderHostileLength: a frame that announces 60 MiB and sends 1 KiB
// costs memory in proportion to what arrived, not to what it announced.
func TestReaderHostileLength(t *testing.T) {
	in := "Content-Length: 62914560\r\n\r\n" + strings.Repeat("x", 1024)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := NewReader(strings.NewReader(in), ReaderOptions{}).ReadFrame()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Fatalf("allocated %d bytes for 1 KiB of a hostile frame", grew)
	}
}

// repeatReader yields the same stream forever.
type repeatReader struct {
	data []byte
	pos  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.data[r.pos:])
		n += c
		r.pos = (r.pos + c) % len(r.data)
	}
	return n, nil
}

func TestReaderAllocs(t *testing.T) {
	var stream bytes.Buffer
	for i := 0; i < 10; i++ {
		stream.WriteString(frame(fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/progress","params":{"token":%d,"value":{"kind":"report","percentage":%d}}}`, i, i*10)))
	}
	r := NewReader(&repeatReader{data: stream.Bytes()}, ReaderOptions{})
	if allocs := testing.AllocsPerRun(10000, func() {
		if _, err := r.ReadFrame(); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Fatalf("ReadFrame: %v allocations per frame, want 0", allocs)
	}
}

func TestReaderReset(t *testing.T) {
	r := NewReader(strings.NewReader("Content-Length: 9\r\n\r\ntrunc"), ReaderOptions{})
	if _, err := r.ReadFrame(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal(err)
	}
	r.Reset(strings.NewReader(frame("fresh")))
	if b, err := r.ReadFrame(); err != nil || string(b) != "fresh" || r.Offset() != int64(len(frame("fresh"))) {
		t.Fatalf("after Reset: %q %v offset %d", b, err, r.Offset())
	}
}

func TestIsToken(t *testing.T) {
	for _, name := range []string{"Content-Length", "content-type", "X-Custom_1.2~!#$%&'*+^`|"} {
		if !isToken([]byte(name)) {
			t.Errorf("%q is a token", name)
		}
	}
	for _, name := range []string{"Content Length", "{\"jsonrpc\"", "a/b", "a:b", "é", "a\tb", "a[b]"} {
		if isToken([]byte(name)) {
			t.Errorf("%q is not a token", name)
		}
	}
}
