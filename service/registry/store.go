package registry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/sync/singleflight"
)

// DefaultDir is where installed servers live: $LSPKIT_SERVERS, else the
// user cache directory's lspkit/servers.
func DefaultDir() string {
	if d := os.Getenv("LSPKIT_SERVERS"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "lspkit", "servers")
}

// Progress is one report from an install: its start (Elapsed 0, with
// What), a tick about once a second, and its end (Done, with Err on
// failure).
type Progress struct {
	Server  string
	What    string // the packages and where they go
	Elapsed time.Duration
	Done    bool
	Err     error
}

// String renders the report as one line.
func (p Progress) String() string {
	switch {
	case p.Done && p.Err != nil:
		return fmt.Sprintf("lspkit: installing %s failed after %.0f s: %v", p.Server, p.Elapsed.Seconds(), p.Err)
	case p.Done:
		return fmt.Sprintf("lspkit: installed %s in %.0f s", p.Server, p.Elapsed.Seconds())
	case p.Elapsed == 0:
		return fmt.Sprintf("lspkit: installing %s (%s)", p.Server, p.What)
	}
	return fmt.Sprintf("lspkit: installing %s … %.0f s", p.Server, p.Elapsed.Seconds())
}

// Store is the server store: a directory with bin/ (one link or binary per
// server command), npm/GROUP prefixes and go/ markers, shared by the
// daemon's auto-install and `lspkit install`. Installs of one group run
// once at a time; concurrent needs share them.
type Store struct {
	dir      string
	progress func(Progress)
	installs singleflight.Group
	apt      sync.Mutex // apt-get takes the dpkg lock: one at a time
}

// NewStore returns the store in dir, reporting install progress to
// progress (nil: none).
func NewStore(dir string, progress func(Progress)) *Store {
	if progress == nil {
		progress = func(Progress) {}
	}
	return &Store{dir: dir, progress: progress}
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// Expand replaces ${servers} in a spec's JSON with the store's directory.
func (s *Store) Expand(v jsontext.Value) jsontext.Value {
	if v == nil {
		return nil
	}
	quoted := strconv.Quote(s.dir)
	return jsontext.Value(strings.ReplaceAll(string(v), "${servers}", quoted[1:len(quoted)-1]))
}

// OnPath returns env (KEY=VALUE entries over the process's own
// environment, the way a server is started) with the store's bin
// directory last on PATH: a server that runs another the store installed
// (templ runs gopls) finds it; what PATH already names comes first.
func (s *Store) OnPath(env []string) []string {
	bin := filepath.Join(s.dir, "bin")
	path := os.Getenv("PATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	if slices.Contains(filepath.SplitList(path), bin) {
		return env
	}
	if path != "" {
		path += string(filepath.ListSeparator)
	}
	return append(env, "PATH="+path+bin)
}

// Find finds spec's command: an absolute path as is, else on PATH, else in
// the store's bin directory (with the system's executable names: .exe, or
// an npm .cmd shim, on Windows); failing those, the first of its
// alternatives found the same way (a distribution's versioned name, such
// as clangd-19), then the places the system's own toolchain keeps it
// (clangd from Xcode on macOS, from LLVM on Windows).
func (s *Store) Find(spec *Spec) (string, bool) {
	for _, command := range append([]string{spec.Command}, spec.Alternatives...) {
		if p, ok := s.findCommand(command); ok {
			return p, true
		}
	}
	for _, p := range systemPaths(spec.Command, runtime.GOOS) {
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, true
		}
	}
	return "", false
}

func (s *Store) findCommand(command string) (string, bool) {
	if filepath.IsAbs(command) {
		info, err := os.Stat(command)
		return command, err == nil && !info.IsDir()
	}
	if p, err := exec.LookPath(command); err == nil {
		return p, true
	}
	for _, name := range executableNames(command, runtime.GOOS) {
		p := filepath.Join(s.dir, "bin", name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, true
		}
	}
	return "", false
}

// executableNames are the file names a command has on goos: on Windows
// its .exe, an npm .cmd shim, a .bat, then the bare name.
func executableNames(command, goos string) []string {
	if goos != "windows" {
		return []string{command}
	}
	return []string{command + ".exe", command + ".cmd", command + ".bat", command}
}

