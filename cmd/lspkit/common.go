package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/logsink"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/budget"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/service/registry"
)

// exitUsage is the exit status for usage and configuration errors.
const exitUsage = 2

// common holds the flags every command has.
type common struct {
	root, config, logLevel string
	// format is lspkit mcp's --format, for the shared daemon's MCP.
	format string
}

// The options of each command, declared by their define methods.

// define declares the flags every workspace command has.
func (c *common) define(fs *flag.FlagSet) {
	fs.StringVar(&c.root, "root", "", "the workspace root `DIR` (default: the working directory)")
	fs.StringVar(&c.config, "config", "", "the configuration `FILE` (default: ROOT/lspkit.json, else ROOT/opencode.json)")
	fs.StringVar(&c.logLevel, "log-level", "", "log `LEVEL`: debug, info, warn, error (default: $LSPKIT_LOG, else the command's)")
}

// newFlags is a command's flag set with the flags define declares.
func newFlags(name string, define func(*flag.FlagSet)) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	define(fs)
	return fs
}

// parse parses flags, printing help or one line about the problem.
func parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			if c, ok := lookup(fs.Name()); ok {
				c.writeHelp(stdout)
			} else {
				writeUsage(stdout)
			}
			return 0, false
		}
		fmt.Fprintf(stderr, "lspkit %s: %v (see lspkit --help)\n", fs.Name(), err)
		return exitUsage, false
	}
	return 0, true
}

// stringsFlag is a repeatable string flag.
type stringsFlag []string

func (f *stringsFlag) String() string { return strings.Join(*f, ",") }

// Set adds one value.
func (f *stringsFlag) Set(v string) error {
	*f = append(*f, v)
	return nil
}

// logQuiet is a level above every record's: nothing is logged unless a
// level is asked for.
const logQuiet = slog.LevelError + 4

// logger logs to stderr at level, else $LSPKIT_LOG's, else def.
func logger(level string, def slog.Level, stderr io.Writer) (*slog.Logger, error) {
	if level == "" {
		level = os.Getenv("LSPKIT_LOG")
	}
	l := def
	if level != "" {
		if err := l.UnmarshalText([]byte(level)); err != nil {
			return nil, fmt.Errorf("log level %q: expected debug, info, warn or error", level)
		}
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: l})), nil
}

// orchestrator sets up the root, configuration and orchestrator the
// commands share; LSPKIT_BOOTSTRAP (or the seed contract's LSP_BOOTSTRAP)
// may give the root and configuration.
func (c *common) orchestrator(log *slog.Logger, progress func(registry.Progress), grace time.Duration) (*orchestrator.Orchestrator, error) {
	cfg, _, err := c.load()
	if err != nil {
		return nil, err
	}
	return c.orchestratorWith(cfg, log, progress, grace)
}

// orchestratorWith is orchestrator with the configuration loaded.
func (c *common) orchestratorWith(cfg config.Config, log *slog.Logger, progress func(registry.Progress), grace time.Duration) (*orchestrator.Orchestrator, error) {
	return c.newOrchestrator(orchestrator.Options{Root: c.root, Config: cfg, Logger: log, Progress: progress, StopGrace: grace, OneShot: progress != nil, Guard: guard()})
}

// orchestratorFor is one of the shared daemon's orchestrators (one per
// root it serves): its servers' environment laid over its own by
// serverEnv, its servers counted in the daemon's budget b, and those that
// take workspace folders started by share (the daemon's pool, which runs
// one process of each for every worktree; nil: processes of the root's
// own).
func (c *common) orchestratorFor(cfg config.Config, log *slog.Logger, serverEnv func() []string, b *budget.Budget, share client.Launch) (*orchestrator.Orchestrator, error) {
	if !cfg.ShareServers {
		share = nil
	}
	// UTF-16 alone: lspkit lsp's clients attach too, and pass positions
	// through unconverted (the other surfaces convert any encoding).
	return c.newOrchestrator(orchestrator.Options{Root: c.root, Config: cfg, Logger: log, Guard: guard(), ServerEnv: serverEnv,
		PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16}, Budget: b, Share: share})
}

// newOrchestrator starts an orchestrator and logs its configuration's notes.
func (c *common) newOrchestrator(opts orchestrator.Options) (*orchestrator.Orchestrator, error) {
	o, err := orchestrator.New(opts)
	if err != nil {
		return nil, err
	}
	for _, note := range o.Notes() {
		opts.Logger.Warn("configuration: " + note) // also on lsp/status's lspkit entry and in lspkit doctor
	}
	return o, nil
}

