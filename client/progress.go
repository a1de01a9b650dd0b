package client

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/protocol"
)

// progressSet is the server's work-done progress: tokens begun and not
// ended, with what they said, under its own lock.
type progressSet struct {
	mu      sync.Mutex
	running map[string]*progressState // token -> its state
	ended   bool                      // some begun work has ended
}

// progressState is one token's work: begun or only created, its title, its
// last message and percentage.
type progressState struct {
	begun      bool
	title      string
	message    string
	percentage *uint32
}

func newProgressSet() *progressSet { return &progressSet{running: map[string]*progressState{}} }

// create records a token the server announced.
func (p *progressSet) create(token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[token] = &progressState{}
}

// report applies a work-done progress value; it reports whether it was one
// (begin, report or end).
func (p *progressSet) report(token string, v progressValue) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.running[token]
	if st == nil {
		st = &progressState{}
	}
	switch v.Kind {
	case "begin":
		st.title = v.Title
		fallthrough
	case "report":
		st.begun = true
		if v.Message != "" {
			st.message = v.Message
		}
		if v.Percentage != nil {
			st.percentage = v.Percentage
		}
		p.running[token] = st
	case "end":
		if st.begun {
			p.ended = true
		}
		delete(p.running, token)
	default:
		return false
	}
	return true
}

// describe says what is running ("indexing 40%; Loading packages"), ""
// when nothing is.
func (p *progressSet) describe() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var parts []string
	for _, st := range p.running {
		if !st.begun {
			parts = append(parts, "work announced")
			continue
		}
		s := strings.TrimSpace(st.title + " " + st.message)
		if s == "" {
			s = "working"
		}
		if st.percentage != nil {
			s += fmt.Sprintf(" (%d%%)", *st.percentage)
		}
		parts = append(parts, s)
	}
	slices.Sort(parts)
	return strings.Join(slices.Compact(parts), "; ")
}

// end forgets a token.
func (p *progressSet) end(token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, token)
}

// busy reports whether some progress is running, or announced: a token
// created and not yet begun is work about to start (clangd creates its
// indexing token while it still builds the file it was opened with, and
// begins it only once the client has answered).
func (p *progressSet) busy() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.running) > 0
}

// An Event is something the server tells a user (Config.OnEvent): one of
// its work-done progress notifications, or a message it shows — Asked
// when it was a window/showMessageRequest offering Actions, which the
// client answered with no choice.
type Event struct {
	Progress *protocol.ProgressParams
	Message  *protocol.ShowMessageParams
	Actions  []string
	Asked    bool
}

// tokenKey is a progress token as a map key: integers and strings apart.
func tokenKey(t protocol.ProgressToken) string {
	if n, ok := t.AsInteger(); ok {
		return strconv.FormatInt(int64(n), 10)
	}
	s, _ := t.AsString()
	return "s:" + s
}

// progressValue is what a work-done progress notification says.
type progressValue struct {
	Kind       string  `json:"kind"`
	Title      string  `json:"title"`
	Message    string  `json:"message"`
	Percentage *uint32 `json:"percentage"`
}

// readProgress reads a work-done progress value; its Kind is "" when it is
// none.
func readProgress(value []byte) progressValue {
	var v progressValue
	if json.Unmarshal(value, &v) != nil {
		return progressValue{}
	}
	return v
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

// Worked reports whether some work-done progress of the server has run to
// its end (its project loaded, an index built, at least once): a server
// idle before it has begun any (clangd before it indexes the project) may
// not have started its load yet.
func (c *Client) Worked() bool {
	c.progress.mu.Lock()
	defer c.progress.mu.Unlock()
	return c.progress.ended
}

// Loading describes the work-done progress running ("Loading packages";
// "indexing (40%)"), "" when there is none.
func (c *Client) Loading() string { return c.progress.describe() }

// WaitIdle waits until the server has no work-done progress running — its
// project loaded, its index built — or ctx ends (its error then).
func (c *Client) WaitIdle(ctx context.Context) error {
	for {
		changed := c.Changed()
		if !c.Busy() {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.proc.Done():
			return nil
		}
	}
}
