package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
)

// Options configures an Orchestrator.
type Options struct {
	Root     string // the workspace root; files outside it are never served
	Config   Config
	Logger   *slog.Logger
	CacheDir string // the user cache ($XDG_CACHE_HOME/lspkit); servers live in CacheDir/servers
	// Progress receives auto-install progress (the CLI draws it on
	// stderr); nil logs the start and end.
	Progress func(InstallProgress)
	// OneShot is for a command that checks and exits (lspkit check): a
	// check waits for a server's auto-install before its timeout starts
	// (the daemon does not, and reports the server as starting meanwhile),
	// and servers are not offered file watching (nothing changes on disk
	// during a one-shot check, and gopls starts slower when it sets up
	// watches).
	OneShot bool
	// StopGrace is how long a stopping server gets to exit after
	// shutdown/exit before SIGTERM, and after SIGTERM before SIGKILL
	// (default 2 s; one-shot checks use less).
	StopGrace time.Duration
}

// An Orchestrator runs language servers for one workspace: one client per
// (server, root), started on first need, restarted after crashes within the
// configured policy, and checked in parallel.
type Orchestrator struct {
	root     string // absolute, symlinks resolved
	cfg      Config
	log      *slog.Logger
	specs    map[string]*ServerSpec
	cacheDir string
	progress func(InstallProgress)
	installs *installer
	grace    time.Duration
	oneShot  bool

	mu       sync.Mutex
	sessions map[string]*session // by server id + "\x00" + root
	closed   bool
	stopOnce sync.Once
	epoch    uint64
	changed  chan struct{} // closed and replaced when epoch advances
	life     context.Context
	end      context.CancelFunc
	bg       conc.WaitGroup // supervisors
}

// New returns an orchestrator for opts.Root. It starts no server.
func New(opts Options) (*Orchestrator, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("service: root %q: %w", opts.Root, err)
	}
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		root = resolved
	} else {
		return nil, fmt.Errorf("service: root %q: %w", opts.Root, err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.CacheDir == "" {
		opts.CacheDir = DefaultCacheDir()
	}
	if opts.Config.Servers == nil {
		d := DefaultConfig()
		d.Disabled = opts.Config.Disabled
		opts.Config = d
	}
	o := &Orchestrator{
		root:     root,
		cfg:      opts.Config,
		log:      opts.Logger,
		specs:    servers(opts.Config),
		cacheDir: opts.CacheDir,
		progress: opts.Progress,
		grace:    opts.StopGrace,
		oneShot:  opts.OneShot,
		sessions: map[string]*session{},
		changed:  make(chan struct{}),
	}
	if o.progress == nil {
		o.progress = func(p InstallProgress) {
			if p.Elapsed == 0 || p.Done {
				o.log.Info("install", "progress", p.String())
			}
		}
	}
	o.installs = newInstaller(o.progress)
	o.life, o.end = context.WithCancel(context.Background())
	return o, nil
}

// DefaultCacheDir is $XDG_CACHE_HOME/lspkit, or ~/.cache/lspkit.
func DefaultCacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "lspkit")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "lspkit")
	}
	return filepath.Join(os.TempDir(), "lspkit-cache")
}

// Root returns the workspace root (absolute, symlinks resolved).
func (o *Orchestrator) Root() string { return o.root }

// Config returns the configuration in force.
func (o *Orchestrator) Config() Config { return o.cfg }

// Epoch returns the daemon's diagnostic epoch: it advances on every check
// and every diagnostics change a server reports.
func (o *Orchestrator) Epoch() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.epoch
}

func (o *Orchestrator) bump() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.epoch++
	close(o.changed)
	o.changed = make(chan struct{})
	return o.epoch
}

// resolve turns a path from a request into an absolute path inside the
// root, with symlinks resolved; ok is false for paths outside it.
func (o *Orchestrator) resolve(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(o.root, path)
	}
	path = filepath.Clean(path)
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	} else if r, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		path = filepath.Join(r, filepath.Base(path)) // a file not written yet
	}
	return path, within(o.root, path)
}

// within reports whether path is dir or inside it, by whole segments.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// rel returns path relative to the root, '/'-separated; paths outside the
// root stay absolute.
func (o *Orchestrator) rel(path string) string {
	if within(o.root, path) {
		if r, err := filepath.Rel(o.root, path); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(path)
}

// binary reports whether data looks binary: a NUL in the first 8 KiB.
func binary(data []byte) bool {
	if len(data) > 8192 {
		data = data[:8192]
	}
	return slices.Contains(data, 0)
}

// serversFor returns the enabled servers for the file at path (absolute,
// inside the root) with the root each would run in, in id order.
func (o *Orchestrator) serversFor(path string) []target {
	if o.cfg.Disabled {
		return nil
	}
	var out []target
	for _, id := range sortedKeys(o.specs) {
		s := o.specs[id]
		if !s.Enabled || !s.serves(path) {
			continue
		}
		root, found := o.serverRoot(s, path)
		if !found && s.RequireMarker {
			continue
		}
		out = append(out, target{spec: s, root: root})
	}
	return out
}

// target is one server for one file: the spec and the root it runs in.
type target struct {
	spec *ServerSpec
	root string
}

// serverRoot is the nearest directory from path's up to the workspace root
// holding one of the server's markers, else the workspace root.
func (o *Orchestrator) serverRoot(s *ServerSpec, path string) (string, bool) {
	for dir := filepath.Dir(path); within(o.root, dir); dir = filepath.Dir(dir) {
		for _, m := range s.RootMarkers {
			if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
				return dir, true
			}
		}
		if dir == o.root {
			break
		}
	}
	return o.root, false
}

