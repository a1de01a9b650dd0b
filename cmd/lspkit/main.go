// Command lspkit is the lspkit daemon and its one-shot tools: serve (the
// daemon), mcp (an MCP server), check, status, doctor, install, conform and
// record. `lspkit --help` lists them, `lspkit COMMAND --help` gives one's
// flags (both made from the command table in commands.go), and
// docs/contract.md is the reference.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/conformance"
	"github.com/lspkit/lspkit/internal/logsink"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/lspserver"
	"github.com/lspkit/lspkit/service/mcpserver"
	"github.com/lspkit/lspkit/service/mcpserver/fdpair"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/service/registry"
	"github.com/lspkit/lspkit/service/rpc"
	"github.com/lspkit/lspkit/service/shared"
)

// exitUsage is the exit status for usage and configuration errors.
const exitUsage = 2

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// version is the module version the binary was built from.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "--version", "-version", "version":
		fmt.Fprintln(stdout, "lspkit", version())
		return 0
	case "--help", "-help", "-h", "help":
		if len(args) > 1 {
			if c, ok := lookup(args[1]); ok {
				c.writeHelp(stdout)
				return 0
			}
		}
		writeUsage(stdout)
		return 0
	case "guard":
		return client.GuardMain(args[1:]) // started by the daemon, not by people: not in the usage
	}
	if c, ok := lookup(args[0]); ok {
		return c.run(ctx, args[1:], stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "lspkit: unknown command %q (expected %s; see lspkit --help)\n", args[0], commandList())
	return exitUsage
}

// commandList names the commands people run: "check, mcp, … or record".
func commandList() string {
	var names []string
	for _, c := range commands() {
		if !c.hidden {
			names = append(names, c.name)
		}
	}
	return joinOr(names)
}

// common holds the flags every command has.
type common struct {
	root, config, logLevel string
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

// orchestratorFor is the shared daemon's orchestrator: its servers'
// environment laid over its own by serverEnv.
func (c *common) orchestratorFor(cfg config.Config, log *slog.Logger, serverEnv func() []string) (*orchestrator.Orchestrator, error) {
	// UTF-16 alone: lspkit lsp's clients attach too, and pass positions
	// through unconverted (the other surfaces convert any encoding).
	return c.newOrchestrator(orchestrator.Options{Root: c.root, Config: cfg, Logger: log, Guard: guard(), ServerEnv: serverEnv,
		PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16}})
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

func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stderr, flush := unblocked(stderr)
	defer flush()
	var opts serveOptions
	fs := newFlags("serve", opts.define)
	c, mcpFDs, sharedFlag := &opts.common, &opts.mcpFDs, &opts.shared
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lspkit serve: unexpected argument %q (see lspkit --help)\n", fs.Arg(0))
		return exitUsage
	}
	var mcpIn, mcpOut *os.File
	if *mcpFDs != "" {
		var err error
		if mcpIn, mcpOut, err = parseFDs(*mcpFDs); err != nil {
			fmt.Fprintf(stderr, "lspkit serve: --mcp-fds: %v\n", err)
			return exitUsage
		}
	}
	log, err := logger(c.logLevel, slog.LevelInfo, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit serve: %v\n", err)
		return exitUsage
	}
	cfg, bootCfg, err := c.load()
	if err != nil {
		fmt.Fprintf(stderr, "lspkit serve: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer exiting(stop)
	// The MCP channel reads both descriptors and answers on the one the
	// host does not write to; it reads every byte the host writes to
	// either until the daemon exits. Hosts call its tools without asking:
	// unless fdWriteTools, it offers only tools that write nothing.
	var mcp *fdpair.Pair
	if mcpIn != nil {
		mcp = fdpair.Open(mcpIn, mcpOut, log)
		defer mcp.Close()
	}
	if wantShared(*sharedFlag, cfg) {
		if mcp != nil {
			surface := shared.SurfaceMCPReadOnly
			if cfg.FDWriteTools {
				surface = shared.SurfaceMCP
			}
			go func() {
				if err := c.relay(ctx, surface, bootCfg, mcp, mcp, log); err != nil && ctx.Err() == nil {
					log.Warn("mcp session ended", "err", err)
				}
			}()
		}
		if err := c.relay(ctx, shared.SurfaceRPC, bootCfg, stdin, stdout, log); err != nil {
			fmt.Fprintf(stderr, "lspkit serve: %v\n", err)
			return 1
		}
		return 0
	}
	o, err := c.orchestratorWith(cfg, log, nil, 0)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit serve: %v\n", err)
		return exitUsage
	}
	if mcp != nil {
		server := mcpserver.New(o, mcpserver.Options{Version: version(), ReadOnly: !cfg.FDWriteTools})
		go func() {
			if err := server.Run(ctx, mcpserver.StdioTransport(mcp, mcp)); err != nil && ctx.Err() == nil {
				log.Debug("mcp session ended", "err", err) // the host closed its side
			}
		}()
	}
	if err := rpc.Serve(ctx, o, stdio{stdin, stdout}, rpc.Options{Version: version(), Logger: log}); err != nil {
		fmt.Fprintf(stderr, "lspkit serve: %v\n", err)
		return 1
	}
	return 0
}

