// Package shared is lspkit's shared workspace daemon: one orchestrator, and
// so one set of language servers, for all of a user's agents that work in
// the same workspace. `lspkit serve --shared` and `lspkit mcp --shared`
// attach to it over a local socket, starting it when none runs, and relay
// their stdio to it (Relay); the daemon (Serve) answers each attached
// client on the surface it asked for, as its own caller of the
// orchestrator, and exits a while after the last one left.
//
// Rendezvous. A per-user directory that no variable a host may drop or
// change decides — /tmp/lspkit-UID (not $TMPDIR, not $XDG_RUNTIME_DIR),
// unless LSPKIT_RUNTIME_DIR names another; mode 0700 and owned by the
// user, refused otherwise; on Windows lspkit\run in the user's local
// application data (the known folder, not %LOCALAPPDATA%) —
// holds, for each (lspkit version, workspace root,
// configuration), a lock the daemon holds for its whole life, its socket
// (mode 0600) and its log. Whoever takes the lock serves: of many daemons
// started at once exactly one does, and the others exit while their
// starters attach to it; a socket left by a daemon that died is replaced
// by the next one to take the lock. The daemon checks each peer's user
// (SO_PEERCRED, getpeereid) and refuses, and logs, any other. On Windows
// the socket is a named pipe whose ACL admits the user alone, created as
// its name's first instance (a pipe another process made first is
// refused), and each client's process token is checked too. Nothing a
// client sends chooses a command: the daemon runs the servers its own
// configuration names.
//
// Attaching. The client writes one line,
// {"lspkit": "attach", "surface": "rpc"|"mcp", "version": "…"}, and reads
// one line, {"pid": N} or {"error": "…"}; the surface's own wire follows
// (LSP framing for rpc, JSON lines for MCP).
package shared

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
)

// An Endpoint is where one shared daemon is found: its socket, lock and
// log in the user's runtime directory.
type Endpoint struct {
	// Dir is the user's runtime directory for lspkit (0700).
	Dir string
	// Name is the daemon's name in it, from the hash of its key.
	Name string
}

// For returns the endpoint of the shared daemon for key — lspkit's
// version, the workspace root and what chose its configuration — creating
// the user's runtime directory (0700) if needed. It refuses a directory
// that is not the user's own or that others can enter.
func For(key ...string) (Endpoint, error) {
	dir, err := runtimeDir()
	if err != nil {
		return Endpoint{}, fmt.Errorf("shared: %w", err)
	}
	h := sha256.New()
	for _, k := range key {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return Endpoint{Dir: dir, Name: "lspkit-" + hex.EncodeToString(h.Sum(nil))[:16]}, nil
}

// Socket is the address of the daemon's socket: a path in Dir, or on
// Windows a named pipe's name.
func (e Endpoint) Socket() string { return socketPath(e) }

// Log is the path of the daemon's log (its stderr).
func (e Endpoint) Log() string { return filepath.Join(e.Dir, e.Name+".log") }

// lockPath is the path of the file the serving daemon holds locked.
func (e Endpoint) lockPath() string { return filepath.Join(e.Dir, e.Name+".lock") }

// RuntimeDir is this user's runtime directory (created 0700, refused if
// another user's or open to others): where the shared daemons' endpoints
// are, and where lspkit mcp --http writes a token it generated.
func RuntimeDir() (string, error) { return runtimeDir() }
