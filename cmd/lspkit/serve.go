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
	"github.com/lspkit/lspkit/service/mcpserver"
	"github.com/lspkit/lspkit/service/mcpserver/fdpair"
	"github.com/lspkit/lspkit/service/rpc"
	"github.com/lspkit/lspkit/service/shared"
)

// serveOptions are lspkit serve's flags.
type serveOptions struct {
	common
	mcpFDs string
	shared bool
}

func (o *serveOptions) define(fs *flag.FlagSet) {
	o.common.define(fs)
	fs.StringVar(&o.mcpFDs, "mcp-fds", "", "serve MCP too on these two file descriptors `R,W` (e.g. 3,4), answering on the one the host does not write to")
	fs.BoolVar(&o.shared, "shared", false, "attach to the workspace's shared daemon, starting it if none runs")
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
	log, cfg, bootCfg, ok := c.setUp("lspkit serve", slog.LevelInfo, stderr)
	if !ok {
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
	svc := features.NewService(o)
	if mcp != nil {
		server := mcpserver.New(svc, mcpserver.Options{Version: version(), ReadOnly: !cfg.FDWriteTools})
		go func() {
			if err := server.Run(ctx, mcpserver.StdioTransport(mcp, mcp)); err != nil && ctx.Err() == nil {
				log.Debug("mcp session ended", "err", err) // the host closed its side
			}
		}()
	}
	if err := rpc.Serve(ctx, svc, stdio{stdin, stdout}, rpc.Options{Version: version(), Logger: log}); err != nil {
		fmt.Fprintf(stderr, "lspkit serve: %v\n", err)
		return 1
	}
	return 0
}