// lspCommand runs lspkit as a language server on stdin/stdout.
func lspCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stderr, flush := unblocked(stderr)
	defer flush()
	var opts lspOptions
	fs := newFlags("lsp", opts.define)
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lspkit lsp: unexpected argument %q (see lspkit --help)\n", fs.Arg(0))
		return exitUsage
	}
	c := &opts.common
	log, err := logger(c.logLevel, slog.LevelWarn, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit lsp: %v\n", err)
		return exitUsage
	}
	cfg, bootCfg, err := c.load()
	if err != nil {
		fmt.Fprintf(stderr, "lspkit lsp: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer exiting(stop)
	if wantShared(opts.shared, cfg) {
		err := c.relay(ctx, shared.SurfaceLSP, bootCfg, stdin, stdout, log, opts.servers...)
		switch {
		case errors.Is(err, shared.ErrExitWithoutShutdown):
			return 1
		case err != nil:
			fmt.Fprintf(stderr, "lspkit lsp: %v\n", err)
			return 1
		}
		return 0
	}
	// Positions pass through unconverted: every server speaks the
	// client's encoding, UTF-16.
	o, err := c.newOrchestrator(orchestrator.Options{Root: c.root, Config: cfg, Logger: log, Guard: guard(),
		PositionEncodings: []protocol.PositionEncodingKind{protocol.PositionEncodingKindUTF16}})
	if err != nil {
		fmt.Fprintf(stderr, "lspkit lsp: %v\n", err)
		return exitUsage
	}
	defer o.Shutdown(context.WithoutCancel(ctx))
	return lspserver.New(o, lspserver.Options{Servers: opts.servers, Logger: log}).Serve(ctx, stdio{stdin, stdout})
}

// parseFDs reads "R,W": the descriptors the host gave for MCP (either
// may turn out to be the one it writes to; see fdpair).
func parseFDs(s string) (*os.File, *os.File, error) {
	r, w, ok := strings.Cut(s, ",")
	rfd, err1 := strconv.Atoi(r)
	wfd, err2 := strconv.Atoi(w)
	if !ok || err1 != nil || err2 != nil || rfd < 3 || wfd < 3 || rfd == wfd {
		return nil, nil, fmt.Errorf("expected two descriptors ≥ 3 as R,W (e.g. 3,4), got %q", s)
	}
	in, err := fdpair.File(rfd, "mcp-in")
	if err != nil {
		return nil, nil, err
	}
	out, err := fdpair.File(wfd, "mcp-out")
	if err != nil {
		in.Close()
		return nil, nil, err
	}
	return in, out, nil
}

// record runs a server behind a recording proxy.
func record(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opts recordOptions
	fs := newFlags("record", opts.define)
	out := &opts.out
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "lspkit record: no server command after -- (see lspkit --help)")
		return exitUsage
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit record: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	err = conformance.Record(ctx, conformance.NewWriter(f), stdin, stdout, stderr, fs.Args())
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintf(stderr, "lspkit record: %v\n", err)
		return 1
	}
	return 0
}

// mcpCommand serves MCP on stdin/stdout until the client hangs up.
func mcpCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	stderr, flush := unblocked(stderr)
	defer flush()
	var opts mcpOptions
	fs := newFlags("mcp", opts.define)
	c, sharedFlag := &opts.common, &opts.shared
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	surface := shared.SurfaceMCP
	if opts.readOnly {
		surface = shared.SurfaceMCPReadOnly
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lspkit mcp: unexpected argument %q (see lspkit --help)\n", fs.Arg(0))
		return exitUsage
	}
	log, err := logger(c.logLevel, slog.LevelWarn, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit mcp: %v\n", err)
		return exitUsage
	}
	cfg, bootCfg, err := c.load()
	if err != nil {
		fmt.Fprintf(stderr, "lspkit mcp: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer exiting(stop)
	if wantShared(*sharedFlag, cfg) {
		if err := c.relay(ctx, surface, bootCfg, os.Stdin, os.Stdout, log); err != nil {
			fmt.Fprintf(stderr, "lspkit mcp: %v\n", err)
			return 1
		}
		return 0
	}
	o, err := c.orchestratorWith(cfg, log, nil, 0)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit mcp: %v\n", err)
		return exitUsage
	}
	done := make(chan error, 1)
	go func() {
		done <- mcpserver.New(o, mcpserver.Options{Version: version(), ReadOnly: opts.readOnly}).Run(ctx, mcpserver.StdioTransport(os.Stdin, os.Stdout))
	}()
	select {
	case err := <-done:
		log.Debug("mcp session ended", "err", err) // the client hung up
	case <-ctx.Done():
		// A blocked read of stdin cannot be interrupted: stop without it.
	}
	o.Shutdown(context.Background())
	return 0
}

