package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// A command is one of lspkit's subcommands. Its help, `lspkit --help`'s
// list and docs/contract.md's command reference are all made from it, and
// its flags are declared once, by define, for the command's run and its
// help alike.
type command struct {
	name string
	// args is what follows the flags in the synopsis ("FILE...").
	args string
	// summary is the one line lspkit --help gives the command.
	summary string
	// help is the command's description, paragraphs of plain text.
	help string
	// hidden commands are started by lspkit itself, not by people.
	hidden bool
	// define declares the command's flags on fs.
	define func(fs *flag.FlagSet)
	run    func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands is lspkit's commands, in the order help lists them.
func commands() []command {
	return []command{
		{
			name: "check", args: "FILE...",
			summary: "check files once: start their servers, print the findings, stop them",
			help: `Starts the servers the FILEs need, waits until each has settled for the text on disk, prints the findings at the severities asked for as path:line:col: severity: message [source], and stops the servers. Files are checked in parallel.

Exit status: 0 every file checked by every server for it and nothing found; 1 findings; 2 bad input (a missing path, a directory, a file outside the root, bad flags or configuration); 3 some file not (fully) checked — no server for its type, server unavailable or broken, timed out, binary, LSP disabled — and no findings. Each unchecked file is named once on stderr with its reason, in one line (a server that cannot start: the line of its stderr that says why, and the fix where lspkit knows it); nothing else is written to stderr unless --log-level asks for the log, where the servers' whole stderr goes.

--json prints {"diagnostics": [...], "files": [{"file", "checked", "reason"?, "servers": [...]}]}.`,
			define: func(fs *flag.FlagSet) { new(checkOptions).define(fs) },
			run: func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return check(ctx, args, stdout, stderr)
			},
		},
		{
			name:    "mcp",
			summary: "an MCP server (stdio, or streamable HTTP with --http) with the lsp_* tools",
			help: `Serves MCP on stdin/stdout (newline-delimited JSON, the stdio transport): the lsp_* tools for checks, navigation, rename, code actions and formatting. This is the command an agent's MCP configuration runs.

--shared (or LSPKIT_SHARED=1, or "shared": true) attaches to this user's shared daemon for the root, starting it if none runs, so that every agent on the workspace shares one set of language servers.

--http ADDR serves the same tools over streamable HTTP at /mcp (health at /healthz) for hosts elsewhere — another container, another machine — with a daemon of its own for the root: every request carries the bearer token (LSPKIT_TOKEN, or on loopback one generated into a 0600 file whose path is printed; any other address needs LSPKIT_TOKEN); a foreign Origin is 403, a Host that is not this machine's 421, a body over 4 MiB 413, a session past --max-sessions 503; --path-map CLIENT=DAEMON rewrites a client's paths into the daemon's in every call and back in every answer (docs/remote.md). --connect URL serves on stdin/stdout the tools of the lspkit at URL, relaying each call, the token from LSPKIT_TOKEN: for a host that speaks only stdio.`,
			define: func(fs *flag.FlagSet) { new(mcpOptions).define(fs) },
			run: func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return mcpCommand(ctx, args, stdout, stderr)
			},
		},
		{
			name:    "lsp",
			summary: "lspkit as a language server on stdin/stdout, fronting the real servers",
			help:    `A language server for hosts and editors that speak LSP themselves (Claude Code's LSP plugins, opencode's lsp, Neovim, Helix, Zed): it starts the servers named by --server (none: every enabled server with a root marker at the root, a file of its type under it and its command found), announces the union of what they offer, and passes the client's requests to the server(s) of each file (items such as completions and code actions come back to the server that made them for their resolve). The client's open documents are its text; other files follow the disk, read-your-writes. Diagnostics of every server of a file are merged and published with the client's version once each server has settled for it (pulled instead, by a client that pulls them). The servers' progress and messages reach the client. Positions are UTF-16 throughout. What is routed and how: docs/lsp-proxy.md.`,
			define:  func(fs *flag.FlagSet) { new(lspOptions).define(fs) },
			run:     lspCommand,
		},
		{
			name:    "serve",
			summary: "the daemon: JSON-RPC with LSP framing on stdin/stdout",
			help: `The daemon an agent spawns: JSON-RPC 2.0 with LSP Content-Length framing on stdin/stdout; lsp/ready first, then the contract's methods (docs/contract.md). Ends on lsp/shutdown, the end of stdin or SIGTERM, answering what it read first; its servers end with it, SIGKILL included.

With --mcp-fds R,W it serves MCP too on those descriptors, sharing the servers: it reads both and answers on the one the host does not write to (hosts' extra pipes are often socket pairs, wired either way), and offers only the tools that write nothing unless "fdWriteTools": true (hosts trust that channel's tools). LSPKIT_BOOTSTRAP or LSP_BOOTSTRAP may give the root and configuration; what a host sends that lspkit cannot take is logged and on lsp/status, never fatal. --shared attaches to the workspace's shared daemon, as for mcp.`,
			define: func(fs *flag.FlagSet) { new(serveOptions).define(fs) },
			run:    serve,
		},
		{
			name:    "init",
			summary: "give an agent host lspkit: its MCP entry where the host reads it",
			help: `Writes lspkit's MCP server entry into the host's own configuration — the project's file where the host has one (claude-code: .mcp.json, and its hooks in .claude/settings.json; codex: .codex/config.toml, with the variables Codex must pass on, and .codex/hooks.json; gemini: .gemini/settings.json, with its hooks; opencode: opencode.json, and lspkit's plugin in .opencode/plugins; cursor: .cursor/mcp.json and .cursor/hooks.json; copilot: .github/mcp.json, .github/lsp.json for its own LSP client and .github/hooks/lspkit.json; qwen: .qwen/settings.json, with its hooks, and .lsp.json; kilo: kilo.json, and lspkit's plugin in .kilo/plugins (with --no-hooks, lspkit lsp as its LSP server instead); droid: .factory/mcp.json, and its hooks in .factory/settings.json; crush: crush.json, MCP and LSP; continue: the user's ~/.continue/config.yaml (YAML, comments kept); antigravity: .agents/mcp_config.json; claude-desktop: the user's claude_desktop_config.json, with --root) — and prints the one step the host leaves to you (approving the server, trusting the folder).

What is in the file stays as it was, comments and order included; an lspkit entry that differs from the one it would write is left alone unless --force; a file that does not parse is left untouched and named with the line of the problem. Writes are atomic. --dry-run prints what would be written and writes nothing.`,
			define: func(fs *flag.FlagSet) { new(initOptions).define(fs) },
			run:    initCommand,
		},
		{
			name: "hook", args: "HOST [EVENT]",
			summary: "an agent host's hooks: what the model's edits broke, said once when it moves on",
			help: `An agent host's hook (lspkit init --host HOST writes them): reads the host's payload on stdin — a tool about to run or just run, the end of the model's turn — tells the root's shared daemon (started if none runs, whatever the MCP entry says: the bursts live there), and prints what the model should hear in the host's own shape (JSON on stdout, exit 0). HOST is claude-code, codex, copilot, gemini, qwen, droid, cursor, opencode or kilo (the last two through lspkit's plugin); EVENT names the event for a host whose payload does not (copilot: preToolUse, postToolUse, agentStop).

A burst is the model's edits between two of its other actions. After an edit: nothing (the daemon records the file's text before it, and brings it to its servers in the background). Before a tool that edits nothing: the burst ends, and its errors that are new since it began — in the files it edited and in every file those edits broke, each once, errors that were there before never — are given to the model with that tool's result. At the end of the turn: errors new since the turn began hold it once with the list (the host's own way: a block, a deny, a follow-up prompt); the next end lets it go. --each says after each edit what is new since the burst began instead. The check at a burst's end is not cut at the interactive bounds: it takes up to burstTimeoutMs (60 s) and says what it could not check.

The root is --root, else the project directory the host names ($CLAUDE_PROJECT_DIR, $GEMINI_PROJECT_DIR, Cursor's workspace root), else the payload's cwd. Copilot CLI also runs Claude Code's hooks: the claude-code hook then answers in Copilot's shape, and not at all where lspkit's own Copilot hooks are there. Before a Grep (claude-code) whose pattern is a symbol's name — Greet, \bGreet\b, func Greet — that the language servers know, it adds to the model's context the lspkit calls that answer it exactly (definition, references, symbol context); the Grep runs as asked, never blocked, and any other pattern, --no-grep-hint, or no answer within --hint-within adds nothing.`,
			define: func(fs *flag.FlagSet) { new(hookOptions).define(fs) },
			run:    hookCommand,
		},
		{
			name:    "status",
			summary: "what runs or would run for the root: servers, binaries, configuration, the shared daemon",
			help:    `Lists every built-in and configured server for the root: its language, whether it is available (and if not, why and how to install it), the configuration in force. When the root's shared daemon runs, it is the truth of what runs: its pid, since when, the clients attached, and its servers as it runs them (the lspkit entry is the daemon); otherwise it says none runs. Starts nothing.`,
			define:  func(fs *flag.FlagSet) { new(statusOptions).define(fs) },
			run: func(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return status(args, stdout, stderr)
			},
		},
		{
			name:    "doctor",
			summary: "what is wrong with this setup: toolchains, servers, cache, watches, configuration",
			help: `Looks at what lspkit needs and says what is missing: the Go and node toolchains, each built-in server (found, installable, or missing with the install hint), the user cache and its size, the file watch limit against the tree, and the configuration file in force with any key it does not know. Each server it finds that the root's files need is started once (initialize, then shutdown; four at a time, 30 s each) before it is called found, and the others whose command is a toolchain manager's stand-in are asked their version: one that exits at start is missing — a toolchain manager's stand-in without the real server (rustup's proxy without the component, a pyenv, asdf or mise shim of another version, corepack), with the command that fixes it — or broken, with the line of its stderr that says why. Installs nothing.

Exit status: 0 all is well (servers that are installable on first need count as well); 1 something needs attention (each such line starts with "!"); 2 bad flags.`,
			define: func(fs *flag.FlagSet) { new(doctorOptions).define(fs) },
			run: func(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return doctor(args, stdout, stderr)
			},
		},
		{
			name: "install", args: "[SERVER...]",
			summary: "install servers at their pinned versions into the server store",
			help:    `Installs the named built-in servers (or, with --tested, the ones the test command's live tests use; with --tested --ci also those CI's live suite alone uses) at the versions pinned in servers.json into the server store (the user cache's lspkit/servers, or $LSPKIT_SERVERS): from the Go proxy, npm, or apt for system packages. What is installed at its pinned version is left alone.`,
			define:  func(fs *flag.FlagSet) { new(installOptions).define(fs) },
			run: func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return install(ctx, args, stdout, stderr)
			},
		},
		{
			name: "conform", args: "(SERVER | -- COMMAND ARGS...)",
			summary: "score a language server against the protocol: a report card",
			help: `Runs a scripted session against a language server (a built-in or configured id, or any command after --) on a small workspace for its language (or --root and --file of a project) and checks every message against the LSP meta model; prints a report card. --transcript FILE scores a recorded session instead.

Exit status: 0 no violation; 1 violations; 2 could not run (server missing, or it ended or hung before answering initialize) or stopped early with nothing wrong seen (the card is incomplete).`,
			define: func(fs *flag.FlagSet) { new(conformOptions).define(fs) },
			run: func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return conform(ctx, args, stdout, stderr)
			},
		},
		{
			name: "record", args: "-- SERVER ARGS...",
			summary: "record a session with a server as a transcript",
			help:    `Runs SERVER between a client on stdin/stdout and itself, unchanged, recording both directions as a transcript (JSON Lines) for replay and lspkit conform --transcript.`,
			define:  func(fs *flag.FlagSet) { new(recordOptions).define(fs) },
			run:     record,
		},
		{
			name: "shared-daemon", hidden: true,
			summary: "the shared daemon, started by --shared",
			define:  func(fs *flag.FlagSet) { new(common).define(fs) },
			run: func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return sharedDaemon(ctx, args, stdout, stderr)
			},
		},
	}
}

