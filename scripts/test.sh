#!/usr/bin/env bash
# The project's test command (README.md "Test"). On a fresh machine it needs
# Go and node/npm (root or sudo for apt): modules come from
# the Go module proxy at the versions pinned in go.mod, and the language
# servers the live tests use are installed by `lspkit install --tested` at
# the versions pinned in service/registry/servers.json (gopls's source for
# the differential test too).
set -euo pipefail
cd "$(dirname "$0")/.."

# phase NAME prints a heading with the seconds since the start.
start=$SECONDS
phase() { echo "== $1 (at $((SECONDS - start)) s)"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

phase "go mod download"
go mod download

# gopls, the one server compiled from source, is the longest install: its
# compilation starts now, beside lspkit's, and lspkit install below finds
# it in the build cache (the version is the one servers.json pins).
gopls_pkg=$(grep -o '"golang.org/x/tools/gopls@[^"]*"' service/registry/servers.json | tr -d '"')
GOBIN=$tmp/gopls go install "$gopls_pkg" >"$tmp/gopls.log" 2>&1 &
gopls=$!

# lspkit, which installs the servers, is built with the race detector: the
# tests reuse its packages instead of compiling them again.
phase "build lspkit"
go build -race -o "$tmp/lspkit" ./cmd/lspkit
if ! wait "$gopls"; then
	cat "$tmp/gopls.log" >&2
	echo "compiling $gopls_pkg failed" >&2
	exit 1
fi
# The core servers (gopls, typescript, pyright, clangd), whose live rows
# the test command runs; CI's live pass installs the others (--ci).
phase "language servers (in the background)"
"$tmp/lspkit" install --tested >"$tmp/install.log" 2>&1 &
install=$!
# The official MCP Inspector (pinned) lists and calls every MCP tool in
# cmd/lspkit's TestInspector; it is kept in the user cache beside the
# servers.
inspector_version=2.12.0
inspector_dir=${XDG_CACHE_HOME:-$HOME/.cache}/lspkit/tools/inspector-$inspector_version
export LSPKIT_INSPECTOR=$inspector_dir/node_modules/.bin/mcp-inspector
if [ ! -x "$LSPKIT_INSPECTOR" ]; then
	npm install --prefix "$inspector_dir" --no-audit --no-fund --silent "@modelcontextprotocol/inspector@$inspector_version" >"$tmp/inspector.log" 2>&1 &
else
	true &
fi
inspector=$!
# js-tiktoken (o200k_base), pinned by cmd/lspkit/testdata/tokens' lockfile:
# TestToolListTokens counts the tool list's tokens with it.
tokens_lock=cmd/lspkit/testdata/tokens/package-lock.json
tokens_dir=${XDG_CACHE_HOME:-$HOME/.cache}/lspkit/tools/tokens-$(sha256sum "$tokens_lock" | cut -c1-12)
export LSPKIT_TIKTOKEN=$tokens_dir/node_modules
if [ ! -f "$tokens_dir/installed" ]; then
	(rm -rf "$tokens_dir" && mkdir -p "$tokens_dir" && cp cmd/lspkit/testdata/tokens/package.json "$tokens_lock" "$tokens_dir/" &&
		cd "$tokens_dir" && npm ci --no-audit --no-fund --silent && touch installed) >"$tmp/tokens.log" 2>&1 &
else
	true &
fi
tokens=$!

phase "gofmt"
unformatted=$(git ls-files -z '*.go' | xargs -0 gofmt -l)
if [ -n "$unformatted" ]; then
	echo "gofmt would change: $unformatted" >&2
	exit 1
fi

phase "go build -race (while the servers install)"
go build -race ./...

phase "language servers"
if ! wait "$install"; then
	cat "$tmp/install.log" >&2
	echo "lspkit install --tested failed" >&2
	exit 1
fi
cat "$tmp/install.log"
if ! wait "$inspector"; then
	cat "$tmp/inspector.log" >&2
	echo "installing the MCP Inspector failed" >&2
	exit 1
fi
if ! wait "$tokens"; then
	cat "$tmp/tokens.log" >&2
	echo "installing js-tiktoken failed" >&2
	exit 1
fi
export LSPKIT_REQUIRE_SERVERS=1 # live tests fail, not skip, without their server
# The daemon the tests of cmd/lspkit and daemon drive: the lspkit built
# above with -race, instead of each building its own.
export LSPKIT_TEST_BINARY=$tmp/lspkit

phase "go test -race"
# Unit and fake-server tests, and one live row per core server (the
# conformance scenario, README's main job); every other live test is
# skipped here and named in $LSPKIT_LIVE_DEFERRED when it is set: CI's
# live pass (.ci/run) runs them whole.
# The conformance live suite writes its table here; it is shown below.
# go vet runs in full in CI (.ci/run, for every system): the tests skip
# go test's own partial vet.
# Four packages at once, eight tests at a time each (most wait on daemons
# and servers, not the processor), the longest first (go
# test starts packages in the order given).
LSPKIT_CONFORMANCE_SUMMARY=$tmp/summary go test -vet=off -race -count=1 -p 4 -parallel 8 -timeout 20m \
	./service/orchestrator ./cmd/lspkit ./conformance ./daemon ./client ./...

phase "conformance live suite"
cat "$tmp/summary"

phase "done"
