package config

import (
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// A Key is one configuration key lspkit accepts. Keys is the one list of
// them: Parse refuses what it does not name, docs/configuration.md's table
// is checked against it, and lspkit doctor names what a file sets beyond it.
type Key struct {
	// Path is the key's place in lspkit.json: "lsp.diagnosticTimeout",
	// "lsp.restart.maxRestarts", "lsp.servers.ID.command" (ID: any server
	// id).
	Path string
	// Type is the JSON type the key takes, in words.
	Type string
	// Default is the value when the key is absent, as JSON, or "" where
	// the built-in server's own value applies.
	Default string
	// Example is a value Parse accepts, as JSON.
	Example string
	// Meaning says what the key does.
	Meaning string
}

// Keys lists every key of lspkit.json's lsp object, nested keys after
// their parent.
func Keys() []Key {
	return []Key{
		{"lsp.servers", "object: server id → server object; or an array of server objects, each with its \"id\"", "{}", `{"eslint": {"enabled": false}}`, "adds servers or overrides a built-in's fields, by id (keys below); in the array form (as hosts send it) a later entry of the same id replaces an earlier one"},
		{"lsp.servers.ID.enabled", "boolean", "", "false", "false turns the server off; true turns on a server that is off by default"},
		{"lsp.servers.ID.command", "string", "", `"luau-lsp"`, "the executable (a name found on PATH or in the server store, or a path)"},
		{"lsp.servers.ID.args", "array of strings", "", `["lsp"]`, "its arguments"},
		{"lsp.servers.ID.extensions", "array of strings", "", `[".luau"]`, "the file extensions it serves, each with its dot"},
		{"lsp.servers.ID.rootMarkers", "array of strings", "", `["default.project.json"]`, "files or directories that mark a root: a file's root is its nearest ancestor holding one, inside the workspace"},
		{"lsp.servers.ID.workspaceRootMarkers", "array of strings", "", `["go.work"]`, "the same as rootMarkers (LLxprt Code's name)"},
		{"lsp.servers.ID.roots", `"each", "folders" or "outermost"`, "", `"folders"`, "processes per root: one each, one for all as workspace folders, or one per outermost root"},
		{"lsp.servers.ID.env", "object of strings", "", `{"GOFLAGS": "-tags=integration"}`, "extra environment of the server process"},
		{"lsp.servers.ID.initializationOptions", "object", "", `{"hints": true}`, "initialize's initializationOptions"},
		{"lsp.servers.ID.settings", "object", "", `{"gopls": {"staticcheck": true}}`, "what workspace/configuration and didChangeConfiguration answer, by section"},
		{"lsp.servers.ID.impact", "string", "", `"pythonImports"`, "how the files that depend on a changed file are found: packageReferences (gopls), fileReferences (tsserver), pythonImports, includes, or self (a file's findings depend on it alone)"},
		{"lsp.servers.ID.language", "string", "", `"luau"`, "the LSP language id of its documents"},
		{"lsp.servers.ID.sidecar", "object", "", `{"command": ["rojo", "sourcemap", "--watch", "-o", "sourcemap.json"]}`, "a long-running helper started, restarted and stopped with the server, in its root"},
		{"lsp.servers.ID.sidecar.command", "array of strings", "", `["rojo", "sourcemap", "--watch", "-o", "sourcemap.json"]`, "the helper's executable and arguments (required)"},
		{"lsp.servers.ID.sidecar.env", "object of strings", "", `{"RUST_LOG": "warn"}`, "the helper's extra environment"},
		{"lsp.diagnosticTimeout", "milliseconds", "3000", "5000", "how long a check waits for a server that has seen a file before"},
		{"lsp.firstTouchTimeout", "milliseconds", "10000", "20000", "how long the first check after each start of a server waits for it (it may be starting and loading the project)"},
		{"lsp.navigationTimeout", "milliseconds", "0", "5000", "the longest one navigation question (definition, references, hover, symbols, call hierarchy, code actions) may take, a project load it waits for included; past it the answer is an error saying what it waited for (0: no limit)"},
		{"lsp.requestTimeout", "milliseconds", "0", "30000", "the longest one request to a language server may take; past it the request is cancelled and what needed it says so (0: no limit)"},
		{"lsp.diagnosticsTimeoutMs", "milliseconds", "3000", "5000", "the same as diagnosticTimeout (LLxprt Code's bootstrap name)"},
		{"lsp.firstTouchTimeoutMs", "milliseconds", "10000", "20000", "the same as firstTouchTimeout (LLxprt Code's bootstrap name)"},
		{"lsp.navigationTimeoutMs", "milliseconds", "0", "5000", "the same as navigationTimeout (LLxprt Code's bootstrap name)"},
		{"lsp.requestTimeoutMs", "milliseconds", "0", "30000", "the same as requestTimeout (LLxprt Code's bootstrap name)"},
		{"lsp.includeSeverities", "array of error, warning, info, hint", `["error"]`, `["error", "warning"]`, "the severities checks and reports keep (lspkit check --severity overrides)"},
		{"lsp.maxDiagnosticsPerFile", "whole number", "20", "50", "lsp/report's findings per file; the rest are counted"},
		{"lsp.maxProjectDiagnosticsFiles", "whole number", "5", "10", "lsp/report's other files in write mode"},
		{"lsp.navigationTools", "boolean", "true", "false", "false hides the MCP navigation tools (diagnostics stay)"},
		{"lsp.autoInstall", "boolean", "true", "false", "installs a missing built-in server (Go proxy or npm, pinned) into the user cache on first need"},
		{"lsp.restart", "object", `{"maxRestarts": 3, "windowMs": 300000}`, `{"maxRestarts": 5}`, "the crash policy: at most maxRestarts restarts within windowMs, then the server is broken"},
		{"lsp.restart.maxRestarts", "whole number", "3", "5", "restarts allowed within the window"},
		{"lsp.restart.windowMs", "milliseconds", "300000", "60000", "the window"},
		{"lsp.exclude", "array of globs", `["**/node_modules/**", "**/.git/**"]`, `["**/vendor/**", "**/.git/**"]`, "doublestar globs against root-relative paths: such files are never checked, start no server and stay out of reports"},
		{"lsp.maxFileBytes", "whole number", "2097152", "4194304", "the largest file a server is sent; bigger ones are not checked, with the reason"},
		{"lsp.maxOpenDocuments", "whole number ≥ 1", "200", "100", "documents each server keeps open; the least recently checked is closed beyond it"},
		{"lsp.impactMaxFiles", "whole number", "200", "50", "the other files a check with impact brings to the servers at most; past it the impact says it is incomplete"},
		{"lsp.burstTimeoutMs", "milliseconds", "60000", "120000", "what the check at the end of a burst of edits (the hosts' hooks) may take: the edited files and every file that depends on them, before and after; past it the feedback says what it could not check"},
		{"lsp.watchBudget", "whole number", "10000", "20000", "directories each root's watcher watches at most; the rest is polled and answers say so"},
		{"lsp.serverIdleStopMs", "milliseconds", "900000", "0", "a server unused this long is stopped (0: never); it starts again on next need"},
		{"lsp.maxServerMemoryMB", "whole number", "0", "2048", "a server whose resident memory exceeds it is restarted when no request is in flight (0: no limit); a server written in Go gets it as its soft limit (GOMEMLIMIT)"},
		{"lsp.maxServers", "whole number", "0", "6", "servers one daemon runs at once, over all the worktrees it serves; past it the least recently used idle server stops, and starts again on its next request (0: no bound)"},
		{"lsp.maxMemoryMB", "whole number", "0", "8192", "total resident memory of one daemon's servers; over it the least recently used idle servers stop (0: no bound); a server written in Go gets the smaller bound as its soft limit (GOMEMLIMIT)"},
		{"lsp.shareServers", "boolean", "true", "false", "a shared daemon runs one process of a server that takes workspace folders (gopls, pyright) for all the worktrees it serves, each a folder of it; false: one per worktree"},
		{"lsp.prewarm", "boolean", "false", "true", "the daemon starts, in the background, the servers whose root markers are at the workspace root"},
		{"lsp.shared", "boolean", "false", "true", "lspkit serve and lspkit mcp attach to the workspace's shared daemon, as --shared"},
		{"lsp.idleExitMs", "milliseconds", "300000", "60000", "how long a shared daemon lives after its last client left"},
		{"lsp.mcpStructuredContent", "boolean", "false", "true", "MCP tools declare an output schema and return structuredContent (JSON) beside their text; off, a host that shows the model structuredContent (Claude Code) shows it the text, which is 2–4× smaller"},
		{"lsp.mcpFormat", "compact or long", "\"compact\"", "\"long\"", "the MCP tools' text: compact groups places by file, each path once, source lines only where one place is the answer; long is a line per place with its source line (lspkit mcp --format overrides)"},
		{"lsp.fdWriteTools", "boolean", "false", "true", "lspkit serve --mcp-fds offers the tools that write files (lsp_rename, lsp_apply_code_action, lsp_fix_all, lsp_format) on that channel too; hosts register its tools as trusted, so by default it lists only tools that write nothing"},
	}
}

// known reports whether path, with server ids written as ID, is a key
// Keys lists.
func known(path string) bool {
	return slices.ContainsFunc(Keys(), func(k Key) bool { return k.Path == path })
}

// serverPath is a key path under one server written with ID for its id:
// lsp.servers.gopls.env → lsp.servers.ID.env.
func serverPath(path string) string {
	rest, ok := strings.CutPrefix(path, "lsp.servers.")
	if !ok {
		return path
	}
	_, sub, ok := strings.Cut(rest, ".")
	if !ok {
		return "lsp.servers.ID"
	}
	return "lsp.servers.ID." + sub
}

// UnknownKeys lists, in order, the keys of an lspkit configuration
// document that lspkit does not know (Parse refuses the first of them,
// saying which), with the top-level keys other than "lsp" and "$schema",
// which Parse leaves alone. A document that is not JSON has none: Parse
// says what is wrong with it.
func UnknownKeys(data []byte) []string {
	var top map[string]jsontext.Value
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	var unknown []string
	for _, k := range sorted(top) {
		if k != "lsp" && k != "$schema" {
			unknown = append(unknown, k)
		}
	}
	var walk func(prefix string, v jsontext.Value)
	walk = func(prefix string, v jsontext.Value) {
		var m map[string]jsontext.Value
		if v.Kind() != '{' || json.Unmarshal(v, &m) != nil {
			return
		}
		for _, k := range sorted(m) {
			path := prefix + "." + k
			switch {
			case path == "lsp.servers":
				var servers map[string]jsontext.Value
				if json.Unmarshal(m[k], &servers) == nil {
					for _, id := range sorted(servers) {
						walk(path+"."+id, servers[id])
					}
				}
			case !known(serverPath(path)):
				unknown = append(unknown, path)
			case serverPath(path) == "lsp.restart" || strings.HasSuffix(serverPath(path), ".sidecar"):
				walk(path, m[k])
			}
		}
	}
	walk("lsp", top["lsp"])
	return unknown
}
