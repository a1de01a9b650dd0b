package shared

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
)

// The surfaces a client attaches for.
const (
	SurfaceRPC = "rpc" // the service contract's JSON-RPC, LSP framing
	SurfaceMCP = "mcp" // MCP, JSON lines
	// SurfaceMCPReadOnly is MCP with only the tools that write nothing
	// (mcpserver.Options.ReadOnly): a host's trusted channel.
	SurfaceMCPReadOnly = "mcp-read"
	// SurfaceLSP is lspkit lsp: the Language Server Protocol, the client
	// an editor or host with an LSP client of its own.
	SurfaceLSP = "lsp"
	// SurfaceStatus asks for the daemon's Info, one line, and ends.
	SurfaceStatus = "status"
)

// isMCP reports whether surface speaks MCP.
func isMCP(surface string) bool { return surface == SurfaceMCP || surface == SurfaceMCPReadOnly }

// hello is a client's first line.
type hello struct {
	LSPKit  string `json:"lspkit"` // "attach"
	Surface string `json:"surface"`
	Version string `json:"version"`
	// Env is the client's variables that matter to servers (ServerVars).
	Env map[string]string `json:"env,omitempty"`
	// Servers are the servers an lsp client fronts (lspkit lsp --server).
	Servers []string `json:"servers,omitempty"`
	// Root is the client's workspace root, when it is not the daemon's
	// own: another worktree of the daemon's repository.
	Root string `json:"root,omitempty"`
	// Format is an MCP client's text form (mcpserver.Options.Format).
	Format string `json:"format,omitempty"`
}

// welcome is the daemon's answer to hello.
type welcome struct {
	PID   int    `json:"pid,omitempty"`
	Error string `json:"error,omitempty"`
	// Notes say how the daemon's servers' environment differs from the
	// client's.
	Notes []string `json:"notes,omitempty"`
}

// maxHelloBytes bounds the hello and welcome lines.
const maxHelloBytes = 64 << 10

// helloTimeout bounds the exchange of hello and welcome.
const helloTimeout = 5 * time.Second

// AttachOptions says how to attach to a shared daemon and how to start
// one.
type AttachOptions struct {
	// Surface is SurfaceRPC, SurfaceMCP, SurfaceMCPReadOnly or SurfaceLSP.
	Surface string
	// Version is lspkit's version: a daemon of another version is refused.
	Version string
	// Command starts the daemon when none runs: the lspkit executable and
	// its arguments. It runs detached (its own session), its stderr
	// appended to the endpoint's log.
	Command []string
	// Dir is the daemon's working directory.
	Dir string
	// Env is the daemon's environment (nil: this process's).
	Env []string
	// Timeout bounds the wait for a started daemon to listen (10 s when
	// zero).
	Timeout time.Duration
	// ClientEnv is the client's variables that matter to servers
	// (ServerVars), said in the hello: the daemon completes its servers'
	// environment with them and says how it differs.
	ClientEnv map[string]string
	// Servers are the servers an lsp surface fronts (lspkit lsp
	// --server); none: the daemon's choice (lspserver.Options).
	Servers []string
	// Root is the client's workspace root (absolute, symlinks resolved);
	// empty: the daemon's own. A daemon serves the worktrees of one
	// repository, each its own root.
	Root string
	// Format is an MCP surface's text form (mcpserver.Options.Format);
	// empty: the root's configuration's.
	Format string
}

// A Conn is a connection to a shared daemon, past the hello: the surface's
// wire.
type Conn struct {
	net.Conn
	r *bufio.Reader
	// PID is the daemon's process id.
	PID int
	// Notes say how the daemon's servers' environment differs from this
	// client's.
	Notes []string
}

// Read reads the daemon's stream.
func (c *Conn) Read(p []byte) (int, error) { return c.r.Read(p) }

// errNotServing says no daemon answered at the endpoint (no socket, a
// stale one, or one that closed before its welcome).
var errNotServing = errors.New("no daemon is serving")

