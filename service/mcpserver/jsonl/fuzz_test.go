package jsonl

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzLines: whatever bytes a client writes, the transport hands the
// session only whole JSON-RPC 2.0 objects, one per line, and writes back
// nothing but whole JSON messages.
func FuzzLines(f *testing.F) {
	for _, seed := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n", "hello\n", "[]\n", "[{\"jsonrpc\":\"2.0\"}]\n",
		"{\"jsonrpc\":\"1.0\",\"id\":\"x\"}\n", "{\"jsonrpc\":\"2.0\",\"id\":1.5}\n", "\x00\n", "{\"a\":\"\xff\"}\n",
		"{\"jsonrpc\":\"2.0\",\"id\":{}}\n\n\n", "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}", strings.Repeat("[", 20000) + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		t.Parallel()
		var out bytes.Buffer
		tr := &tracker{open: map[string]bool{}, idle: closedChan()}
		w := &trackedWriter{w: &out, t: tr}
		r := &trackedReader{r: bytes.NewReader(data), t: tr, w: w, lines: lines{max: 1 << 10}}
		tr.abandon() // nothing will answer: the end of input is not held back
		passed, err := io.ReadAll(&readUntilIdle{r: r, t: tr})
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(passed) {
			var m map[string]any
			if json.Unmarshal(line, &m) != nil || m["jsonrpc"] != "2.0" || !bytes.HasSuffix(line, []byte("\n")) {
				t.Fatalf("passed on %q", line)
			}
		}
		for line := range bytes.Lines(out.Bytes()) {
			if !json.Valid(line) {
				t.Fatalf("wrote %q", line)
			}
		}
	})
}

// readUntilIdle reads r, forgetting each request it records (nothing
// answers them here), so the end of input is not held back.
type readUntilIdle struct {
	r *trackedReader
	t *tracker
}

func (u *readUntilIdle) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	u.t.abandon()
	return n, err
}
