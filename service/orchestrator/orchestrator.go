// Package orchestrator runs language servers for one workspace and answers
// the lspkit service contract as a Go API: one client per (server, root),
// started on first need, restarted after crashes within the configured
// policy, checked in parallel; checks with per-server verdicts, diagnostics
// across files, feedback reports, navigation and status. The daemon's
// JSON-RPC and MCP surfaces are thin adapters over it, and a Go program can
// embed it without the daemon.
//
// Every method takes and returns the types of package api. Failures are, or
// wrap, a *transport.Error whose code says what went wrong (api.CodeOutsideRoot,
// api.CodeNoServer, transport.CodeInvalidParams, …), so every surface reports
// them alike.
package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/client/filewatch"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/budget"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/findings"
	"github.com/lspkit/lspkit/service/impact"
	"github.com/lspkit/lspkit/service/registry"
)

// Options configures an Orchestrator.
type Options struct {
	Root   string        // the workspace root; files outside it are never served
	Config config.Config // the zero Config means config.Default()
	Logger *slog.Logger
	// Store is where servers are found and installed; nil uses
	// registry.DefaultDir with Progress.
	Store *registry.Store
	// Progress receives auto-install progress (the CLI draws it on
	// stderr); nil logs the start and end.
	Progress func(registry.Progress)
	// Launch starts a language server; nil starts real processes. Tests
	// run in-process servers through it (internal/lsptest).
	Launch client.Launch
	// Share, when set, starts the servers that serve several roots as
	// workspace folders (servers.json's roots "folders": gopls, pyright)
	// in place of Launch: a shared daemon's pool (client/procshare),
	// which runs one process of such a server for every worktree it
	// serves.
	Share client.Launch
	// OneShot is for a command that checks and exits (lspkit check): a
	// check waits for a server's auto-install before its timeout starts
	// (the daemon does not, and reports the server as starting meanwhile),
	// and servers are not offered file watching (nothing changes on disk
	// during a one-shot check, and gopls starts slower when it sets up
	// watches).
	OneShot bool
	// StopGrace is how long a stopping server gets to exit after
	// shutdown/exit before it is terminated, and then killed (default 2 s).
	StopGrace time.Duration
	// Guard is the orphan guard's command (client.Command.Guard): servers
	// are started through it so that their whole process tree dies with
	// the daemon. Nil starts them directly.
	Guard []string
	// ServerEnv, when set, gives variables laid over the daemon's own
	// environment for each server started (a shared daemon's, completed
	// by its clients'); a server's configured env is laid over both.
	ServerEnv func() []string
	// PositionEncodings are offered to every server (client.Config); nil
	// offers lspkit's own preference.
	PositionEncodings []protocol.PositionEncodingKind
	// Budget bounds the servers of every orchestrator of one daemon (a
	// shared daemon's worktrees share one); nil: one of the orchestrator's
	// own, from its configuration's maxServers and maxMemoryMB.
	Budget *budget.Budget
}

// An Orchestrator runs the language servers of one workspace.
type Orchestrator struct {
	root   string // absolute, symlinks resolved
	cfg    config.Config
	log    *slog.Logger
	specs  map[string]*registry.Spec
	notes  []string // what was made of the configuration: keys ignored, entries read a certain way
	store  *registry.Store
	launch client.Launch
	share  client.Launch
	// encodings are the position encodings offered to servers.
	encodings []protocol.PositionEncodingKind
	// listeners hear of changes on disk (OnFilesChanged).
	listeners callbacks[[]string]
	// watchers hear what the servers tell a user (OnServerEvent).
	watchers callbacks[serverEvent]
	grace    time.Duration
	oneShot  bool
	guard    []string
	// serverEnv is Options.ServerEnv.
	serverEnv func() []string

	mu        sync.Mutex
	sessions  map[string]*session // by server id + "\x00" + root (one session under each root it serves)
	noFolders map[string]bool     // by server id: its server turned out not to take workspace folder changes
	unused    map[string]string   // by server id: why its sessions were stopped for want of use (status says so)
	closed    bool
	stopOnce  sync.Once
	epoch     uint64
	life      context.Context
	end       context.CancelFunc
	bg        conc.WaitGroup // supervisors
	shown     findings.Shown // what the last checks and reports showed each caller, for delta answers
	callers   callers        // numbers the clients of a shared orchestrator
	scanner   impact.Scanner // what each file imports or includes, for impact where the server cannot say
	budget    *budget.Budget // what the daemon's servers may take together

	memoryEvery time.Duration // how often servers' memory is compared with the limit (memoryCheckEvery when 0; tests set it)
	// Tests' seams, nil otherwise: holdWaits runs when a request finds a
	// session held and waits for it; restoreRead when a what-if's restore
	// has read a file's disk text, before it is sent.
	holdWaits   func()
	restoreRead func(path string)

	watcher  *filewatch.Watcher // the workspace's file watcher; nil for one-shot uses or when it could not start
	watchErr error              // why it could not start
}