// The exit statuses of lspkit check.
const (
	exitClean     = 0 // every file checked by every server for it; nothing at the requested severities
	exitFindings  = 1 // findings at the requested severities
	exitBadInput  = 2 // a missing path, a directory, a file outside the root, bad flags or configuration
	exitUnchecked = 3 // some file not (fully) checked, and no findings
)

// checkReport is lspkit check --json's output.
type checkReport struct {
	Diagnostics []api.Diagnostic `json:"diagnostics"`
	Files       []fileVerdict    `json:"files"`
}

// fileVerdict is one file's verdict in a check report.
type fileVerdict struct {
	File    string             `json:"file"`
	Checked bool               `json:"checked"`
	Reason  string             `json:"reason,omitempty"`
	Servers []api.ServerResult `json:"servers"`
}

func check(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var opts checkOptions
	fs := newFlags("check", opts.define)
	c, asJSON, severity, timeoutMS := &opts.common, &opts.json, &opts.severity, &opts.timeoutMS
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "lspkit check: no FILE given (see lspkit --help)")
		return exitUsage
	}
	if *timeoutMS < 0 {
		fmt.Fprintln(stderr, "lspkit check: --timeout: must be ≥ 0")
		return exitUsage
	}
	var severities []string
	if *severity != "" {
		severities = strings.Split(*severity, ",")
		for _, s := range severities {
			if !api.ValidSeverity(s) {
				fmt.Fprintf(stderr, "lspkit check: --severity: unknown severity %q (expected error, warning, info or hint)\n", s)
				return exitUsage
			}
		}
	}
	// A person reads check's stderr: one line per problem, below. What
	// the servers and lspkit log (a server's stderr, its backtraces) is
	// there with --log-level.
	log, err := logger(c.logLevel, logQuiet, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit check: %v\n", err)
		return exitUsage
	}
	o, err := c.orchestrator(log, progressBar(stderr), 0)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit check: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	// A one-shot check has nothing for its servers to save: it kills them
	// (SIGKILL to each process group) as it exits instead of waiting for a
	// polite shutdown.
	defer o.Kill()

	// Bad input is said first, one line per file; the other files are
	// still checked, so nothing is lost.
	code := exitClean
	var files []string
	for _, file := range fs.Args() {
		if why := badPath(o.Root(), file); why != "" {
			fmt.Fprintf(stderr, "lspkit check: %s: %s\n", file, why)
			code = exitBadInput
			continue
		}
		files = append(files, file)
	}
	// Files are checked at once: their servers work in parallel, and a
	// check costs the slowest file, not the sum.
	results := make([]api.CheckResult, len(files))
	errs := make([]error, len(files))
	var wg conc.WaitGroup
	for i, file := range files {
		abs, _ := filepath.Abs(file)
		wg.Go(func() {
			results[i], errs[i] = o.Check(ctx, api.CheckParams{FilePath: abs, TimeoutMs: *timeoutMS, Severities: severities})
		})
	}
	if p := wg.WaitAndRecover(); p != nil {
		fmt.Fprintf(stderr, "lspkit check: internal error: %v\n", p.Value)
		return 1
	}
	report := checkReport{Diagnostics: []api.Diagnostic{}, Files: []fileVerdict{}}
	unchecked := false
	for i, file := range files {
		res := results[i]
		v := fileVerdict{File: file, Checked: res.Checked, Reason: res.Reason, Servers: res.Servers}
		if rel, err := filepath.Rel(o.Root(), mustAbs(file)); err == nil {
			v.File = filepath.ToSlash(rel)
		}
		if errs[i] != nil {
			v.Reason = errs[i].Error()
		}
		if !v.Checked {
			unchecked = true
			fmt.Fprintf(stderr, "lspkit check: %s: not checked: %s\n", printable(file), printable(v.Reason))
		}
		report.Files = append(report.Files, v)
		report.Diagnostics = append(report.Diagnostics, res.Diagnostics...)
	}
	if *asJSON {
		out, _ := json.Marshal(report, jsontext.WithIndent("  "))
		fmt.Fprintf(stdout, "%s\n", out)
	} else {
		wd, _ := os.Getwd()
		for _, d := range report.Diagnostics {
			path := filepath.Join(o.Root(), filepath.FromSlash(d.File))
			if r, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(r, "..") {
				path = r
			}
			source := d.Source
			if source == "" {
				source = d.Server
			}
			fmt.Fprintf(stdout, "%s:%d:%d: %s: %s [%s]\n", printable(path), d.Line, d.Character, d.Severity, printable(d.Message), source)
		}
	}
	switch {
	case code == exitBadInput:
		return exitBadInput
	case len(report.Diagnostics) > 0:
		return exitFindings
	case unchecked:
		return exitUnchecked
	}
	return exitClean
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