// lookup finds a command by name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// flagSet is a command's flags, as its run and its help see them.
func (c command) flagSet() *flag.FlagSet { return newFlags(c.name, c.define) }

// A flagDoc is one flag as help and the docs show it.
type flagDoc struct {
	name, arg, meaning, def string
}

// flagDocs lists a command's flags in name order.
func (c command) flagDocs() []flagDoc {
	var docs []flagDoc
	c.flagSet().VisitAll(func(f *flag.Flag) {
		arg, meaning := flag.UnquoteUsage(f)
		if arg == "value" { // a flag.Func without a named argument
			arg = ""
		}
		d := flagDoc{name: f.Name, arg: arg, meaning: meaning}
		if isBool(f) {
			d.arg = ""
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			d.def = f.DefValue
		}
		docs = append(docs, d)
	})
	return docs
}

// isBool reports whether f is a boolean flag (given without a value).
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// synopsis is the command's one-line usage: lspkit NAME [--flag ARG]... ARGS.
func (c command) synopsis() string {
	var b strings.Builder
	b.WriteString("lspkit " + c.name)
	for _, f := range c.flagDocs() {
		b.WriteString(" [--" + f.name)
		if f.arg != "" {
			b.WriteString(" " + f.arg)
		}
		b.WriteString("]")
	}
	if c.args != "" {
		b.WriteString(" " + c.args)
	}
	return b.String()
}