// New returns an orchestrator for opts.Root. It starts no server.
func New(opts Options) (*Orchestrator, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: root %q: %w", opts.Root, err)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, fmt.Errorf("orchestrator: root %q: %w", opts.Root, err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Config.Servers == nil {
		d := config.Default()
		d.Disabled = opts.Config.Disabled
		opts.Config = d
	}
	specs, resolved, err := registry.Resolve(opts.Config)
	if err != nil {
		return nil, err
	}
	notes := slices.Clone(opts.Config.Ignored)
	for _, n := range resolved {
		notes = append(notes, n.Text)
	}
	o := &Orchestrator{
		root:      root,
		cfg:       opts.Config,
		log:       opts.Logger,
		specs:     specs,
		store:     opts.Store,
		launch:    opts.Launch,
		share:     opts.Share,
		encodings: opts.PositionEncodings,
		grace:     opts.StopGrace,
		oneShot:   opts.OneShot,
		guard:     opts.Guard,
		serverEnv: opts.ServerEnv,
		sessions:  map[string]*session{},
		notes:     notes,
	}
	if o.store == nil {
		progress := opts.Progress
		if progress == nil {
			progress = func(p registry.Progress) {
				if p.Elapsed == 0 || p.Done {
					o.log.Info("install", "progress", p.String())
				}
			}
		}
		o.store = registry.NewStore(registry.DefaultDir(), progress)
	}
	o.life, o.end = context.WithCancel(context.Background())
	o.budget = opts.Budget
	if o.budget == nil && (o.cfg.MaxServers > 0 || o.cfg.MaxMemoryMB > 0) {
		o.budget = &budget.Budget{MaxServers: o.cfg.MaxServers, MaxMemoryMB: o.cfg.MaxMemoryMB, Every: o.memoryEvery, Logger: o.log}
		o.bg.Go(func() { o.budget.Run(o.life) })
	}
	if !o.oneShot && !o.cfg.Disabled {
		o.startWatcher()
		if o.cfg.Prewarm {
			o.bg.Go(o.prewarm)
		}
	}
	return o, nil
}

// prewarm starts the servers whose root markers are at the workspace root,
// each with one of its files open (Config.Prewarm), in the background.
func (o *Orchestrator) prewarm() {
	defer func() {
		if r := recover(); r != nil {
			o.log.Error("prewarm: panic", "panic", r)
		}
	}()
	if note := o.warmWorkspace(o.life); note != "" {
		o.log.Info("prewarm", "note", note)
	}
}

// Root returns the workspace root (absolute, symlinks resolved).
func (o *Orchestrator) Root() string { return o.root }

// Notes says what the orchestrator made of its configuration: each key a
// host's bootstrap set that was ignored, with why, and server entries read
// a certain way (config.Config.Ignored, registry.Resolve). Status shows
// them on the daemon's own entry.
func (o *Orchestrator) Notes() []string { return slices.Clone(o.notes) }

// Config returns the configuration in force.
func (o *Orchestrator) Config() config.Config { return o.cfg }

// Store returns the server store.
func (o *Orchestrator) Store() *registry.Store { return o.store }

// Epoch returns the diagnostic epoch: it advances on every check and every
// diagnostics change a server reports.
func (o *Orchestrator) Epoch() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.epoch
}

func (o *Orchestrator) bump() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.epoch++
	return o.epoch
}

