// Package hostconfig writes lspkit into an agent host's own configuration
// (`lspkit init`): the host's MCP server entry where that host reads it —
// the project's file where it has one — merged into what is there without
// losing a byte of the rest (comments, order, formatting), and the one
// step the host leaves to its user (approving the server, trusting the
// folder).
//
// It never replaces an lspkit entry that differs from the one it would
// write unless told to (Force), leaves a file that does not parse as it is
// (the error names the file and the line), and writes atomically: a crash
// mid-write leaves the old file.
package hostconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/internal/atomicfile"
)

// EntryName is the name of lspkit's entry in every host's server list.
const EntryName = "lspkit"

// Options says what to write for which host.
type Options struct {
	// Host is one of Hosts' names.
	Host string
	// Root is the project's root (absolute): where project files go, and
	// the --root of hosts that start servers elsewhere.
	Root string
	// Home is the user's home directory, for user-level files.
	Home string
	// ConfigDir is the user's configuration directory (os.UserConfigDir),
	// for Claude Desktop.
	ConfigDir string
	// Command is how the host starts lspkit: "lspkit" when it is on PATH,
	// else the executable's absolute path.
	Command string
	// Shared attaches every session to the root's shared daemon.
	Shared bool
	// Force replaces an lspkit entry that differs from the one written.
	Force bool
	// DryRun computes the changes and writes nothing.
	DryRun bool
	// readOnly offers only the tools that write nothing: set for a host
	// that runs MCP tools without asking.
	readOnly bool
}

// A Change is what Init did, or would do, to one file.
type Change struct {
	// File is the file's path.
	File string
	// Action is "created", "added", "replaced" or "unchanged" ("would …"
	// in a dry run).
	Action string
	// Content is the whole file as written (or as it would be).
	Content []byte
}

// A Result is Init's answer: the files it touched and the step the host
// leaves to the user ("" when there is none).
type Result struct {
	Changes []Change
	Step    string
}

// host is one agent host: where it reads its servers and what it needs.
type host struct {
	name    string
	display string
	// edits are the files to write, each with the entry to merge in.
	edits func(o Options) []edit
	// step is what the user still has to do, or "".
	step func(o Options) string
}

// An edit puts value at path (a list of object keys) in a JSON or TOML
// file, creating the file (with initial's content) when it does not exist.
type edit struct {
	file    string
	toml    bool
	path    []string
	value   any
	initial string // a new file's content before the entry (JSON)
	// appendTo, when set, adds value to the array at path rather than
	// setting it (a hook list), unless an equal element is there.
	appendTo bool
	// ours, with appendTo, is text that marks an element of the array as
	// lspkit's own (its command line): one that differs from value is
	// lspkit's entry of another shape, refused without Force.
	ours string
}

// Hosts is the names Init knows, in the order help lists them.
func Hosts() []string {
	var names []string
	for _, h := range hosts {
		names = append(names, h.name)
	}
	return names
}

// mcpArgs is the arguments of `lspkit mcp` for o; withRoot adds --root
// for hosts that start servers outside the project.
func mcpArgs(o Options, withRoot bool) []string {
	args := []string{"mcp"}
	if o.Shared {
		args = append(args, "--shared")
	}
	if o.readOnly {
		args = append(args, "--read-only")
	}
	if withRoot {
		args = append(args, "--root", o.Root)
	}
	return args
}

// codexEnvVars are the variables Codex is asked to pass on (it passes MCP
// servers only HOME, PATH, TMPDIR, LANG, SHELL, TERM and certificate
// variables otherwise): those that change what a language server does or
// where lspkit finds it.
var codexEnvVars = []string{
	"GOPATH", "GOROOT", "GOBIN", "GOFLAGS", "GOPROXY", "GOPRIVATE", "GONOSUMDB", "GOMODCACHE", "GOCACHE", "GOWORK", "GOTOOLCHAIN", "GOENV",
	"CGO_ENABLED", "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH", "NODE_OPTIONS", "NODE_PATH", "JAVA_HOME", "CARGO_HOME", "RUSTUP_HOME",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "LSPKIT_SERVERS", "LSPKIT_RUNTIME_DIR", "LSPKIT_LOG", "LSPKIT_SHARED", "LSPKIT_ORPHAN_GUARD",
}

// mcpServers is the common {"command", "args"} entry.
func mcpServers(o Options, withRoot bool) map[string]any {
	return map[string]any{"command": o.Command, "args": mcpArgs(o, withRoot)}
}

