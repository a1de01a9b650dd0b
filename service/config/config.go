// Package config reads lspkit's configuration: lspkit.json (or a file
// given with --config), else the lsp key of opencode.json, else the
// defaults; and over it, the configuration a host that spawns the daemon
// gives in LSPKIT_BOOTSTRAP or LSP_BOOTSTRAP. Problems in a file are
// one-line *Error values naming the file, the key and what was expected;
// what a host's bootstrap sets that lspkit cannot take is noted
// (Config.Ignored) and the daemon starts with the rest.
package config

import (
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Config is the daemon's configuration: the `lsp` object of lspkit.json
// (or of LSPKIT_BOOTSTRAP's config, or of opencode.json), with defaults.
type Config struct {
	// Disabled is set by "lsp": false: no server runs.
	Disabled bool
	// Servers adds servers or overrides built-ins, by id.
	Servers map[string]ServerConfig
	// DiagnosticTimeout bounds a check's wait on a server that has seen a
	// file before; FirstTouchTimeout on a server's first file (it may still
	// be starting and indexing).
	DiagnosticTimeout time.Duration
	FirstTouchTimeout time.Duration
	// IncludeSeverities are the severities checks and reports keep.
	IncludeSeverities []string
	// MaxDiagnosticsPerFile and MaxProjectDiagnosticsFiles bound lsp/report.
	MaxDiagnosticsPerFile      int
	MaxProjectDiagnosticsFiles int
	// NavigationTools shows the MCP navigation tools.
	NavigationTools bool
	// AutoInstall installs missing built-in servers into the user cache.
	AutoInstall bool
	// Restart is the crash policy.
	Restart RestartPolicy
	// Exclude are globs (doublestar syntax, against '/'-separated paths
	// relative to the root) of files that are never checked, start no
	// server and are left out of reports.
	Exclude []string
	// MaxFileBytes is the largest file a server is sent; bigger ones are
	// refused with a reason.
	MaxFileBytes int
	// MaxOpenDocuments is how many documents each server keeps open; the
	// least recently checked is closed beyond it.
	MaxOpenDocuments int
	// BurstTimeout bounds the check that ends a burst of edits (a host's
	// hooks, lsp/burst): the edited files and every file that depends on
	// them, before and after the edits, not cut at the interactive
	// bounds (ImpactMaxFiles, DiagnosticTimeout).
	BurstTimeout time.Duration
	// ImpactMaxFiles bounds the other files a check with impact brings to
	// the servers; past it the impact says it is incomplete.
	ImpactMaxFiles int
	// WatchBudget is how many directories each server's file watcher
	// watches at most; the rest is polled.
	WatchBudget int
	// ServerIdleStop is how long a server may go unused before it is
	// stopped (it starts again on the next need); 0 keeps servers running.
	ServerIdleStop time.Duration
	// Prewarm has the daemon start, in the background as it starts, the
	// servers whose root markers are at the workspace root, each with one
	// of its files open, so that the first question finds them warm.
	Prewarm bool
	// MaxServerMemoryMB restarts a server whose resident memory (with its
	// helpers) exceeds it, at a moment it has no request in flight; 0 is
	// no limit.
	MaxServerMemoryMB int
	// MaxServers bounds the servers one daemon runs at once, across every
	// root it serves (a shared daemon serves a repository's worktrees):
	// past it the least recently used idle server is stopped; 0 is no
	// bound.
	MaxServers int
	// MaxMemoryMB bounds the total resident memory of the servers one
	// daemon runs: over it the least recently used idle servers are
	// stopped; 0 is no bound.
	MaxMemoryMB int
	// ShareServers has a shared daemon run one process of a server that
	// takes workspace folders (gopls, pyright) for every worktree it
	// serves, each worktree a folder of it; false runs one per worktree.
	ShareServers bool
	// Shared has `lspkit serve` and `lspkit mcp` attach to the workspace's
	// shared daemon (as --shared does) instead of running their own.
	Shared bool
	// IdleExit is how long a shared daemon lives after its last client
	// left; it then stops its servers and exits.
	IdleExit time.Duration
	// FDWriteTools lists the tools that write files (rename, apply a code
	// action, fix all, format) on the MCP channel of `lspkit serve
	// --mcp-fds` too. Off, that channel offers only tools that write
	// nothing: hosts register its tools as trusted, called without asking.
	FDWriteTools bool
	// MCPStructuredContent gives each MCP tool an output schema and its
	// results structured content beside the text. Off by default: hosts
	// that forward structuredContent (Claude Code) then show the model
	// the JSON, two to four times the text.
	MCPStructuredContent bool
	// MCPFormat is the MCP tools' text: "compact" (places grouped by
	// file, for the model) or "long" (a line per place with its source
	// line, for programs that parse it); empty is compact.
	MCPFormat string
	// NavigationTimeout bounds one navigation question (definition,
	// references, hover, symbols, call hierarchy, code actions) as a
	// whole, a project load it waits for included; 0: no bound.
	NavigationTimeout time.Duration
	// RequestTimeout bounds each request lspkit sends a language server:
	// past it the request is cancelled ($/cancelRequest) and what needed
	// it says so; 0: no bound.
	RequestTimeout time.Duration
	// Source names where the configuration came from, for status and errors.
	Source string
	// Ignored says what a host's bootstrap configuration set that lspkit
	// did not take, each as "KEY: why" (an unknown key, a value of the
	// wrong type): a host's configuration never stops the daemon.
	Ignored []string
}

// RestartPolicy says how often a crashed server is restarted: at most
// MaxRestarts times within Window, then it is broken for the session.
type RestartPolicy struct {
	MaxRestarts int
	Window      time.Duration
}

// ServerConfig is one server's entry in the configuration. Unset fields
// keep the built-in's values.
type ServerConfig struct {
	Enabled     *bool
	Command     string
	Args        []string
	Extensions  []string
	RootMarkers []string
	// Roots is how many processes serve the roots the markers make:
	// "each" (one per root), "folders" (one, each root a workspace folder)
	// or "outermost" (one per outermost root); nil keeps the built-in's.
	Roots                 *string
	Env                   map[string]string
	InitializationOptions jsontext.Value
	Settings              jsontext.Value
	Language              string
	// Impact says how the files that depend on a changed file are found
	// (registry.Spec.Impact's values); empty keeps the built-in's.
	Impact string
	// Sidecar is a long-running helper started with the server for the
	// same root, or nil.
	Sidecar *Sidecar
}

// Sidecar is a helper command that runs beside a server (rojo sourcemap
// --watch beside luau-lsp): started with it, in its root, restarted and
// stopped with it.
type Sidecar struct {
	Command []string          // the executable and its arguments
	Env     map[string]string // extra environment
}

// Default is the configuration when none is given.
func Default() Config {
	return Config{
		Servers:                    map[string]ServerConfig{},
		DiagnosticTimeout:          3 * time.Second,
		FirstTouchTimeout:          10 * time.Second,
		IncludeSeverities:          []string{"error"},
		MaxDiagnosticsPerFile:      20,
		MaxProjectDiagnosticsFiles: 5,
		NavigationTools:            true,
		AutoInstall:                true,
		Restart:                    RestartPolicy{MaxRestarts: 3, Window: 5 * time.Minute},
		Exclude:                    []string{"**/node_modules/**", "**/.git/**"},
		MaxFileBytes:               2 << 20,
		MaxOpenDocuments:           200,
		ImpactMaxFiles:             200,
		BurstTimeout:               60 * time.Second,
		WatchBudget:                10000,
		ServerIdleStop:             15 * time.Minute,
		IdleExit:                   5 * time.Minute,
		ShareServers:               true,
		MCPFormat:                  "compact",
		Source:                     "defaults",
	}
}

// Error is a problem in a configuration file: where, which key, and
// what was expected.
type Error struct {
	Source string // the file, or LSPKIT_BOOTSTRAP
	Key    string // dotted path, e.g. lsp.servers.gopls.args
	Msg    string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.Source, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Source, e.Key, e.Msg)
}

// ImpactKinds are the values of a server's impact key: how the files that
// depend on a changed file are found (see registry.Spec.Impact).
var ImpactKinds = []string{"packageReferences", "fileReferences", "pythonImports", "includes", "self"}