// load settles the root (the flag, the bootstrap's, else the working
// directory) and loads the configuration, a host's bootstrap (the first of
// config.BootstrapVars set) laid over the project's; bootCfg is the
// bootstrap's configuration as given. Only a bootstrap that leaves nothing
// usable (not a JSON object, a root that is not a directory) is an error:
// whatever else it sets that lspkit cannot take is in cfg.Ignored.
func (c *common) load() (cfg config.Config, bootCfg jsontext.Value, err error) {
	var boot *config.Bootstrap
	for _, name := range config.BootstrapVars {
		if raw := os.Getenv(name); raw != "" {
			b, err := config.ParseBootstrap(name, raw)
			if err != nil {
				return cfg, nil, err
			}
			boot, bootCfg = &b, b.Config
			break
		}
	}
	rootFrom := "root"
	if c.root == "" && boot != nil && boot.WorkspaceRoot != "" {
		c.root, rootFrom = boot.WorkspaceRoot, boot.Var+" workspaceRoot"
	}
	if c.root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return cfg, nil, err
		}
		c.root = wd
	}
	info, err := os.Stat(c.root)
	if err != nil || !info.IsDir() {
		return cfg, nil, fmt.Errorf("%s %s: %w", rootFrom, c.root, errNotADirectory)
	}
	cfg, err = config.Load(c.root, c.config, boot)
	return cfg, bootCfg, err
}

// guard is the orphan guard's command: this binary's guard mode
// (LSPKIT_ORPHAN_GUARD=pipe, the default on Unix), unless
// LSPKIT_ORPHAN_GUARD=off: then on Linux the server still dies with a
// daemon killed by SIGKILL (Pdeathsig) but its own children may not, and
// elsewhere nothing takes it down. Windows needs no guard: each server's
// Job Object dies with the daemon.
func guard() []string {
	if os.Getenv("LSPKIT_ORPHAN_GUARD") == "off" {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, "guard"}
}

// exiting ends a daemon command's signal handling on its way out: SIGTERM
// and SIGINT are ignored from then on, so that a host's SIGTERM right after
// lsp/shutdown's answer (LLxprt Code sends one at once) does not cut short
// what is left — the MCP channel read out, the log flushed — nor turn the
// exit status into a signal.
func exiting(stop context.CancelFunc) {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	stop()
}

// exitFlush bounds how long a daemon waits at exit for its log to reach
// stderr: a host that never reads it gets no more of it.
const exitFlush = 250 * time.Millisecond

// unblocked is stderr for a daemon's life: writes to it never wait
// (logsink), so that a host that never reads stderr stalls nothing; flush
// writes what is left at exit, within exitFlush.
func unblocked(stderr io.Writer) (io.Writer, func()) {
	s := logsink.New(stderr, 0)
	return s, func() { s.Close(exitFlush) }
}

// stdio is the daemon's stream: stdin and stdout.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// badPath says why file cannot be checked under root — missing, a
// directory, outside the root — or "".
func badPath(root, file string) string {
	abs := mustAbs(file)
	info, err := os.Stat(abs)
	switch {
	case err != nil && errors.Is(err, os.ErrNotExist):
		return "no such file"
	case err != nil:
		return err.Error()
	case info.IsDir():
		return "is a directory (name the files to check)"
	case !info.Mode().IsRegular():
		return "is not a regular file"
	}
	if outsideRoot(root, abs) {
		return "outside the workspace root " + root + " (set --root)"
	}
	return ""
}

// outsideRoot reports whether file, symlinks resolved, is outside root.
func outsideRoot(root, file string) bool {
	abs := mustAbs(file)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	rel, err := filepath.Rel(root, abs)
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// mustAbs is file as an absolute path (the file itself if that fails).
func mustAbs(file string) string {
	if abs, err := filepath.Abs(file); err == nil {
		return abs
	}
	return file
}

// printable keeps one finding on one line: text with a control character
// (a newline in a file name or message) is printed quoted.
func printable(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// setUp is what a serving command does first: its log (--log-level, else
// def) and its configuration with the host's bootstrap; a failure is said
// on stderr as the command's, and ok is false.
func (c *common) setUp(command string, def slog.Level, stderr io.Writer) (log *slog.Logger, cfg config.Config, bootCfg jsontext.Value, ok bool) {
	log, err := logger(c.logLevel, def, stderr)
	if err == nil {
		cfg, bootCfg, err = c.load()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", command, err)
		return nil, config.Config{}, nil, false
	}
	return log, cfg, bootCfg, true
}