// resolve turns a path from a request into an absolute path inside the
// root, with symlinks resolved; ok is false for paths outside it.
func (o *Orchestrator) resolve(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	switch {
	case filepath.IsAbs(path):
	case filepath.VolumeName(path) != "" || filepath.Separator == '\\' && (path[0] == '\\' || path[0] == '/'):
		// On Windows, `\etc\x` (rooted, on the current drive) and `D:x`
		// (a drive without a root) are not the workspace's relative paths.
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", false
		}
		path = abs
	default:
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

// excluded reports whether the file at abs (inside the root) matches one
// of the configured exclude globs, and which.
func (o *Orchestrator) excluded(abs string) (string, bool) {
	rel := o.rel(abs)
	for _, g := range o.cfg.Exclude {
		if ok, _ := doublestar.Match(g, rel); ok {
			return g, true
		}
	}
	return "", false
}

// maxFileBytes is the largest file a server is sent.
func (o *Orchestrator) maxFileBytes() int64 {
	if o.cfg.MaxFileBytes <= 0 {
		return int64(config.Default().MaxFileBytes)
	}
	return int64(o.cfg.MaxFileBytes)
}

// maxOpenDocuments is how many documents each server keeps open.
func (o *Orchestrator) maxOpenDocuments() int {
	if o.cfg.MaxOpenDocuments <= 0 {
		return config.Default().MaxOpenDocuments
	}
	return o.cfg.MaxOpenDocuments
}

// foldCase says whether file names are compared without regard to case
// here: on Windows, and on macOS (its default volumes).
var foldCase = runtime.GOOS == "windows" || runtime.GOOS == "darwin"

// within reports whether path is dir or inside it, by whole segments.
func within(dir, path string) bool {
	_, ok := relWithin(dir, path, filepath.Separator, foldCase)
	return ok
}

// relWithin returns path relative to dir when it is dir or inside it, by
// whole segments of sep-separated clean absolute paths, comparing names
// without regard to case when fold is set.
func relWithin(dir, path string, sep byte, fold bool) (string, bool) {
	dir = strings.TrimSuffix(dir, string(sep))
	if len(path) < len(dir) {
		return "", false
	}
	head := path[:len(dir)]
	if head != dir && !(fold && strings.EqualFold(head, dir)) {
		return "", false
	}
	rest := path[len(dir):]
	switch {
	case rest == "":
		return ".", true
	case rest[0] == sep:
		return rest[1:], true
	}
	return "", false
}

// rel returns path relative to the root, '/'-separated; paths outside the
// root stay absolute.
func (o *Orchestrator) rel(path string) string {
	if r, ok := relWithin(o.root, path, filepath.Separator, foldCase); ok {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(path)
}

// target is one server for one file: the spec and the root it runs in.
type target struct {
	spec *registry.Spec
	root string
}

// serversFor returns the enabled servers for the file at path (absolute,
// inside the root) with the root each would run in, in id order.
func (o *Orchestrator) serversFor(path string) []target {
	if o.cfg.Disabled {
		return nil
	}
	var out []target
	for _, id := range slices.Sorted(maps.Keys(o.specs)) {
		s := o.specs[id]
		if !s.Enabled || !s.Serves(path) {
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

// serverRoot is the nearest directory from path's up to the workspace root
// holding one of the server's markers (the outermost for a server whose
// roots are RootsOutermost), else the workspace root.
func (o *Orchestrator) serverRoot(s *registry.Spec, path string) (string, bool) {
	found := ""
	for dir := filepath.Dir(path); within(o.root, dir); dir = filepath.Dir(dir) {
		for _, m := range s.RootMarkers {
			if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
				if s.Roots != registry.RootsOutermost {
					return dir, true
				}
				found = dir
				break
			}
		}
		if dir == o.root {
			break
		}
	}
	if found != "" {
		return found, true
	}
	return o.root, false
}

// knownServers lists the enabled servers with their file types, for "no
// server for this file" answers.
func (o *Orchestrator) knownServers() string {
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(o.specs)) {
		s := o.specs[id]
		if s.Enabled && !o.cfg.Disabled {
			parts = append(parts, fmt.Sprintf("%s (%s)", id, strings.Join(append(slices.Clone(s.Extensions), s.FileNames...), " ")))
		}
	}
	if len(parts) == 0 {
		return "none (LSP is disabled by configuration)"
	}
	return strings.Join(parts, ", ")
}

// session returns the session for a target, creating it (and starting its
// server in the background) on first need: concurrent first touches share
// one start.
func (o *Orchestrator) session(t target) (*session, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil, errors.New("the daemon is shutting down")
	}
	key := t.spec.ID + "\x00" + t.root
	if s, ok := o.sessions[key]; ok {
		s.used()
		return s, nil
	}
	if s := o.folderSession(t.spec); s != nil {
		// One process serves every root of this server: the root is
		// one more workspace folder of it.
		o.sessions[key] = s
		s.used()
		s.addRoot(t.root)
		return s, nil
	}
	s := newSession(o, t)
	s.used()
	o.sessions[key] = s
	s.coldAfter = strings.TrimSuffix(o.unused[t.spec.ID], startsAgain)
	delete(o.unused, t.spec.ID)
	o.bg.Go(s.supervise)
	if o.cfg.ServerIdleStop > 0 {
		o.bg.Go(s.stopWhenUnused)
	}
	if o.cfg.MaxServerMemoryMB > 0 {
		o.bg.Go(s.limitMemory)
	}
	return s, nil
}

// folderSession returns the session that takes further roots of spec as
// workspace folders, or nil: spec's roots are RootsFolders and a session
// of it runs (or starts) whose server did not turn out to refuse folder
// changes. o.mu is held.
func (o *Orchestrator) folderSession(spec *registry.Spec) *session {
	if spec.Roots != registry.RootsFolders || o.noFolders[spec.ID] {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(o.sessions)) {
		if s := o.sessions[k]; s.spec == spec && s.takesFolders() {
			return s
		}
	}
	return nil
}

// splitFolders undoes the roots s took as workspace folders when its
// server turned out not to take folder changes: each gets a process of
// its own at its next need, and so does every later root of the server.
func (o *Orchestrator) splitFolders(s *session) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.noFolders == nil {
		o.noFolders = map[string]bool{}
	}
	o.noFolders[s.spec.ID] = true
	for k, other := range o.sessions {
		if other == s && k != s.spec.ID+"\x00"+s.root {
			delete(o.sessions, k)
		}
	}
}

// retire removes s if it has gone unused for the idle stop and reports
// whether it did; the next need of its server starts a new session.
func (o *Orchestrator) retire(s *session) bool {
	if c := s.current(); c != nil && c.InFlight() > 0 {
		s.used() // a request is running on it: unused only from its end
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if time.Since(s.lastUse()) < o.cfg.ServerIdleStop {
		return false
	}
	return o.drop(s, fmt.Sprintf("stopped after %s unused", idleText(o.cfg.ServerIdleStop)))
}

// drop removes s — under its root and the roots it took as folders — for
// why, which status says until the server starts again, and reports
// whether it did (s is still the session of its root). o.mu is held.
func (o *Orchestrator) drop(s *session, why string) bool {
	key := s.spec.ID + "\x00" + s.root
	if o.closed || o.sessions[key] != s {
		return false
	}
	for k, other := range o.sessions {
		if other == s {
			delete(o.sessions, k)
		}
	}
	if o.unused == nil {
		o.unused = map[string]string{}
	}
	o.unused[s.spec.ID] = why + startsAgain
	return true
}

// startsAgain ends what status says of a server stopped for want of use
// or for the budget.
const startsAgain = "; starts again when a matching file is checked"

// idleText says a duration as people do: "15 min", else Go's form.
func idleText(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%d min", int(d/time.Minute))
	}
	return d.String()
}

// liveSessions returns the sessions, ordered by server id and root.
func (o *Orchestrator) liveSessions() []*session {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]*session, 0, len(o.sessions))
	for _, k := range slices.Sorted(maps.Keys(o.sessions)) {
		if s := o.sessions[k]; !slices.Contains(out, s) { // once, though it serves several roots
			out = append(out, s)
		}
	}
	return out
}

