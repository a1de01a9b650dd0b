#!/usr/bin/env bash
# The agent hosts as shipped — Claude Code, Codex, Gemini CLI, opencode,
# Copilot CLI, Qwen Code (on npm's Node 22), Kilo, Droid and Continue,
# from npm at the versions cmd/lspkit/testdata/hosts pins (installed once
# per lockfile into the user cache) — run lspkit as `lspkit init` sets it
# up: cmd/lspkit's TestHosts, without the race detector; Claude Code and
# Copilot CLI install the repo's plugins from its marketplaces:
# TestPluginHosts; the next hosts read what `lspkit init --host X` writes,
# list lspkit connected, and (Copilot, Qwen, Continue) run model turns
# against a stand-in model API: TestInitHosts; Claude Code, opencode and
# Codex reach `lspkit mcp --http` with its token: TestHTTPHosts; eight
# hosts play scripted turns through the hooks `lspkit init` writes, on
# cobra (Go module proxy) and @tanstack/query-core (npm), and what the
# model hears is checked against the compilers: TestHookHosts; Claude Code
# and Codex search lspkit's tools with their tool search, and what lspkit
# adds to a session's first model request is counted: TestToolCostHosts; and
# Debian's Neovim (apt, as root or with sudo) runs `lspkit lsp` as its
# language server: TestLSPNeovim. Needs the servers scripts/test.sh
# installs. .ci/run runs it after the test command.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/node-test.sh

# npm ci refuses this lockfile: opencode-ai lists platform packages its
# lockfile entry records only for the platform it was made on.
modules=$(node_modules cmd/lspkit/testdata/hosts hosts install)
export LSPKIT_HOSTS=$modules/.bin LSPKIT_REQUIRE_SERVERS=1
# js-tiktoken, as scripts/test.sh installs it: TestToolCostHosts counts the
# first model request's tokens with it.
LSPKIT_TIKTOKEN=$(node_modules cmd/lspkit/testdata/tokens tokens)
export LSPKIT_TIKTOKEN
go_test TestHosts
go_test TestPluginHosts
go_test TestInitHosts
go_test TestHTTPHosts
go_test TestHookHosts
go_test TestToolCostHosts
go_test TestLSPOpencode

if ! command -v nvim >/dev/null; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	log=$(mktemp)
	{ $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim; } >"$log" 2>&1 || {
		cat "$log" >&2
		exit 1
	}
	rm -f "$log"
fi
LSPKIT_NEOVIM=1 go_test TestLSPNeovim
