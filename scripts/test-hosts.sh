#!/usr/bin/env bash
# The agent hosts as shipped — Claude Code, Codex, Gemini CLI and opencode,
# from npm at the versions cmd/lspkit/testdata/hosts pins (installed once
# per lockfile into the user cache) — run lspkit as `lspkit init` sets it
# up: cmd/lspkit's TestHosts, without the race detector. Needs the servers
# scripts/test.sh installs. .ci/run runs it after the test command.
set -euo pipefail
cd "$(dirname "$0")/.."

lock=cmd/lspkit/testdata/hosts/package-lock.json
dir=${XDG_CACHE_HOME:-$HOME/.cache}/lspkit/tools/hosts-$(sha256sum "$lock" | cut -c1-12)
if [ ! -f "$dir/installed" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	cp cmd/lspkit/testdata/hosts/package.json "$lock" "$dir/"
	# npm ci refuses this lockfile: opencode-ai lists platform packages its
	# lockfile entry records only for the platform it was made on.
	(cd "$dir" && npm install --no-audit --no-fund --silent && touch installed)
fi
export LSPKIT_HOSTS=$dir/node_modules/.bin LSPKIT_REQUIRE_SERVERS=1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
go test -vet=off -count=1 -run '^TestHosts$' -v ./cmd/lspkit >"$out" 2>&1 || status=$?
grep -E '^(=== RUN|--- |    |ok|FAIL|PASS)' "$out" | grep -v '^=== RUN' || true
if [ "$status" -ne 0 ] || ! grep -q '^--- PASS: TestHosts' "$out"; then
	cat "$out" >&2
	echo "TestHosts did not pass" >&2
	exit 1
fi