// Attach connects to e's daemon for opts.Surface, starting it with
// opts.Command if none serves; of several clients that start one at once,
// one daemon serves them all. The error says why not: the daemon refused
// (another version, another user), it could not start (with its log's
// last lines), or it did not listen within the timeout.
func Attach(ctx context.Context, e Endpoint, opts AttachOptions) (*Conn, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	c, err := Dial(ctx, e, opts)
	if !errors.Is(err, errNotServing) {
		return c, err
	}
	exited, err := start(e, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		c, err := Dial(ctx, e, opts)
		if !errors.Is(err, errNotServing) {
			return c, err
		}
		timer := time.NewTimer(wait)
		select {
		case err := <-exited:
			timer.Stop()
			exited = nil
			if err != nil {
				return nil, fmt.Errorf("shared: the daemon did not start: %v%s", err, logTail(e))
			}
			// It exited at once, found another serving: attach to that.
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("shared: no daemon listening at %s within %s%s", e.Socket(), opts.Timeout, logTail(e))
		}
	}
}

// Dial connects to the daemon serving e and says hello (opts' Surface,
// Version and ClientEnv); the error wraps errNotServing when none
// answered.
func Dial(ctx context.Context, e Endpoint, opts AttachOptions) (*Conn, error) {
	nc, err := dial(ctx, e.Socket())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotServing, err)
	}
	deadline := time.Now().Add(helloTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	nc.SetDeadline(deadline)
	line, _ := json.Marshal(hello{LSPKit: "attach", Surface: opts.Surface, Version: opts.Version, Env: opts.ClientEnv, Servers: opts.Servers, Root: opts.Root, Format: opts.Format})
	if _, err := nc.Write(append(line, '\n')); err != nil {
		nc.Close()
		return nil, fmt.Errorf("%w: %v", errNotServing, err)
	}
	r := bufio.NewReader(nc)
	reply, err := readLine(r)
	if err != nil {
		nc.Close()
		// Closed before its welcome: a daemon on its way out.
		return nil, fmt.Errorf("%w: %v", errNotServing, err)
	}
	var w welcome
	if err := json.Unmarshal(reply, &w); err != nil {
		nc.Close()
		return nil, fmt.Errorf("shared: the daemon at %s answered %q: %v", e.Socket(), bounded(reply), err)
	}
	if w.Error != "" {
		nc.Close()
		return nil, fmt.Errorf("shared: the daemon at %s refused: %s", e.Socket(), w.Error)
	}
	nc.SetDeadline(time.Time{})
	return &Conn{Conn: nc, r: r, PID: w.PID, Notes: w.Notes}, nil
}

// readLine reads one line of at most maxHelloBytes, without its newline.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxHelloBytes {
			return nil, fmt.Errorf("line longer than %d bytes", maxHelloBytes)
		}
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// start starts the daemon detached, its stderr appended to e's log; the
// channel gets how it exited.
func start(e Endpoint, opts AttachOptions) (<-chan error, error) {
	if len(opts.Command) == 0 {
		return nil, fmt.Errorf("shared: no daemon serves %s and no command to start one", e.Socket())
	}
	log, err := os.OpenFile(e.Log(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("shared: daemon log: %w", err)
	}
	defer log.Close()
	cmd, err := startDetached(func() *exec.Cmd {
		cmd := exec.Command(opts.Command[0], opts.Command[1:]...)
		cmd.Dir, cmd.Env, cmd.Stderr = opts.Dir, opts.Env, log
		return cmd
	})
	if err != nil {
		return nil, fmt.Errorf("shared: start the daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return exited, nil
}

// logTail is "; log: …" with the last lines of e's log, or "".
func logTail(e Endpoint) string {
	data, err := os.ReadFile(e.Log())
	if err != nil || len(data) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return fmt.Sprintf(" (log %s: %s)", e.Log(), strings.Join(lines, " | "))
}

// bounded cuts text that came from a peer for an error message.
func bounded(b []byte) string {
	const max = 200
	if len(b) > max {
		b = b[:max]
	}
	return strings.ToValidUTF8(string(b), "?")
}