var hosts = []host{
	{
		name: "claude-code", display: "Claude Code",
		edits: func(o Options) []edit {
			entry := mcpServers(o, false)
			entry["type"] = "stdio"
			hook := []string{o.Command, "hook", "claude-code"}
			if o.Shared {
				hook = append(hook, "--shared")
			}
			return []edit{
				{file: filepath.Join(o.Root, ".mcp.json"), path: []string{"mcpServers", EntryName}, value: entry},
				{file: filepath.Join(o.Root, ".claude", "settings.json"), path: []string{"hooks", "PostToolUse"}, appendTo: true, ours: " hook claude-code", value: map[string]any{
					"matcher": "Edit|MultiEdit|Write|NotebookEdit",
					"hooks":   []any{map[string]any{"type": "command", "command": shellJoin(hook)}},
				}},
			}
		},
		step: func(o Options) string {
			return "Claude Code lists a project's server as pending until you approve it: start `claude` in " + o.Root +
				", trust the folder and approve \"lspkit\" when asked (or add \"lspkit\" to \"enabledMcpjsonServers\" in .claude/settings.local.json); then `claude mcp list` shows it connected."
		},
	},
	{
		name: "codex", display: "Codex CLI",
		edits: func(o Options) []edit {
			entry := mcpServers(o, false)
			entry["env_vars"] = codexEnvVars
			return []edit{{file: filepath.Join(o.Root, ".codex", "config.toml"), toml: true, path: []string{"mcp_servers", EntryName}, value: entry}}
		},
		step: func(o Options) string {
			return "Codex reads a project's .codex/config.toml only once the project is trusted: answer its trust prompt in " + o.Root +
				", or add to " + filepath.Join(o.Home, ".codex", "config.toml") + ":\n\n[projects." + tomlQuote(o.Root) + "]\ntrust_level = \"trusted\""
		},
	},
	{
		name: "gemini", display: "Gemini CLI",
		edits: func(o Options) []edit {
			return []edit{{file: filepath.Join(o.Root, ".gemini", "settings.json"), path: []string{"mcpServers", EntryName}, value: mcpServers(o, false)}}
		},
		step: func(o Options) string {
			return "Gemini CLI turns a project's servers off until the folder is trusted: answer its trust prompt in " + o.Root +
				" (or /permissions), after which `gemini mcp list` shows lspkit connected."
		},
	},
	{
		name: "opencode", display: "opencode",
		edits: func(o Options) []edit {
			o.readOnly = true // opencode runs MCP tools without asking unless its permission config says otherwise
			return []edit{{file: filepath.Join(o.Root, "opencode.json"), path: []string{"mcp", EntryName},
				initial: `{"$schema": "https://opencode.ai/config.json"}`,
				value:   map[string]any{"type": "local", "command": append([]string{o.Command}, mcpArgs(o, false)...), "enabled": true}}}
		},
		step: func(Options) string {
			return "Nothing to do. opencode runs MCP tools without asking by default, so lspkit offers it only the tools that write nothing (--read-only); " +
				"drop --read-only for rename, code actions, fix-all and formatting only where opencode's permission configuration asks before lspkit's tools run."
		},
	},
	{
		name: "cursor", display: "Cursor",
		edits: func(o Options) []edit {
			return []edit{{file: filepath.Join(o.Root, ".cursor", "mcp.json"), path: []string{"mcpServers", EntryName}, value: mcpServers(o, false)}}
		},
		step: func(Options) string {
			return "Cursor asks before it starts a project's new MCP server: enable lspkit when it offers to (Cursor Settings → MCP)."
		},
	},
	{
		name: "claude-desktop", display: "Claude Desktop",
		edits: func(o Options) []edit {
			return []edit{{file: claudeDesktopFile(o), path: []string{"mcpServers", EntryName}, value: mcpServers(o, true)}}
		},
		step: func(Options) string {
			return "Claude Desktop reads its configuration at start: quit it and start it again. It starts servers outside your project, so the entry names --root."
		},
	},
}

// claudeDesktopFile is Claude Desktop's configuration file.
func claudeDesktopFile(o Options) string {
	if runtime.GOOS == "darwin" {
		return filepath.Join(o.Home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
	}
	return filepath.Join(o.ConfigDir, "Claude", "claude_desktop_config.json")
}

// ErrUnknownHost is wrapped by Init's error for a host it does not know.
var ErrUnknownHost = errors.New("unknown host")

// ErrDifferentEntry is wrapped by Init's error when a file holds another
// lspkit entry and Force is not set.
var ErrDifferentEntry = errors.New("a different lspkit entry is there")

// Init writes lspkit into o.Host's configuration and says what it changed
// and the step left to the user. Nothing is written unless every file
// parses and no different entry stands in the way (without Force).
func Init(o Options) (Result, error) {
	i := slices.IndexFunc(hosts, func(h host) bool { return h.name == o.Host })
	if i < 0 {
		return Result{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownHost, o.Host, strings.Join(Hosts(), ", "))
	}
	if !filepath.IsAbs(o.Root) {
		return Result{}, fmt.Errorf("root %q: not an absolute path", o.Root)
	}
	if o.Command == "" {
		o.Command = "lspkit"
	}
	h := hosts[i]
	var res Result
	for _, e := range h.edits(o) {
		old, err := os.ReadFile(e.file)
		exists := err == nil
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return Result{}, fmt.Errorf("%s: %w", e.file, err)
		}
		var content []byte
		var action string
		if e.toml {
			content, action, err = mergeTOML(old, e, o.Force)
		} else {
			content, action, err = mergeJSON(old, e, o.Force)
		}
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", e.file, err)
		}
		if !exists {
			action = "created"
		}
		res.Changes = append(res.Changes, Change{File: e.file, Action: action, Content: content})
	}
	res.Step = h.step(o)
	for i, c := range res.Changes {
		if o.DryRun {
			res.Changes[i].Action = "would be " + c.Action
			continue
		}
		if c.Action == "unchanged" {
			continue
		}
		if err := atomicfile.Write(c.File, c.Content, 0o644); err != nil {
			return res, err
		}
	}
	return res, nil
}

// shellJoin quotes args for a POSIX shell (a hook's command line).
func shellJoin(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}
