package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client/procshare"
	lspdaemon "github.com/lspkit/lspkit/daemon"
	"github.com/lspkit/lspkit/service/budget"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/shared"
	"github.com/lspkit/lspkit/service/worktree"
)

// wantShared says whether a serve or mcp command attaches to the shared
// daemon: --shared, LSPKIT_SHARED=1, or "shared": true in the configuration.
func wantShared(flag bool, cfg config.Config) bool {
	return flag || os.Getenv("LSPKIT_SHARED") == "1" || cfg.Shared
}

// endpoint is the shared daemon's endpoint for c's root and configuration:
// one per lspkit version, repository (the git common directory of the
// worktree holding the root: every worktree of a repository shares one
// daemon, each its own root in it) or root outside any repository,
// configuration file named and bootstrap configuration given.
func (c *common) endpoint(bootCfg jsontext.Value) (shared.Endpoint, error) {
	root, err := filepath.Abs(c.root)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return shared.Endpoint{}, fmt.Errorf("root %s: %w", c.root, err)
	}
	c.root = root
	cfgFile := c.config
	if cfgFile != "" {
		if abs, err := filepath.Abs(cfgFile); err == nil {
			cfgFile = abs
		}
	}
	return shared.For(version(), repositoryOf(root), cfgFile, string(bootCfg))
}

// repositoryOf is what a shared daemon serves root as part of: its git
// repository ("git:" and the common directory), or root itself outside
// any (or where its .git cannot be read).
func repositoryOf(root string) string {
	if t, ok, err := worktree.Of(root); ok && err == nil {
		return "git:" + t.CommonDir
	}
	return root
}

// attachOptions are how a client of c's root attaches to its shared daemon
// on surface, starting it if none runs, and the daemon's endpoint.
func (c *common) attachOptions(surface string, bootCfg jsontext.Value, servers ...string) (shared.Endpoint, shared.AttachOptions, error) {
	e, err := c.endpoint(bootCfg)
	if err != nil {
		return e, shared.AttachOptions{}, err
	}
	exe, err := os.Executable()
	if err != nil {
		return e, shared.AttachOptions{}, fmt.Errorf("shared: this binary: %w", err)
	}
	args := []string{exe, "shared-daemon", "--root", c.root}
	if c.config != "" {
		args = append(args, "--config", c.config)
	}
	if c.logLevel != "" {
		args = append(args, "--log-level", c.logLevel)
	}
	return e, shared.AttachOptions{Surface: surface, Version: version(), Command: args, Dir: c.root, ClientEnv: shared.ServerVars(os.Environ()), Servers: servers, Root: c.root, Format: c.format}, nil
}

// attach connects this process to the shared daemon of c's root for the
// contract's JSON-RPC, starting the daemon if none runs: no relay process
// in between (the hooks, which must answer in milliseconds). Stop detaches.
func (c *common) attach(ctx context.Context, bootCfg jsontext.Value) (*lspdaemon.Daemon, error) {
	e, opts, err := c.attachOptions(shared.SurfaceRPC, bootCfg)
	if err != nil {
		return nil, err
	}
	conn, err := shared.Attach(ctx, e, opts)
	if err != nil {
		return nil, err
	}
	return lspdaemon.Connect(conn), nil
}

// relay attaches to the shared daemon of c's root, starting it if none
// runs, and relays in/out to it on surface until in ends or the daemon
// ends the session.
func (c *common) relay(ctx context.Context, surface string, bootCfg jsontext.Value, in io.Reader, out io.Writer, log *slog.Logger, servers ...string) error {
	e, opts, err := c.attachOptions(surface, bootCfg, servers...)
	if err != nil {
		return err
	}
	r := &shared.Relay{Surface: surface, Logger: log, Attach: func(ctx context.Context) (*shared.Conn, error) {
		conn, err := shared.Attach(ctx, e, opts)
		if err == nil {
			for _, note := range conn.Notes {
				log.Warn("shared daemon: " + note) // also in lsp/ready and on lsp/status, lsp_status
			}
		}
		return conn, err
	}}
	return r.Run(ctx, in, out)
}