// close stops new sessions, ends background work and returns the sessions.
func (o *Orchestrator) close() []*session {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.end()
	var out []*session
	for _, s := range o.sessions {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Shutdown stops every server (shutdown, exit, terminate, kill) in parallel
// and waits for them; concurrent calls all wait for the one stop.
func (o *Orchestrator) Shutdown(ctx context.Context) {
	o.stopOnce.Do(func() {
		var wg conc.WaitGroup
		for _, s := range o.close() {
			wg.Go(func() { s.stop(ctx) })
		}
		wg.WaitAndRecover()
		o.bg.WaitAndRecover()
		if o.watcher != nil {
			o.watcher.Close()
		}
	})
}

// Kill ends every server at once (kill to each process group) without
// waiting: for a one-shot command that exits next. Use Shutdown otherwise.
func (o *Orchestrator) Kill() {
	for _, s := range o.close() {
		s.kill()
	}
	if o.watcher != nil {
		o.watcher.Close()
	}
}

// clientConfig is how a session starts its server's client.
func (o *Orchestrator) clientConfig(spec *registry.Spec, path, root string, folders ...string) client.Config {
	var env []string
	if o.serverEnv != nil {
		env = o.serverEnv()
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		env = append(env, k+"="+spec.Env[k])
	}
	if limit := o.softMemoryLimit(spec, env); limit != "" {
		env = append(env, limit)
	}
	env = o.store.OnPath(env)
	args := slices.Concat(spec.Args, o.compileCommandsArgs(spec, root))
	launch := o.launch
	if o.share != nil && spec.Roots == registry.RootsFolders {
		launch = o.share
	}
	return client.Config{
		Name:                  spec.ID,
		Command:               client.Command{Path: path, Args: args, Env: env, Dir: root, Guard: o.guard},
		Root:                  root,
		Folders:               folders,
		InitializationOptions: o.store.Expand(spec.InitializationOptions),
		Settings:              o.store.Expand(spec.Settings),
		Launch:                launch,
		Logger:                o.log,
		StopGrace:             o.grace,
		NoFileWatcher:         o.oneShot,
		Watcher:               o.watcher,
		WatchBudget:           o.cfg.WatchBudget,
		Settle:                settlePolicy(spec.Settle),
		RequestTimeout:        o.cfg.RequestTimeout,
		PositionEncodings:     o.encodings,
		OnEvent:               func(e client.Event) { o.watchers.tell(serverEvent{spec.ID, e}) },
	}
}

// softMemoryLimit is the GOMEMLIMIT entry a server written in Go starts
// with under a memory bound: the smaller of maxServerMemoryMB and
// maxMemoryMB, so the Go runtime collects garbage harder as it nears the
// bound instead of holding it until lspkit restarts or stops the server
// (gopls keeps up to its 100 MB ballast plus its live heap again as
// garbage between collections). "" with no bound, for a server not
// written in Go, or when env or lspkit's own environment sets GOMEMLIMIT
// already (the user's choice stands).
func (o *Orchestrator) softMemoryLimit(spec *registry.Spec, env []string) string {
	if !spec.GoRuntime {
		return ""
	}
	mb := 0
	for _, b := range []int{o.cfg.MaxServerMemoryMB, o.cfg.MaxMemoryMB} {
		if b > 0 && (mb == 0 || b < mb) {
			mb = b
		}
	}
	if mb == 0 {
		return ""
	}
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return ""
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMEMLIMIT=") {
			return ""
		}
	}
	return fmt.Sprintf("GOMEMLIMIT=%dMiB", mb)
}

