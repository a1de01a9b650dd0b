// Package burst keeps what an agent host's hooks say of the model's tool
// calls (lsp/burst) and answers with what the model should hear: the
// errors its edits introduced, once, when it moves on.
//
// A burst is the edits between two of the model's other actions — a tool
// that edits nothing, or the end of its turn. When it ends, its feedback
// is the errors that are new since it began, in the files it edited and in
// every file those edits broke, each said once; errors that were there
// before are never repeated, and a burst that leaves nothing new says
// nothing. "Before" is each file's text before its first edit in the burst
// (the host's pre-tool event, or the text the host says it had), checked
// again with every file that depends on it, beside the files as they are
// now: the difference is the burst's effect, whatever else on disk changed
// meanwhile (another agent's edits are in both).
//
// A turn is the bursts between two ends of the model's turn. A turn that
// would end with errors new since it began is held once, with the list;
// the next end lets it go, whether or not they were fixed (a loop guard of
// lspkit's own: some hosts' flags cannot be trusted).
//
// Bursts and turns are kept by the host's session, so that the bursts of
// agents working in parallel do not mix.
package burst

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/orchestrator"
)

// Core is what bursts ask of the orchestrator's core: checks (a what-if of
// the texts before, the disk after, each with its impact), the root's
// paths and files, which files a server checks, the configuration and the
// log.
type Core interface {
	Check(ctx context.Context, p api.CheckParams) (api.CheckResult, error)
	Resolve(file string) (string, error)
	Rel(path string) string
	ReadFile(file string) (string, error)
	Skipped(path string, dir bool) bool
	ServersOf(path string) []orchestrator.Serving
	Config() config.Config
	Logger() *slog.Logger
}

var _ Core = (*orchestrator.Orchestrator)(nil)

// feedbackLines bounds the lines of a burst's feedback over all files (each
// file's own bound is maxDiagnosticsPerFile); the files past it are named.
const feedbackLines = 100

// maxSessions bounds the sessions kept; past it the one unused longest is
// forgotten.
const maxSessions = 256

// Tracker keeps the sessions' bursts and turns of one workspace and
// answers lsp/burst. It is safe for concurrent use.
type Tracker struct {
	core Core
	cfg  config.Config
	log  *slog.Logger

	mu       sync.Mutex
	sessions map[string]*session
	warms    map[string]*time.Timer // by file: its warm, waiting for the edits to pause
}

// New returns a tracker over core.
func New(core Core) *Tracker {
	return &Tracker{core: core, cfg: core.Config(), log: core.Logger(), sessions: map[string]*session{}, warms: map[string]*time.Timer{}}
}

// session is one host session's state.
type session struct {
	burst, turn baseline
	// held says the turn was held once already.
	held bool
	// each gives feedback after each edit (BurstParams.Each).
	each bool
	// said counts, in each mode, the new errors said in this burst.
	said map[string]int
	// pending is an ended burst's feedback, not yet given to the model.
	pending *api.BurstResult
	used    time.Time
	// stopping is held for the whole of a stop, so that two stops of one
	// turn (a host that runs two hooks, or says idle twice) hold it once.
	stopping sync.Mutex
}

// baseline is each edited file's text before its first edit, in the order
// first edited.
type baseline struct {
	files  []string           // relative to the root
	before map[string]*string // nil: the file did not exist
	// unknown are files edited whose text before is not known (no event
	// before the edit, and the host did not say).
	unknown map[string]bool
}

func (b *baseline) has(file string) bool {
	_, ok := b.before[file]
	return ok || b.unknown[file]
}

func (b *baseline) add(file string, text *string, known bool) {
	if b.has(file) {
		return
	}
	if b.before == nil {
		b.before, b.unknown = map[string]*string{}, map[string]bool{}
	}
	b.files = append(b.files, file)
	if known {
		b.before[file] = text
	} else {
		b.unknown[file] = true
	}
}

func (b *baseline) empty() bool { return len(b.files) == 0 }

