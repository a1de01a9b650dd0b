package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lspkit/lspkit/internal/atomicfile"
	"github.com/lspkit/lspkit/service/features"
	"github.com/lspkit/lspkit/service/mcphttp"
	"github.com/lspkit/lspkit/service/mcpserver"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/service/shared"
)

// httpAddress is ADDR of --http with loopback filled in where it names no
// host (":8080", "8080"), and whether it is a loopback address.
func httpAddress(addr string) (string, bool, error) {
	if _, err := strconv.Atoi(addr); err == nil {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", false, fmt.Errorf("--http %q: want HOST:PORT, :PORT or PORT", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	loopback := strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback()
	return net.JoinHostPort(host, port), loopback, nil
}

// httpToken is the bearer token: LSPKIT_TOKEN, or (on loopback alone) one
// generated here, written to a 0600 file in the user's runtime directory
// whose path is returned; any other address needs LSPKIT_TOKEN.
func httpToken(loopback bool, port string) (token, file string, err error) {
	if t := strings.TrimSpace(os.Getenv("LSPKIT_TOKEN")); t != "" {
		if len(t) < 16 {
			return "", "", errors.New("LSPKIT_TOKEN is shorter than 16 characters: too easy to guess")
		}
		return t, "", nil
	}
	if !loopback {
		return "", "", errors.New("an address other than loopback needs a token: set LSPKIT_TOKEN (at least 16 characters)")
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	dir, err := shared.RuntimeDir()
	if err != nil {
		return "", "", err
	}
	token, file = hex.EncodeToString(b), filepath.Join(dir, "http-"+port+".token")
	if err := atomicfile.Write(file, []byte(token+"\n"), 0o600); err != nil {
		return "", "", err
	}
	return token, file, nil
}

// serveMCPHTTP is `lspkit mcp --http ADDR`: MCP over streamable HTTP at
// /mcp, for o's workspace, until ctx ends.
func serveMCPHTTP(ctx context.Context, opts *mcpOptions, o *orchestrator.Orchestrator, log *slog.Logger, stderr io.Writer) int {
	addr, loopback, err := httpAddress(opts.http)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit mcp: %v\n", err)
		return exitUsage
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit mcp: %v\n", err)
		return 1
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	token, tokenFile, err := httpToken(loopback, port)
	if err != nil {
		fmt.Fprintf(stderr, "lspkit mcp: refused to serve on %s: %v\n", addr, err)
		return exitUsage
	}
	if tokenFile != "" {
		defer os.Remove(tokenFile)
	}
	var maps []mcphttp.Mapping
	for _, m := range opts.pathMaps {
		mapping, err := mcphttp.ParseMapping(m)
		if err != nil {
			fmt.Fprintf(stderr, "lspkit mcp: %v\n", err)
			return exitUsage
		}
		maps = append(maps, mapping)
	}
	server := mcpserver.New(features.NewService(o), mcpserver.Options{Version: version(), ReadOnly: opts.readOnly, Format: opts.format})
	if len(maps) > 0 {
		server.AddReceivingMiddleware(mcphttp.PathMap(maps))
		server.AddSendingMiddleware(mcphttp.PathMapSent(maps))
	}
	h, err := mcphttp.Handler(server, mcphttp.Options{Token: token, AllowOrigins: opts.allowOrigins, AllowHosts: opts.allowHosts,
		MaxSessions: opts.maxSessions, Logger: log})
	if err != nil {
		fmt.Fprintf(stderr, "lspkit mcp: %v\n", err)
		return exitUsage
	}
	srv := mcphttp.NewServer(h, 0)
	where := "the bearer token is LSPKIT_TOKEN's"
	if tokenFile != "" {
		where = "the bearer token is in " + tokenFile
	}
	fmt.Fprintf(stderr, "lspkit mcp: MCP at http://%s%s for %s; %s\n", ln.Addr(), mcphttp.PathMCP, o.Root(), where)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "lspkit mcp: %v\n", err)
			return 1
		}
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), exitFlush*4)
		defer cancel()
		srv.Shutdown(shutdownCtx)
		srv.Close() // streams still open (SSE) end here
	}
	return 0
}

// connectMCP is `lspkit mcp --connect URL`: the remote lspkit's tools on
// stdin/stdout, until the host hangs up or ctx ends.
func connectMCP(ctx context.Context, opts *mcpOptions, stderr io.Writer) int {
	if opts.http != "" || opts.shared {
		fmt.Fprintln(stderr, "lspkit mcp: --connect relays to a daemon elsewhere; --http and --shared serve one here")
		return exitUsage
	}
	token := strings.TrimSpace(os.Getenv("LSPKIT_TOKEN"))
	if token == "" {
		fmt.Fprintln(stderr, "lspkit mcp: --connect needs the remote's token in LSPKIT_TOKEN")
		return exitUsage
	}
	r, err := mcphttp.Connect(ctx, opts.connect, token, version())
	if err != nil {
		fmt.Fprintf(stderr, "lspkit mcp: --connect: %v\n", err)
		return 1
	}
	defer r.Close()
	done := make(chan error, 1)
	go func() { done <- r.Server().Run(ctx, mcpserver.StdioTransport(os.Stdin, os.Stdout)) }()
	select {
	case <-done: // the host hung up
	case <-ctx.Done():
	}
	return 0
}