// systemPaths are where goos's own toolchains keep a server that is not on
// PATH: clangd in Xcode's or Homebrew's LLVM on macOS, in LLVM's installer
// directory on Windows.
func systemPaths(command, goos string) []string {
	if command != "clangd" {
		return nil
	}
	switch goos {
	case "darwin":
		return []string{
			"/Library/Developer/CommandLineTools/usr/bin/clangd",
			"/Applications/Xcode.app/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/bin/clangd",
			"/opt/homebrew/opt/llvm/bin/clangd",
			"/usr/local/opt/llvm/bin/clangd",
		}
	case "windows":
		return []string{`C:\Program Files\LLVM\bin\clangd.exe`}
	}
	return nil
}

// Resolve returns the path of spec's command, installing its recipe first
// when the command is missing, the recipe installs from the Go proxy or
// npm and autoInstall is on. A missing command is an error that says how
// to install it.
func (s *Store) Resolve(ctx context.Context, spec *Spec, autoInstall bool) (string, error) {
	if p, ok := s.Find(spec); ok {
		return p, nil
	}
	missing := fmt.Sprintf("%s not found on PATH or in %s", spec.Command, filepath.Join(s.dir, "bin"))
	switch {
	case spec.Install == nil:
		return "", fmt.Errorf("%s; install it and make it available on PATH, or set lsp.servers.%s.command", missing, spec.ID)
	case spec.Install.From.Kind == "apt":
		return "", fmt.Errorf("%s; install it with: %s (or lspkit install %s)", missing, spec.Install.From.Describe(), spec.ID)
	case !autoInstall:
		return "", fmt.Errorf("%s; install it with: lspkit install %s (%s), or turn on autoInstall", missing, spec.ID, spec.Install.From.Describe())
	}
	if err := s.Install(ctx, spec, false); err != nil {
		return "", fmt.Errorf("%s and auto-install failed: %w", missing, err)
	}
	if p, ok := s.Find(spec); ok {
		return p, nil
	}
	return "", fmt.Errorf("%s even after installing it", missing)
}

// Installed reports whether spec's recipe is installed at its pinned
// versions, with its command linked.
func (s *Store) Installed(spec *Spec) bool {
	if spec.Install == nil {
		_, ok := s.Find(spec)
		return ok
	}
	if !s.groupInstalled(spec.Install.From) {
		return false
	}
	for _, name := range executableNames(spec.Command, runtime.GOOS) {
		if _, err := os.Stat(filepath.Join(s.dir, "bin", name)); err == nil {
			return true
		}
	}
	return false
}

// marker is the file recording that a group is installed, and at which
// packages.
func (s *Store) marker(g *InstallGroup) string {
	if g.Kind == "npm" {
		return filepath.Join(s.dir, "npm", g.name, ".installed")
	}
	return filepath.Join(s.dir, g.Kind, g.name+".installed")
}

func (s *Store) groupInstalled(g *InstallGroup) bool {
	if g.Kind == "apt" {
		for _, p := range g.Packages {
			if _, err := exec.LookPath(p); err != nil && !dpkgInstalled(p) {
				return false
			}
		}
		return true
	}
	data, err := os.ReadFile(s.marker(g))
	return err == nil && strings.TrimSpace(string(data)) == strings.Join(g.Packages, " ")
}

func dpkgInstalled(pkg string) bool {
	return exec.Command("dpkg-query", "-W", "-f=${Status}", pkg).Run() == nil
}

// Install installs spec's recipe (the groups it requires first) and its
// helpers, unless they are installed at their pinned versions, and links
// its command into bin/. System packages (apt) are installed only when
// allowSystem is set (lspkit install), never by the daemon.
func (s *Store) Install(ctx context.Context, spec *Spec, allowSystem bool) error {
	for _, r := range append([]*Recipe{spec.Install}, spec.Helpers...) {
		if r == nil {
			continue
		}
		if err := s.installGroup(ctx, spec.ID, r.From, allowSystem); err != nil {
			return err
		}
		name := r.Bin
		if r == spec.Install {
			name = spec.Command
		}
		if err := s.link(r, name); err != nil {
			return err
		}
	}
	return nil
}