// Burst answers lsp/burst.
func (t *Tracker) Burst(ctx context.Context, p api.BurstParams) (res api.BurstResult, err error) {
	defer func() {
		if err == nil && len(res.Edited) > 0 {
			n := 0
			for _, ds := range res.New {
				n += len(ds)
			}
			t.log.Info("burst", "event", p.Event, "session", p.Session, "edited", len(res.Edited), "checked", res.Checked, "new", n, "complete", res.Complete, "hold", res.Hold, "ms", res.MS)
		}
	}()
	switch p.Event {
	case api.BurstBeforeEdit:
		return t.beforeEdit(p), nil
	case api.BurstAfterEdit:
		return t.afterEdit(ctx, p), nil
	case api.BurstEnd:
		return t.end(ctx, p), nil
	case api.BurstAfter:
		return t.after(ctx, p), nil
	case api.BurstStop:
		return t.stop(ctx, p), nil
	}
	return api.BurstResult{}, api.InvalidParams("event: %q (expected %s, %s, %s, %s or %s)", p.Event,
		api.BurstBeforeEdit, api.BurstAfterEdit, api.BurstEnd, api.BurstAfter, api.BurstStop)
}

// quiet is an answer with nothing to say.
func quiet() api.BurstResult {
	return api.BurstResult{New: api.FileDiagnostics{}, Edited: []string{}, Complete: true}
}

// sessionOf returns p's session, made if new; t.mu is held.
func (t *Tracker) sessionOf(id string) *session {
	s := t.sessions[id]
	if s == nil {
		if len(t.sessions) >= maxSessions {
			oldest := ""
			for k, v := range t.sessions {
				if oldest == "" || v.used.Before(t.sessions[oldest].used) {
					oldest = k
				}
			}
			delete(t.sessions, oldest)
		}
		s = &session{}
		t.sessions[id] = s
	}
	s.used = time.Now()
	return s
}