// progressBar draws auto-install progress on stderr: on a terminal one
// line redrawn each second with a moving bar; elsewhere (logs, pipes) the
// start, every tenth second and the end.
func progressBar(w io.Writer) func(registry.Progress) {
	tty := false
	if f, ok := w.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return func(p registry.Progress) {
		switch {
		case !tty:
			if p.Done || p.Elapsed == 0 || int(p.Elapsed.Seconds())%10 == 0 {
				fmt.Fprintln(w, p.String())
			}
		case p.Done:
			fmt.Fprintf(w, "\r\033[K%s\n", p)
		case p.Elapsed == 0:
			fmt.Fprintln(w, p.String())
		default:
			const width = 20
			pos := int(p.Elapsed.Seconds()) % width
			bar := strings.Repeat(" ", pos) + "=" + strings.Repeat(" ", width-pos-1)
			fmt.Fprintf(w, "\r\033[Klspkit: installing %s [%s] %.0f s", p.Server, bar, p.Elapsed.Seconds())
		}
	}
}

// install installs servers at their pinned versions into the store: the
// named ones, or --tested, the set the live tests use. System packages
// (apt) are installed too; already installed ones are left alone.
func install(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var opts installOptions
	fs := newFlags("install", opts.define)
	tested := &opts.tested
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	specs, err := registry.Builtins()
	if err != nil {
		fmt.Fprintf(stderr, "lspkit install: %v\n", err)
		return 1
	}
	ids := fs.Args()
	if *tested {
		for _, id := range slices.Sorted(maps.Keys(specs)) {
			if specs[id].Tested && (specs[id].TestedIn == "" || opts.ci) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		fmt.Fprintln(stderr, "lspkit install: name the servers to install, or --tested (see lspkit --help)")
		return exitUsage
	}
	store := registry.NewStore(registry.DefaultDir(), func(p registry.Progress) {
		if p.Elapsed == 0 || p.Done {
			fmt.Fprintln(stderr, p.String())
		}
	})
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	fmt.Fprintf(stdout, "== language servers into %s\n", store.Dir())
	// Groups install concurrently (npm waits on the network while go
	// compiles); the report comes in the order asked.
	lines := make([]string, len(ids))
	var failed atomic.Bool
	var wg conc.WaitGroup
	for i, id := range ids {
		spec := specs[id]
		switch {
		case spec == nil:
			fmt.Fprintf(stderr, "lspkit install: no built-in server %q\n", id)
			failed.Store(true)
			continue
		case spec.Install == nil:
			fmt.Fprintf(stderr, "lspkit install: %s has no install recipe: install %s yourself\n", id, spec.Command)
			failed.Store(true)
			continue
		}
		wg.Go(func() {
			cached := store.Installed(spec)
			if err := store.Install(ctx, spec, true); err != nil {
				lines[i] = fmt.Sprintf("  %-14s failed: %v", id, err)
				failed.Store(true)
				return
			}
			state := "installed"
			if cached {
				state = "cached"
			}
			lines[i] = fmt.Sprintf("  %-14s %-42s %s", id, strings.Join(spec.Install.From.Packages, " "), state)
		})
	}
	if p := wg.WaitAndRecover(); p != nil {
		fmt.Fprintf(stderr, "lspkit install: %v\n", p.Value)
		return 1
	}
	for _, l := range lines {
		if l != "" {
			fmt.Fprintln(stdout, l)
		}
	}
	if failed.Load() {
		return 1
	}
	return 0
}

// printable keeps one finding on one line: text with a control character
// (a newline in a file name or message) is printed quoted.
func printable(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strconv.Quote(s)
}
