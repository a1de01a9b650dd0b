package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/mcphttp"
	"github.com/lspkit/lspkit/service/mcpserver"
	"github.com/lspkit/lspkit/service/shared"
)

// mcpOptions are lspkit mcp's flags.
type mcpOptions struct {
	common
	shared, readOnly         bool
	http, connect            string
	allowOrigins, allowHosts stringsFlag
	pathMaps                 stringsFlag
	maxSessions              int
}

func (o *mcpOptions) define(fs *flag.FlagSet) {
	o.common.define(fs)
	fs.BoolVar(&o.shared, "shared", false, "attach to the workspace's shared daemon, starting it if none runs")
	fs.BoolVar(&o.readOnly, "read-only", false, "offer only the tools that write nothing: for a host that runs MCP tools without asking (opencode, by default)")
	fs.StringVar(&o.format, "format", "", "the tools' text: compact (places grouped by file, for the model) or long (a line per place with its source line, for programs that parse it); default: the configuration's mcpFormat, else compact")
	fs.StringVar(&o.http, "http", "", "serve MCP over streamable HTTP at ADDR (HOST:PORT, :PORT: loopback), path /mcp, instead of stdin/stdout; every request carries the bearer token: LSPKIT_TOKEN, or on loopback one generated into a 0600 file whose path is printed")
	fs.StringVar(&o.connect, "connect", "", "serve on stdin/stdout the tools of the lspkit at URL (its lspkit mcp --http endpoint, …/mcp), each call relayed, the bearer token from LSPKIT_TOKEN: for a host that speaks only stdio or cannot send headers")
	fs.Var(&o.pathMaps, "path-map", "with --http, CLIENT=DAEMON: the client's paths under CLIENT are the daemon's under DAEMON (a host's /Users/me/proj, a container's /workspaces/proj), rewritten in every tool call and answer (repeatable)")
	fs.Var(&o.allowOrigins, "allow-origin", "with --http, an Origin a browser's request may carry (repeatable; others get 403)")
	fs.Var(&o.allowHosts, "allow-host", "with --http, a Host name accepted besides localhost and IP addresses: a reverse proxy's (repeatable; others get 421)")
	fs.IntVar(&o.maxSessions, "max-sessions", mcphttp.DefaultMaxSessions, "with --http, the sessions open at once; past it, 503 with Retry-After")
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
	if opts.format != "" && opts.format != mcpserver.FormatCompact && opts.format != mcpserver.FormatLong {
		fmt.Fprintf(stderr, "lspkit mcp: --format: %q is neither compact nor long\n", opts.format)
		return exitUsage
	}
	surface := shared.SurfaceMCP
	if opts.readOnly {
		surface = shared.SurfaceMCPReadOnly
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lspkit mcp: unexpected argument %q (see lspkit --help)\n", fs.Arg(0))
		return exitUsage
	}
	log, cfg, bootCfg, ok := c.setUp("lspkit mcp", slog.LevelWarn, stderr)
	if !ok {
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer exiting(stop)
	if opts.connect != "" {
		return connectMCP(ctx, &opts, stderr)
	}
	if opts.http != "" {
		if opts.shared {
			fmt.Fprintln(stderr, "lspkit mcp: --http serves its own daemon for its clients; --shared is for a host's stdio")
			return exitUsage
		}
		o, err := c.orchestratorWith(cfg, log, nil, 0)
		if err != nil {
			fmt.Fprintf(stderr, "lspkit mcp: %v\n", err)
			return exitUsage
		}
		defer o.Shutdown(context.Background())
		return serveMCPHTTP(ctx, &opts, o, log, stderr)
	}
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
		done <- mcpserver.New(features.NewService(o), mcpserver.Options{Version: version(), ReadOnly: opts.readOnly, Format: opts.format}).Run(ctx, mcpserver.StdioTransport(os.Stdin, os.Stdout))
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
