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
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

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
	// URL, when set, is a remote lspkit's MCP endpoint (`lspkit mcp
	// --http`, …/mcp): the host's HTTP entry is written instead of a
	// command, the token by TokenVariable.
	URL string
	// NoGrepHint has Claude Code's hook add nothing before a Grep for a
	// symbol's name (by default it adds the lspkit calls that answer it).
	NoGrepHint bool
	// NoHooks leaves out the host's hooks (after each edit, before each
	// other tool, at the end of the turn): the MCP entry alone.
	NoHooks bool
	// Each has the hooks say after each edit what is new since the burst
	// of edits began, rather than once when it ends.
	Each bool
	// NoSkills leaves out lspkit's Agent Skills (service/skills), which
	// are otherwise written where the host reads skills.
	NoSkills bool
	// Languages maps each file extension lspkit's servers serve (with its
	// dot) to its LSP language id, for the hosts whose own LSP client
	// starts `lspkit lsp` by extension.
	Languages map[string]string
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
	// remote is the host's entry for lspkit over HTTP (Options.URL), the
	// token from TokenVariable in the host's own way; nil where lspkit
	// writes none.
	remote func(o Options) edit
}

// TokenVariable is the environment variable the hosts' HTTP entries take
// the bearer token from (`lspkit mcp --http` reads the same).
const TokenVariable = "LSPKIT_TOKEN"