// sharedDaemon is the shared daemon, started by the first client that
// finds none: it serves the attached clients of its root until none has
// been attached for idleExitMs. Of several started at once one serves and
// the others exit 0 at once.
func sharedDaemon(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c common
	fs := newFlags("shared-daemon", c.define)
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	log, err := logger(c.logLevel, slog.LevelInfo, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit shared-daemon: %v\n", err)
		return exitUsage
	}
	cfg, bootCfg, err := c.load()
	if err != nil {
		fmt.Fprintf(stderr, "lspkit shared-daemon: %v\n", err)
		return exitUsage
	}
	e, err := c.endpoint(bootCfg)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit shared-daemon: %v\n", err)
		return 1
	}
	l, err := shared.Listen(e, log)
	if errors.Is(err, shared.ErrRunning) {
		return 0 // its starter attaches to the one that serves
	}
	if err != nil {
		fmt.Fprintf(stderr, "lspkit shared-daemon: %v\n", err)
		return 1
	}
	if f, ok := stderr.(*os.File); ok {
		f.Truncate(0) // the log is this daemon's from here
	}
	env := shared.NewServerEnv(os.Environ())
	// One budget for every worktree the daemon serves, as its own
	// configuration sets it.
	b := &budget.Budget{MaxServers: cfg.MaxServers, MaxMemoryMB: cfg.MaxMemoryMB, Logger: log}
	// One process of a server that takes workspace folders for every
	// worktree, each a folder of it.
	pool := procshare.New(nil, log)
	o, err := c.orchestratorFor(cfg, log, env.Extra, b, pool.Launch)
	if err != nil {
		l.Close()
		fmt.Fprintf(stderr, "lspkit shared-daemon: %v\n", err)
		return exitUsage
	}
	log.Info("shared daemon: serving", "root", o.Root(), "socket", e.Socket(), "pid", os.Getpid(), "idleExit", cfg.IdleExit)
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go b.Run(ctx)
	// Another worktree of the repository: a root of its own, with its own
	// configuration, opened for its first client.
	repo := repositoryOf(o.Root())
	open := func(root string) (*features.Service, error) {
		if info, err := os.Stat(root); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("the root %s is not a directory on disk (a worktree removed?)", root)
		}
		if r := repositoryOf(root); r != repo || !strings.HasPrefix(repo, "git:") {
			return nil, fmt.Errorf("%s is not a worktree of the repository this daemon serves (%s)", root, strings.TrimPrefix(repo, "git:"))
		}
		other := c
		other.root = root
		cfg, _, err := other.load()
		if err != nil {
			return nil, err
		}
		o, err := other.orchestratorFor(cfg, log, env.Extra, b, pool.Launch)
		if err != nil {
			return nil, err
		}
		log.Info("shared daemon: serving another worktree", "root", o.Root())
		return features.NewService(o), nil
	}
	if err := shared.Serve(ctx, features.NewService(o), l, shared.ServeOptions{Version: version(), Logger: log, IdleExit: cfg.IdleExit, Env: env, Open: open}); err != nil {
		fmt.Fprintf(stderr, "lspkit shared-daemon: %v\n", err)
		return 1
	}
	log.Info("shared daemon: exited")
	return 0
}

// clientsLine says who is attached: "2 clients attached (mcp ×2)".
func clientsLine(clients []shared.ClientInfo) string {
	if len(clients) == 0 {
		return "no client attached"
	}
	count := map[string]int{}
	var order []string
	for _, c := range clients {
		if count[c.Surface] == 0 {
			order = append(order, c.Surface)
		}
		count[c.Surface]++
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%s ×%d", s, count[s]))
	}
	n := "clients"
	if len(clients) == 1 {
		n = "client"
	}
	return fmt.Sprintf("%d %s attached (%s)", len(clients), n, strings.Join(parts, ", "))
}
