// Package conformance records what real language servers and lspkit say to
// each other, and replays it: a transcript (JSON Lines, one message per
// line) drives a fake server that answers as the real one did and reports,
// as a readable diff, any message the client sends differently.
package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Directions of a transcript entry.
const (
	ClientToServer = "c2s"
	ServerToClient = "s2c"
	Expect         = "expect" // not a message: what the live run saw at a step
)

// Entry is one line of a transcript: a message and which way it went, or
// an expectation recorded by the live run.
type Entry struct {
	Dir  string         `json:"dir"`
	MS   int64          `json:"ms"`
	Msg  jsontext.Value `json:"msg,omitzero"`
	Step string         `json:"step,omitempty"` // Expect: the scenario step
	Data jsontext.Value `json:"data,omitzero"`  // Expect: what the step saw
	Line int            `json:"-"`              // 1-based line in the file
}

// Transcript is a recorded session.
type Transcript struct {
	Entries []Entry
}

// ReadTranscript reads a transcript file.
func ReadTranscript(path string) (*Transcript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseTranscript(data)
}

// ParseTranscript parses transcript lines.
func ParseTranscript(data []byte) (*Transcript, error) {
	t := &Transcript{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("transcript line %d: %w", n, err)
		}
		if e.Dir != ClientToServer && e.Dir != ServerToClient && e.Dir != Expect {
			return nil, fmt.Errorf("transcript line %d: unknown direction %q", n, e.Dir)
		}
		e.Line = n
		t.Entries = append(t.Entries, e)
	}
	return t, sc.Err()
}

// Expectation returns the data recorded for a step.
func (t *Transcript) Expectation(step string) (jsontext.Value, bool) {
	for _, e := range t.Entries {
		if e.Dir == Expect && e.Step == step {
			return e.Data, true
		}
	}
	return nil, false
}

// Writer appends entries to a transcript, safe for concurrent use; times
// are milliseconds since the Writer was made.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	err   error
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, start: time.Now()} }

// Message records one message going dir.
func (w *Writer) Message(dir string, msg []byte) error {
	return w.write(Entry{Dir: dir, MS: time.Since(w.start).Milliseconds(), Msg: jsontext.Value(bytes.Clone(msg))})
}

// Expect records what the live run saw at a step.
func (w *Writer) Expect(step string, data any) error {
	raw, err := json.Marshal(data, json.Deterministic(true))
	if err != nil {
		return err
	}
	return w.write(Entry{Dir: Expect, MS: time.Since(w.start).Milliseconds(), Step: step, Data: raw})
}

func (w *Writer) write(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		_, w.err = w.w.Write(append(line, '\n'))
	}
	return w.err
}

// Normalize rewrites a recorded transcript for checking in: every
// occurrence of each replacement's old string (the temporary root, the
// server cache directory) becomes its placeholder.
func Normalize(data []byte, replacements ...string) []byte {
	s := string(data)
	for i := 0; i+1 < len(replacements); i += 2 {
		s = strings.ReplaceAll(s, replacements[i], replacements[i+1])
	}
	return []byte(s)
}