// An edit puts value at path (a list of object keys) in a JSON or TOML
// file, creating the file (with initial's content) when it does not exist.
type edit struct {
	file string
	toml bool
	// yamlList adds value (a yaml.MapSlice named EntryName) to the
	// top-level YAML list path[0] (Continue's mcpServers).
	yamlList bool
	path     []string
	value    any
	initial  string // a new file's content before the entry (JSON)
	// appendTo, when set, adds value to the array at path rather than
	// setting it (a hook list), unless an equal element is there.
	appendTo bool
	// ours, with appendTo, is text that marks an element of the array as
	// lspkit's own (its command line): one that differs from value is
	// lspkit's entry of another shape, refused without Force.
	ours string
	// remove, with appendTo and ours, takes lspkit's element out of the
	// array instead (one Init no longer writes), refused without Force.
	remove bool
	// whole is the file's whole content (a plugin of lspkit's own): a
	// file there already that is not lspkit's, or is another version of
	// it, is refused without Force.
	whole string
	// skill, with whole, is the name of the lspkit skill the file is
	// (its SKILL.md): another version of it is replaced.
	skill string
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

// lspArgs is the arguments of `lspkit lsp` for o.
func lspArgs(o Options) []string {
	args := []string{"lsp"}
	if o.Shared {
		args = append(args, "--shared")
	}
	return args
}

// extensions is o.Languages' extensions, sorted, with their dots or
// without.
func extensions(o Options, dot bool) []string {
	var out []string
	for _, ext := range slices.Sorted(maps.Keys(o.Languages)) {
		if !dot {
			ext = strings.TrimPrefix(ext, ".")
		}
		out = append(out, ext)
	}
	return out
}

var hosts = []host{
	{
		name: "claude-code", display: "Claude Code",
		edits: func(o Options) []edit {
			entry := mcpServers(o, false)
			entry["type"] = "stdio"
			return []edit{{file: filepath.Join(o.Root, ".mcp.json"), path: []string{"mcpServers", EntryName}, value: entry}}
		},
		remote: func(o Options) edit {
			return edit{file: filepath.Join(o.Root, ".mcp.json"), path: []string{"mcpServers", EntryName},
				value: map[string]any{"type": "http", "url": o.URL, "headers": map[string]any{"Authorization": "Bearer ${" + TokenVariable + "}"}}}
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
		remote: func(o Options) edit {
			return edit{file: filepath.Join(o.Root, ".codex", "config.toml"), toml: true, path: []string{"mcp_servers", EntryName},
				value: map[string]any{"url": o.URL, "bearer_token_env_var": TokenVariable}}
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
		remote: func(o Options) edit {
			return edit{file: filepath.Join(o.Root, ".gemini", "settings.json"), path: []string{"mcpServers", EntryName},
				value: map[string]any{"httpUrl": o.URL, "headers": map[string]any{"Authorization": "Bearer $" + TokenVariable}}}
		},
		step: func(o Options) string {
			return "This is the Gemini CLI (@google/gemini-cli), which since 2026-06-18 serves its enterprise tiers; most users now have Antigravity (--host antigravity). " +
				"Gemini CLI turns a project's servers and hooks off until the folder is trusted: answer its trust prompt in " + o.Root +
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
		remote: func(o Options) edit {
			return edit{file: filepath.Join(o.Root, "opencode.json"), path: []string{"mcp", EntryName}, initial: `{"$schema": "https://opencode.ai/config.json"}`,
				value: map[string]any{"type": "remote", "url": o.URL, "headers": map[string]any{"Authorization": "Bearer {env:" + TokenVariable + "}"}, "enabled": true}}
		},
		step: func(o Options) string {
			if o.URL != "" {
				return "opencode runs MCP tools without asking by default: start the remote lspkit with `lspkit mcp --http ADDR --read-only` so that it offers only the tools that write nothing, " +
					"unless opencode's permission configuration asks before lspkit's tools run."
			}
			return "Nothing to do. opencode runs MCP tools without asking by default, so lspkit offers it only the tools that write nothing (--read-only); " +
				"drop --read-only for rename, code actions, fix-all and formatting only where opencode's permission configuration asks before lspkit's tools run."
		},
	},
	{
		name: "cursor", display: "Cursor",
		edits: func(o Options) []edit {
			return []edit{{file: filepath.Join(o.Root, ".cursor", "mcp.json"), path: []string{"mcpServers", EntryName}, value: mcpServers(o, false)}}
		},
		remote: func(o Options) edit {
			return edit{file: filepath.Join(o.Root, ".cursor", "mcp.json"), path: []string{"mcpServers", EntryName},
				value: map[string]any{"url": o.URL, "headers": map[string]any{"Authorization": "Bearer ${env:" + TokenVariable + "}"}}}
		},
		step: func(Options) string {
			return "Cursor asks before it starts a project's new MCP server: enable lspkit when it offers to (Cursor Settings → MCP)."
		},
	},
	{
		name: "copilot", display: "GitHub Copilot CLI",
		edits: func(o Options) []edit {
			entry := mcpServers(o, false)
			entry["type"] = "local"
			entry["tools"] = []string{"*"}
			return []edit{
				{file: filepath.Join(o.Root, ".github", "mcp.json"), path: []string{"mcpServers", EntryName}, value: entry},
				{file: filepath.Join(o.Root, ".github", "lsp.json"), path: []string{"lspServers", EntryName},
					value: map[string]any{"command": o.Command, "args": lspArgs(o), "fileExtensions": o.Languages}},
			}
		},
		step: func(o Options) string {
			return "Copilot CLI loads a project's MCP servers and hooks only in a trusted folder: answer its trust prompt when you start `copilot` in " + o.Root +
				" (or start it with --trust-folder, or add the folder to \"trustedFolders\" in " + filepath.Join(o.Home, ".copilot", "config.json") +
				"). Its own LSP client reads .github/lsp.json in any folder and starts `lspkit lsp` for the files it serves. `copilot mcp list` lists lspkit without connecting to it."
		},
	},
	{
		name: "qwen", display: "Qwen Code",
		edits: func(o Options) []edit {
			return []edit{
				{file: filepath.Join(o.Root, ".qwen", "settings.json"), path: []string{"mcpServers", EntryName}, value: mcpServers(o, false)},
				{file: filepath.Join(o.Root, ".lsp.json"), path: []string{EntryName},
					value: map[string]any{"command": o.Command, "args": lspArgs(o), "extensionToLanguage": o.Languages}},
			}
		},
		step: func(o Options) string {
			return "Qwen Code skips a project's MCP server, silently, until it is approved, and an approval holds only for the entry as it was: run `qwen mcp approve lspkit` in " + o.Root +
				" (again after any change to the entry); `qwen mcp list` then shows it connected. Its LSP client reads .lsp.json when started with --experimental-lsp, and asks `lspkit lsp` for diagnostics by pull."
		},
	},
	{
		name: "kilo", display: "Kilo CLI",
		edits: func(o Options) []edit {
			o.readOnly = true // an opencode fork: MCP tools run without asking unless its permission config says otherwise
			edits := []edit{{file: filepath.Join(o.Root, "kilo.json"), path: []string{"mcp", EntryName},
				value: map[string]any{"type": "local", "command": append([]string{o.Command}, mcpArgs(o, false)...), "enabled": true}}}
			if o.NoHooks || o.URL != "" {
				// Without lspkit's hooks, Kilo's own LSP client tells the
				// model a file's errors after each edit, through lspkit
				// lsp. With them it would say them again, old and new,
				// and the states the next edit repairs.
				edits = append(edits, edit{file: filepath.Join(o.Root, "kilo.json"), path: []string{"lsp", EntryName},
					value: map[string]any{"command": append([]string{o.Command}, lspArgs(o)...), "extensions": extensions(o, true)}})
			}
			return edits
		},
		step: func(o Options) string {
			if o.NoHooks {
				return "Nothing to do: `kilo mcp list` shows lspkit connected, and `kilo debug lsp diagnostics FILE` checks a file through `lspkit lsp`. Kilo runs MCP tools without asking by default, so lspkit offers it only the tools that write nothing (--read-only); " +
					"its own language servers still start beside lspkit's unless each is turned off in kilo.json (\"lsp\": {\"gopls\": {\"disabled\": true}})."
			}
			return "Nothing to do: `kilo mcp list` shows lspkit connected, and lspkit's plugin (.kilo/plugins/lspkit.js) tells the model what its edits broke. Kilo runs MCP tools without asking by default, so lspkit offers it only the tools that write nothing (--read-only). " +
				"Kilo's own language servers, where it starts any, also list a file's errors after each edit — those that were there before too: turn them off in kilo.json (\"lsp\": false) to hear lspkit's alone."
		},
	},
	{
		name: "droid", display: "Droid (Factory)",
		edits: func(o Options) []edit {
			entry := mcpServers(o, false)
			entry["type"] = "stdio"
			return []edit{{file: filepath.Join(o.Root, ".factory", "mcp.json"), path: []string{"mcpServers", EntryName}, value: entry}}
		},
		step: func(Options) string {
			return "Nothing to do: Droid reads .factory/mcp.json when it starts; `droid mcp list` shows lspkit connected. Droid has no LSP client of its own."
		},
	},
	{
		name: "crush", display: "Crush",
		edits: func(o Options) []edit {
			entry := mcpServers(o, false)
			entry["type"] = "stdio"
			return []edit{
				{file: filepath.Join(o.Root, "crush.json"), path: []string{"mcp", EntryName}, value: entry,
					initial: `{"$schema": "https://charm.land/crush.json"}`},
				{file: filepath.Join(o.Root, "crush.json"), path: []string{"lsp", EntryName},
					value: map[string]any{"command": o.Command, "args": lspArgs(o), "filetypes": extensions(o, false)}},
			}
		},
		step: func(Options) string {
			return "Nothing to do: Crush reads crush.json when it starts, and asks before a tool runs unless started with --yolo. (Its npm package downloads Crush from outside the npm registry; lspkit's entry was tested against Crush's documented shape, not a running Crush.)"
		},
	},
	{
		name: "continue", display: "Continue CLI",
		edits: func(o Options) []edit {
			o.readOnly = true // cn -p (headless) and its plan mode run MCP tools without asking
			entry := yaml.MapSlice{{Key: "name", Value: EntryName}, {Key: "command", Value: o.Command}, {Key: "args", Value: mcpArgs(o, false)}}
			return []edit{{file: filepath.Join(o.Home, ".continue", "config.yaml"), yamlList: true, path: []string{"mcpServers"}, value: entry,
				initial: "name: Local Config\nversion: 1.0.0\nschema: v1\n"}}
		},
		step: func(o Options) string {
			return "Nothing to do: Continue's CLI (`cn`) reads " + filepath.Join(o.Home, ".continue", "config.yaml") +
				" when it starts and starts lspkit in the folder it runs in (the entry names no root: it serves each project you run `cn` in). Its TUI asks before an MCP tool runs, but `cn -p` and its plan mode run every MCP tool without asking, so lspkit offers it only the tools that write nothing (--read-only); " +
				"drop --read-only where every run of cn is interactive or ~/.continue/permissions.yaml asks for lspkit's tools (\"ask: [lsp_*]\")."
		},
	},
	{
		name: "antigravity", display: "Antigravity CLI",
		edits: func(o Options) []edit {
			return []edit{{file: filepath.Join(o.Root, ".agents", "mcp_config.json"), path: []string{"mcpServers", EntryName}, value: mcpServers(o, false)}}
		},
		step: func(o Options) string {
			return "Antigravity (agy, Google's successor to the Gemini CLI for most tiers) reads a project's .agents/mcp_config.json, and " +
				filepath.Join(o.Home, ".gemini", "config", "mcp_config.json") + " for every project. It is not on npm and was not run here: the entry follows its reported shape."
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
	edits := func(o Options) []edit {
		return append(append(h.edits(o), hookEdits(o, h.name)...), skillEdits(o, h.name)...)
	}
	if o.URL != "" {
		if h.remote == nil {
			var with []string
			for _, h := range hosts {
				if h.remote != nil {
					with = append(with, h.name)
				}
			}
			return Result{}, fmt.Errorf("--url: lspkit writes no HTTP entry for %s yet (it does for %s); `lspkit mcp --connect URL` is a command any host can run", h.display, strings.Join(with, ", "))
		}
		edits = func(o Options) []edit { return []edit{h.remote(o)} }
	}
	var res Result
	for _, e := range edits(o) {
		// A file with two entries (a host's MCP and LSP sections) takes
		// the second on top of the first.
		prev := slices.IndexFunc(res.Changes, func(c Change) bool { return c.File == e.file })
		var old []byte
		var err error
		if prev >= 0 {
			old = res.Changes[prev].Content
		} else {
			old, err = os.ReadFile(e.file)
		}
		exists := err == nil
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return Result{}, fmt.Errorf("%s: %w", e.file, err)
		}
		var content []byte
		var action string
		switch {
		case e.skill != "":
			content, action, err = skillFile(old, exists, e, o.Force)
		case e.whole != "":
			content, action, err = wholeFile(old, exists, e, o.Force)
		case e.toml:
			content, action, err = mergeTOML(old, e, o.Force)
		case e.yamlList:
			content, action, err = mergeYAMLList(old, e, o.Force)
		default:
			content, action, err = mergeJSON(old, e, o.Force)
			if err == nil && prev >= 0 && res.Changes[prev].Action == "created" {
				content = indentJSON(content) // a file of ours alone, as a new one is written
			}
		}
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", e.file, err)
		}
		if prev >= 0 {
			first := res.Changes[prev].Action
			switch {
			case first == "created" || action == "unchanged":
				action = first
			case first != "unchanged" && first != action:
				action = "added"
			}
			res.Changes[prev] = Change{File: e.file, Action: action, Content: content}
			continue
		}
		if !exists {
			action = "created"
		}
		res.Changes = append(res.Changes, Change{File: e.file, Action: action, Content: content})
	}
	res.Step = h.step(o)
	if step := hookStep(o, h.name); step != "" {
		res.Step += " " + step
	}
	if o.URL != "" {
		res.Step = fmt.Sprintf("The entry takes the token from %s: set it in the environment %s starts in to the token `lspkit mcp --http` printed (or was given). ", TokenVariable, h.display) + res.Step
	}
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
