#!/usr/bin/env bash
# LLxprt Code's shipped LSP client (cmd/lspkit/testdata/llxprt: its files
# unmodified from vybestack/llxprt-code at a pinned commit) against lspkit:
# cmd/lspkit's TestLLxprtClient, under node with the packages of the
# client's lockfile (installed once per lockfile into the user cache), and
# without the race detector: the client gives the MCP channel 250 ms a
# step, as it ships. Needs the servers scripts/test.sh installs. .ci/run
# runs it after the test command.
set -euo pipefail
cd "$(dirname "$0")/.."

lock=cmd/lspkit/testdata/llxprt/package-lock.json
dir=${XDG_CACHE_HOME:-$HOME/.cache}/lspkit/tools/llxprt-$(sha256sum "$lock" | cut -c1-12)
if [ ! -f "$dir/installed" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	cp cmd/lspkit/testdata/llxprt/package.json "$lock" "$dir/"
	(cd "$dir" && npm ci --no-audit --no-fund --silent && touch installed)
fi
export LSPKIT_LLXPRT_MODULES=$dir/node_modules LSPKIT_REQUIRE_SERVERS=1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
go test -vet=off -count=1 -run '^TestLLxprtClient$' -v ./cmd/lspkit >"$out" 2>&1 || status=$?
grep -E '^(=== RUN|--- |    |ok|FAIL|PASS)' "$out" | grep -v '^=== RUN' || true
if [ "$status" -ne 0 ] || ! grep -q '^--- PASS: TestLLxprtClient' "$out"; then
	cat "$out" >&2
	echo "TestLLxprtClient did not pass" >&2
	exit 1
fi