// checked returns the files of names a server checks, relative to the
// root: not outside it, not excluded, of a type some server handles.
func (t *Tracker) checked(names []string) []string {
	var out []string
	for _, name := range names {
		abs, err := t.core.Resolve(name)
		if err != nil || t.core.Skipped(abs, false) || len(t.core.ServersOf(abs)) == 0 {
			continue
		}
		if rel := t.core.Rel(abs); !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// beforeEdit records the files' texts as they are now, before the edit,
// for those the burst (and turn) has not seen yet.
func (t *Tracker) beforeEdit(p api.BurstParams) api.BurstResult {
	files := t.checked(p.Files)
	texts := map[string]*string{}
	known := map[string]bool{}
	for _, f := range files {
		text, err := t.core.ReadFile(f)
		switch {
		case err == nil:
			texts[f], known[f] = &text, true
		case errors.Is(err, fs.ErrNotExist):
			known[f] = true // a new file
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessionOf(p.Session)
	for _, f := range files {
		s.burst.add(f, texts[f], known[f])
		s.turn.add(f, texts[f], known[f])
	}
	return quiet()
}

// afterEdit records the files as edited (their text before from the
// host, where the burst has none), starts bringing them to their servers
// in the background, and answers with the feedback kept for the model
// (an ended burst's, or with p.Each this edit's).
func (t *Tracker) afterEdit(ctx context.Context, p api.BurstParams) api.BurstResult {
	files := t.checked(p.Files)
	before := map[string]string{}
	for name, text := range p.Before {
		if abs, err := t.core.Resolve(name); err == nil {
			before[t.core.Rel(abs)] = text
		}
	}
	t.mu.Lock()
	s := t.sessionOf(p.Session)
	s.each = p.Each
	for _, f := range files {
		text, ok := before[f]
		s.burst.add(f, &text, ok)
		s.turn.add(f, &text, ok)
	}
	pending := s.pending
	s.pending = nil
	var b baseline
	if p.Each {
		b = s.burst.clone()
	}
	t.mu.Unlock()
	if !p.Each {
		for _, f := range files {
			t.warm(f)
		}
		if pending != nil {
			return *pending
		}
		return quiet()
	}
	res := t.feedback(ctx, b, t.timeout(p), false)
	t.mu.Lock()
	res = t.unsaid(s, res)
	t.mu.Unlock()
	if pending != nil && pending.Text != "" {
		res.Text = strings.TrimSuffix(pending.Text+"\n"+res.Text, "\n") + "\n"
	}
	return res
}

// warmDelay is how long after a file's last edit its servers are given
// it in the background: an edit close behind (a burst's next) waits
// instead, so that a burst's hooks do not share the processor with a
// server checking a text about to change.
const warmDelay = time.Second

// warm brings a file's text to its servers in the background, warmDelay
// after its last edit, so that the burst's end finds them settled; it is
// bounded by the interactive timeouts, and what it finds is not an answer.
func (t *Tracker) warm(file string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if timer := t.warms[file]; timer != nil {
		timer.Reset(warmDelay)
		return
	}
	t.warms[file] = time.AfterFunc(warmDelay, func() {
		t.mu.Lock()
		delete(t.warms, file)
		t.mu.Unlock()
		defer func() {
			if r := recover(); r != nil {
				t.log.Error("burst: warming a file: panic", "file", file, "panic", r)
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), t.cfg.FirstTouchTimeout+t.cfg.DiagnosticTimeout)
		defer cancel()
		if _, err := t.core.Check(ctx, api.CheckParams{FilePath: file}); err != nil {
			t.log.Debug("burst: warming a file", "file", file, "err", err)
		}
	})
}

// end ends the session's burst: its feedback is made now and kept for the
// host's next after-tool event (the answer has it too).
func (t *Tracker) end(ctx context.Context, p api.BurstParams) api.BurstResult {
	t.mu.Lock()
	s := t.sessionOf(p.Session)
	b, each := s.burst, s.each
	s.burst, s.said = baseline{}, nil
	t.mu.Unlock()
	if b.empty() || each {
		return quiet() // nothing edited; or said after each edit
	}
	res := t.feedback(ctx, b, t.timeout(p), false)
	if res.Text != "" {
		t.mu.Lock()
		s.pending = &res
		t.mu.Unlock()
	}
	return res
}

// after gives the feedback an ended burst keeps, once. A burst the host
// did not end before the tool (no hook before it) ends now.
func (t *Tracker) after(ctx context.Context, p api.BurstParams) api.BurstResult {
	t.mu.Lock()
	s := t.sessionOf(p.Session)
	open := s.pending == nil && !s.burst.empty()
	t.mu.Unlock()
	if open {
		t.end(ctx, p)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.pending == nil {
		return quiet()
	}
	res := *s.pending
	s.pending = nil
	return res
}

// stop is the end of the model's turn: errors new since the turn began
// hold it, once; otherwise (or the second time) it ends, and the next
// edit begins a new turn.
func (t *Tracker) stop(ctx context.Context, p api.BurstParams) api.BurstResult {
	t.mu.Lock()
	s := t.sessionOf(p.Session)
	t.mu.Unlock()
	s.stopping.Lock()
	defer s.stopping.Unlock()
	t.mu.Lock()
	turn, held := s.turn, s.held
	s.burst, s.said, s.pending = baseline{}, nil, nil
	letGo := func() {
		s.turn, s.held = baseline{}, false
	}
	if turn.empty() || held {
		letGo()
		t.mu.Unlock()
		return quiet()
	}
	t.mu.Unlock()
	res := t.feedback(ctx, turn, t.timeout(p), true)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(res.New) == 0 {
		// Nothing new, or nothing known to be: the turn ends. (What
		// could not be checked was said when its bursts ended.)
		letGo()
		return res
	}
	s.held = true
	res.Hold = true
	return res
}

// timeout is p's bound on a check, or the configuration's.
func (t *Tracker) timeout(p api.BurstParams) time.Duration {
	if p.TimeoutMs > 0 {
		return time.Duration(p.TimeoutMs) * time.Millisecond
	}
	return t.cfg.BurstTimeout
}

// unsaid leaves out of res, in each mode, the errors this burst said
// already, and records the rest as said; t.mu is held.
func (t *Tracker) unsaid(s *session, res api.BurstResult) api.BurstResult {
	if s.said == nil {
		s.said = map[string]int{}
	}
	seen := map[string]int{}
	out := api.FileDiagnostics{}
	for file, ds := range res.New {
		for _, d := range ds {
			k := d.File + "\x00" + d.Server + "\x00" + fmt.Sprint(d.Code) + "\x00" + d.Message
			seen[k]++
			if seen[k] > s.said[k] {
				out[file] = append(out[file], d)
				s.said[k] = seen[k]
			}
		}
	}
	res.New = out
	res.Text = t.render(res.Edited, out, res, false)
	return res
}

func (b baseline) clone() baseline {
	return baseline{files: slices.Clone(b.files), before: maps.Clone(b.before), unknown: maps.Clone(b.unknown)}
}