// writeHelp writes `lspkit NAME --help`.
func (c command) writeHelp(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", c.synopsis(), wrap(c.help, 78, ""))
	docs := c.flagDocs()
	if len(docs) == 0 {
		return
	}
	fmt.Fprint(w, "\nFlags:\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range docs {
		meaning := f.meaning
		if f.def != "" {
			meaning += " (default " + f.def + ")"
		}
		fmt.Fprintf(tw, "  --%s\t%s\n", strings.TrimSpace(f.name+" "+f.arg), meaning)
	}
	tw.Flush()
}

// writeUsage writes `lspkit --help`: every command's synopsis and summary.
func writeUsage(w io.Writer) {
	fmt.Fprint(w, "lspkit gives coding agents the language server's findings, navigation and fixes.\n\nUsage:\n")
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		fmt.Fprintf(w, "  %s\n        %s\n", c.synopsis(), c.summary)
	}
	fmt.Fprint(w, `  lspkit --version
        the version, and the commit and date it was built from

Run lspkit COMMAND --help for a command's flags and exit statuses.
Logs go to stderr; --log-level or LSPKIT_LOG sets debug, info, warn or error.
`)
}

// wrap fills text's paragraphs to width columns, each line after indent.
func wrap(text string, width int, indent string) string {
	var out []string
	for _, para := range strings.Split(text, "\n\n") {
		var line string
		var lines []string
		for _, word := range strings.Fields(para) {
			if line != "" && len(indent)+len([]rune(line))+1+len([]rune(word)) > width {
				lines = append(lines, indent+line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		if line != "" {
			lines = append(lines, indent+line)
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return strings.Join(out, "\n\n")
}
