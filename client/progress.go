package client

import (
	"strconv"
	"sync"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/protocol"
)

// progressSet is the server's work-done progress: tokens begun and not
// ended, under its own lock.
type progressSet struct {
	mu      sync.Mutex
	running map[string]bool // token -> begun and not ended
}

func newProgressSet() *progressSet { return &progressSet{running: map[string]bool{}} }

// create records a token the server announced.
func (p *progressSet) create(token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[token] = false
}

// report applies a work-done progress value; it reports whether it was one
// (begin, report or end).
func (p *progressSet) report(token string, kind string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch kind {
	case "begin", "report":
		p.running[token] = true
	case "end":
		delete(p.running, token)
	default:
		return false
	}
	return true
}

// end forgets a token.
func (p *progressSet) end(token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, token)
}

// busy reports whether some progress is running.
func (p *progressSet) busy() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, running := range p.running {
		if running {
			return true
		}
	}
	return false
}

// tokenKey is a progress token as a map key: integers and strings apart.
func tokenKey(t protocol.ProgressToken) string {
	if n, ok := t.AsInteger(); ok {
		return strconv.FormatInt(int64(n), 10)
	}
	s, _ := t.AsString()
	return "s:" + s
}

// progressKind reads the kind of a work-done progress value, or "".
func progressKind(value []byte) string {
	var v struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(value, &v) != nil {
		return ""
	}
	return v.Kind
}

// decodeWorkspacePartial reads a workspace/diagnostic partial result.
func decodeWorkspacePartial(value []byte) (protocol.WorkspaceDiagnosticReportPartialResult, error) {
	var partial protocol.WorkspaceDiagnosticReportPartialResult
	err := json.Unmarshal(value, &partial)
	return partial, err
}

// Busy reports whether the server has work-done progress running (begun
// and not ended), such as indexing.
func (c *Client) Busy() bool { return c.progress.busy() }