// session returns the session for a target, creating it (and starting its
// server in the background) on first need: concurrent first touches share
// one start.
func (o *Orchestrator) session(t target) (*session, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil, errors.New("service: shutting down")
	}
	key := t.spec.ID + "\x00" + t.root
	if s, ok := o.sessions[key]; ok {
		return s, nil
	}
	s := newSession(o, t)
	o.sessions[key] = s
	o.bg.Go(s.supervise)
	return s, nil
}

// Verdict says how one server finished a check.
type Verdict string

// The verdicts of a check, per server.
const (
	VerdictSettled     Verdict = "settled"     // its diagnostics are final for the text
	VerdictPartial     Verdict = "partial"     // timed out with some diagnostics in hand
	VerdictTimedOut    Verdict = "timedOut"    // timed out with nothing for this version
	VerdictUnavailable Verdict = "unavailable" // its binary is missing and cannot be installed
	VerdictBroken      Verdict = "broken"      // it crashed past the restart policy or failed to start
)

// ServerResult is how one server finished a check.
type ServerResult struct {
	ID      string  `json:"id"`
	Verdict Verdict `json:"verdict"`
	MS      int64   `json:"ms"`
	Reason  string  `json:"reason,omitempty"`
}

// CheckResult is the outcome of a check: the merged diagnostics and how
// each server finished.
type CheckResult struct {
	Diagnostics []Diagnostic   `json:"diagnostics"`
	Servers     []ServerResult `json:"servers"`
}

// CheckFile makes every server for the file see text (the file on disk
// when text is nil), waits until each has settled or its timeout (timeout,
// when > 0, replaces the configured ones) and returns the merged, filtered,
// sorted diagnostics. Files outside the root, binary files and files no
// server serves give an empty result and start nothing.
func (o *Orchestrator) CheckFile(ctx context.Context, path string, text *string, timeout time.Duration) (CheckResult, error) {
	res := CheckResult{Diagnostics: []Diagnostic{}, Servers: []ServerResult{}}
	abs, ok := o.resolve(path)
	if !ok {
		o.log.Debug("check: outside the root", "path", path)
		return res, nil
	}
	targets := o.serversFor(abs)
	if len(targets) == 0 {
		return res, nil
	}
	var content string
	if text != nil {
		content = *text
	} else {
		data, err := os.ReadFile(abs)
		if err != nil {
			return res, fmt.Errorf("check %s: %w", o.rel(abs), err)
		}
		content = string(data)
	}
	if binary([]byte(content)) {
		return res, nil
	}
	o.bump()
	results := make([]ServerResult, len(targets))
	diags := make([][]Diagnostic, len(targets))
	var wg conc.WaitGroup
	for i, t := range targets {
		wg.Go(func() {
			results[i], diags[i] = o.checkOn(ctx, t, abs, content, text == nil, timeout)
		})
	}
	if p := wg.WaitAndRecover(); p != nil {
		o.log.Error("check: panic", "panic", p.String())
		return res, fmt.Errorf("check %s: internal error: %v", o.rel(abs), p.Value)
	}
	res.Servers = results
	res.Diagnostics = o.merge(slices.Concat(diags...))
	return res, nil
}