// settlePolicy is the client's form of a server's settle entry.
func settlePolicy(s *registry.Settle) client.SettlePolicy {
	if s == nil {
		return client.SettlePolicy{}
	}
	p := client.SettlePolicy{Command: s.Command, Arguments: s.Arguments, TSServer: s.TSServer, SkipsSameText: s.SkipsSameText, SaveRebuildsAll: s.SaveRebuildsAll, PullDuringWork: s.PullDuringWork, PublishDuringWork: s.PublishDuringWork}
	if s.QuietMs != nil {
		p.Quiet = time.Duration(*s.QuietMs) * time.Millisecond
		if *s.QuietMs == 0 {
			p.Quiet = -1 // none: one publish per version is the whole answer
		}
	}
	return p
}

// ClientConfig returns the client configuration the orchestrator would
// start server id with in root (its command found, not installed): for
// tools and tests that drive a client directly.
func (o *Orchestrator) ClientConfig(id, root string) (client.Config, error) {
	spec, ok := o.specs[id]
	if !ok {
		return client.Config{}, fmt.Errorf("no server %q", id)
	}
	path, ok := o.store.Find(spec)
	if !ok {
		return client.Config{}, fmt.Errorf("%s: %s not found", id, spec.Command)
	}
	return o.clientConfig(spec, path, root), nil
}
