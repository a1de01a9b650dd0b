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

# The servers install (npm waits on the network, gopls compiles) while the
# rest is built. lspkit, which installs them, is built with the race
# detector: the tests reuse its packages instead of compiling them again.
phase "build lspkit"
go build -race -o "$tmp/lspkit" ./cmd/lspkit
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
export LSPKIT_REQUIRE_SERVERS=1 # live tests fail, not skip, without their server

# The bench modules' tests and the bounded fuzzing (one worker) need no
# language server; they start with the tests, in the background, where
# they use the processor time the live tests leave while they wait on
# their servers (started earlier, they slowed the servers' install — gopls's
# compile is the longest step before the tests). (Static analysis —
# staticcheck of every module, vets for every system — is CI's, after this
# script: .ci/run.)
# Fuzz budgets are execution counts, not durations: a duration -fuzztime
# races Go's fuzz coordinator at the deadline and fails with "context
# deadline exceeded" and no input (golang/go#75804, fixed in Go 1.27).
# The bench modules at the lowest priority: they take only the processor
# time the tests leave. (Not the fuzzing: a starved fuzz worker would be
# taken for a hung one.)
nice -n 19 bash -c '
	(cd bench && go test -vet=off -count=1 ./...) &&
		(cd bench/typed && go test -vet=off -count=1 ./...) &&
		(cd bench/accuracy && go test -vet=off -count=1 ./...)
' >"$tmp/bench.log" 2>&1 &
bench=$!
bash -c '
	go test -vet=off ./protocol -run "^$" -fuzz "^FuzzDecoder$" -fuzztime 10000x -parallel 1 &&
		go test -vet=off ./transport -run "^$" -fuzz "^FuzzReader$" -fuzztime 20000x -parallel 1 &&
		go test -vet=off ./transport -run "^$" -fuzz "^FuzzEnvelope$" -fuzztime 20000x -parallel 1 &&
		go test -vet=off ./service/api -run "^$" -fuzz "^FuzzDecode$" -fuzztime 5000x -parallel 1 &&
		go test -vet=off ./service/mcpserver/jsonl -run "^$" -fuzz "^FuzzLines$" -fuzztime 5000x -parallel 1
' >"$tmp/fuzz.log" 2>&1 &
fuzz=$!


phase "go test -race"
# The conformance live suite (every scenario against the installed servers,
# through the daemon) writes its table here; it is shown below.
# go vet runs in full in CI (.ci/run, for every system): the tests skip
# go test's own partial vet.
# Most parallel tests wait on language servers and daemons, not the
# processor: four at a time, and four packages at once, the longest
# first (go test starts packages in the order given).
LSPKIT_CONFORMANCE_SUMMARY=$tmp/summary go test -vet=off -race -count=1 -p 4 -parallel 4 -timeout 10m \
	./service/orchestrator ./cmd/lspkit ./conformance ./daemon ./client ./...

phase "conformance live suite"
cat "$tmp/summary"

phase "bench modules (peers read every message of every corpus)"
if ! wait "$bench"; then
	cat "$tmp/bench.log" >&2
	echo "the bench modules failed" >&2
	exit 1
fi
grep -E '^(ok|FAIL)' "$tmp/bench.log"

phase "fuzz (bounded)"
if ! wait "$fuzz"; then
	cat "$tmp/fuzz.log" >&2
	echo "fuzzing failed" >&2
	exit 1
fi
grep -E '^(ok|PASS|FAIL)' "$tmp/fuzz.log"
phase "done"
