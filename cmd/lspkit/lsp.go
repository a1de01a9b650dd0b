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
	"strconv"
	"strings"
	"syscall"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/lspserver"
	"github.com/lspkit/lspkit/service/mcpserver/fdpair"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/service/shared"
)

// lspOptions are lspkit lsp's flags.
type lspOptions struct {
	common
	servers stringsFlag
	shared  bool
}

func (o *lspOptions) define(fs *flag.FlagSet) {
	o.common.define(fs)
	fs.BoolVar(&o.shared, "shared", false, "attach to the workspace's shared daemon (starting it if none runs): one set of servers for every session; each client's open documents its own")
	fs.Var(&o.servers, "server", "front the server `ID` (repeatable; default: every enabled server with a root marker at the root)")
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
	log, cfg, bootCfg, ok := c.setUp("lspkit lsp", slog.LevelWarn, stderr)
	if !ok {
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