// installGroup installs a group once at a time: concurrent callers share
// the install in flight.
func (s *Store) installGroup(ctx context.Context, server string, g *InstallGroup, allowSystem bool) error {
	for _, r := range g.Requires {
		groups, err := Groups()
		if err != nil {
			return err
		}
		if err := s.installGroup(ctx, server, groups[r], allowSystem); err != nil {
			return err
		}
	}
	if s.groupInstalled(g) {
		return nil
	}
	if g.Kind == "apt" && !allowSystem {
		return fmt.Errorf("%s is a system package: install it with: %s", strings.Join(g.Packages, " "), g.Describe())
	}
	ch := s.installs.DoChan(g.name, func() (any, error) {
		// The install runs to its end whoever waits: a check that gives
		// up leaves it going for the next one.
		return nil, s.run(context.WithoutCancel(ctx), server, g)
	})
	select {
	case r := <-ch:
		return r.Err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run installs a group: go install into bin/, npm install into
// npm/GROUP, or apt-get install; then writes its marker.
func (s *Store) run(ctx context.Context, server string, g *InstallGroup) error {
	bin := filepath.Join(s.dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	var cmd *exec.Cmd
	switch g.Kind {
	case "go":
		gobin, err := exec.LookPath("go")
		if err != nil {
			return errors.New("installing " + server + " needs Go (go install), and go is not on PATH")
		}
		cmd = exec.CommandContext(ctx, gobin, append([]string{"install"}, g.Packages...)...)
		cmd.Env = append(os.Environ(), "GOBIN="+bin)
	case "npm":
		npm, err := exec.LookPath("npm")
		if err != nil {
			return errors.New("installing " + server + " needs npm, and npm is not on PATH")
		}
		prefix := filepath.Join(s.dir, "npm", g.name)
		if err := os.RemoveAll(prefix); err != nil {
			return err
		}
		// A registry connection reset mid-install (seen here on a busy
		// day) is retried by npm itself, more than its default twice.
		args := append([]string{"install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", "--fetch-retries=5", "--fetch-retry-mintimeout=2000"}, g.Packages...)
		cmd = exec.CommandContext(ctx, npm, args...)
	case "apt":
		s.apt.Lock()
		defer s.apt.Unlock()
		aptGet := func(args ...string) *exec.Cmd {
			argv := append([]string{"apt-get"}, args...)
			if os.Geteuid() != 0 {
				argv = append([]string{"sudo"}, argv...)
			}
			c := exec.CommandContext(ctx, argv[0], argv[1:]...)
			c.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
			return c
		}
		if out, err := aptGet("update", "-qq").CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get update: %w: %s", err, lastLines(string(out), 5))
		}
		cmd = aptGet(append([]string{"install", "-y", "-qq"}, g.Packages...)...)
	default:
		return fmt.Errorf("unknown install kind %q", g.Kind)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	s.progress(Progress{Server: server, What: strings.Join(g.Packages, " ") + " into " + s.dir})
	start := time.Now()
	err := s.wait(cmd, server, start, &out)
	if err == nil && g.Kind != "apt" {
		if err = os.MkdirAll(filepath.Dir(s.marker(g)), 0o755); err == nil {
			err = os.WriteFile(s.marker(g), []byte(strings.Join(g.Packages, " ")+"\n"), 0o644)
		}
	}
	s.progress(Progress{Server: server, Elapsed: time.Since(start), Done: true, Err: err})
	return err
}

// link makes bin/name run the recipe's executable (go installs it there
// already).
func (s *Store) link(r *Recipe, name string) error {
	var target string
	switch r.From.Kind {
	case "go":
		if name == r.Bin {
			return nil
		}
		target = filepath.Join(s.dir, "bin", r.Bin)
	case "npm":
		target = filepath.Join(s.dir, "npm", r.From.name, "node_modules", ".bin", r.Bin)
		if runtime.GOOS == "windows" {
			// npm makes .cmd shims there; a .cmd of ours runs it (links
			// need privileges on Windows).
			return writeShim(filepath.Join(s.dir, "bin", name+".cmd"), target+".cmd")
		}
	case "apt":
		p, err := exec.LookPath(r.Bin)
		if err != nil {
			return fmt.Errorf("%s is not on PATH after installing %s", r.Bin, strings.Join(r.From.Packages, " "))
		}
		target = p
	}
	link := filepath.Join(s.dir, "bin", name)
	if cur, err := os.Readlink(link); err == nil && cur == target {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	os.Remove(link)
	return os.Symlink(target, link)
}

// wait runs an install command, ticking progress about once a second.
func (s *Store) wait(cmd *exec.Cmd, server string, start time.Time, out *strings.Builder) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("%s: %w: %s", cmd, err, lastLines(out.String(), 5))
			}
			return nil
		case <-tick.C:
			s.progress(Progress{Server: server, Elapsed: time.Since(start)})
		}
	}
}

// lastLines returns the last n lines of s, joined with " | ".
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// writeShim writes a Windows batch file that runs target with its
// arguments.
func writeShim(path, target string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte("@\""+target+"\" %*\r\n"), 0o755)
}