// checkOn runs one server's part of a check.
func (o *Orchestrator) checkOn(ctx context.Context, t target, path, text string, disk bool, timeout time.Duration) (ServerResult, []Diagnostic) {
	start := time.Now()
	res := ServerResult{ID: t.spec.ID}
	done := func(v Verdict, reason string) (ServerResult, []Diagnostic) {
		res.Verdict, res.Reason, res.MS = v, reason, time.Since(start).Milliseconds()
		o.log.Info("check", "server", t.spec.ID, "file", o.rel(path), "verdict", v, "ms", res.MS)
		return res, nil
	}
	s, err := o.session(t)
	if err != nil {
		return done(VerdictBroken, err.Error())
	}
	first := s.touch()
	if o.oneShot {
		s.waitInstalled(ctx)
	}
	if timeout <= 0 {
		timeout = o.cfg.DiagnosticTimeout
		if first {
			timeout = o.cfg.FirstTouchTimeout
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, verdict, reason := s.await(ctx)
	if c == nil {
		return done(verdict, reason)
	}
	uri, version, err := s.sync(ctx, c, path, t.spec.languageID(path), text, disk)
	if err != nil {
		if ctx.Err() != nil {
			return done(VerdictTimedOut, "")
		}
		return done(VerdictBroken, err.Error())
	}
	settle := c.WaitSettled(ctx, uri, version)
	diags := o.convert(t.spec.ID, c, uri, c.Diagnostics(uri), text)
	res.MS = time.Since(start).Milliseconds()
	switch settle {
	case client.Settled:
		res.Verdict = VerdictSettled
	case client.TimedOut:
		res.Verdict = VerdictTimedOut
		if len(diags) > 0 {
			res.Verdict = VerdictPartial
		}
		o.log.Warn("check timed out", "server", t.spec.ID, "file", o.rel(path), "ms", res.MS)
	case client.ServerGone:
		res.Verdict, res.Reason = VerdictBroken, c.Status().Reason
	}
	o.log.Info("check", "server", t.spec.ID, "file", o.rel(path), "verdict", res.Verdict, "ms", res.MS)
	return res, diags
}

// Diagnostics returns every known file's diagnostics (severity-filtered,
// files with none left out), keyed by path relative to the root.
func (o *Orchestrator) Diagnostics() FileDiagnostics {
	var all []Diagnostic
	for _, s := range o.liveSessions() {
		c := s.current()
		if c == nil {
			continue
		}
		for uri, ds := range c.AllDiagnostics() {
			all = append(all, o.convert(s.spec.ID, c, uri, ds, "")...)
		}
	}
	out := FileDiagnostics{}
	for _, d := range o.merge(all) {
		out[d.File] = append(out[d.File], d)
	}
	return out
}

// DiagnosticsAfter waits (at most wait) until every server that was sent a
// change after epoch has settled — the changed documents' versions, then a
// brief quiet spell for the reports on other files (importers) that follow —
// and returns Diagnostics.
func (o *Orchestrator) DiagnosticsAfter(ctx context.Context, epoch uint64, wait time.Duration) FileDiagnostics {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var wg conc.WaitGroup
	for _, s := range o.liveSessions() {
		wg.Go(func() { s.settleAfter(ctx, epoch) })
	}
	if p := wg.WaitAndRecover(); p != nil {
		o.log.Error("diagnosticsAfter: panic", "panic", p.String())
	}
	return o.Diagnostics()
}

func (o *Orchestrator) liveSessions() []*session {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]*session, 0, len(o.sessions))
	for _, k := range sortedKeys(o.sessions) {
		out = append(out, o.sessions[k])
	}
	return out
}

// merge filters by severity, drops duplicates (file, range and message) and
// sorts by file, line and column.
func (o *Orchestrator) merge(in []Diagnostic) []Diagnostic {
	type key struct {
		file         string
		l, c, el, ec int
		message      string
	}
	seen := map[key]bool{}
	out := []Diagnostic{}
	for _, d := range in {
		if !slices.Contains(o.cfg.IncludeSeverities, d.Severity) {
			continue
		}
		k := key{d.File, d.Line, d.Character, d.EndLine, d.EndCharacter, d.Message}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Character < b.Character
	})
	return out
}

// close stops new sessions, ends background work and returns the sessions.
func (o *Orchestrator) close() []*session {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.end()
	sessions := make([]*session, 0, len(o.sessions))
	for _, s := range o.sessions {
		sessions = append(sessions, s)
	}
	return sessions
}

// Shutdown stops every server (shutdown, exit, SIGTERM, SIGKILL) in
// parallel and waits for them; concurrent calls all wait for the one stop.
func (o *Orchestrator) Shutdown(ctx context.Context) {
	o.stopOnce.Do(func() {
		var wg conc.WaitGroup
		for _, s := range o.close() {
			wg.Go(func() { s.stop(ctx) })
		}
		wg.WaitAndRecover()
		o.bg.WaitAndRecover()
	})
}

// Kill ends every server at once (SIGKILL to each process group) without
// waiting: for a one-shot command that exits next. Use Shutdown otherwise.
func (o *Orchestrator) Kill() {
	for _, s := range o.close() {
		s.mu.Lock()
		s.stopping = true
		c := s.client
		s.mu.Unlock()
		if c != nil {
			c.Kill()
		}
	}
}

// convertPosition turns an LSP position into 1-based line and code-point
// column, given the line's text.
func convertPosition(lines []string, p protocol.Position, enc protocol.PositionEncodingKind) (int, int) {
	line := ""
	if int(p.Line) < len(lines) {
		line = lines[p.Line]
	}
	return int(p.Line) + 1, client.Mapper{Encoding: enc}.CodePoints(line, p.Character) + 1
}
