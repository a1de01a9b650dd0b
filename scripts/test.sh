#!/usr/bin/env bash
# The project's test command (README.md "Test"). On a fresh machine it needs
# Go and node/npm (root or sudo for apt): modules and staticcheck come from
# the Go module proxy at the versions pinned in go.mod, and the language
# servers the live tests use are installed by `lspkit install --tested` at
# the versions pinned in service/registry/servers.json (gopls's source for
# the differential test too).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== go mod download"
go mod download

echo "== language servers"
go run ./cmd/lspkit install --tested
export LSPKIT_REQUIRE_SERVERS=1 # live tests fail, not skip, without their server

echo "== gofmt"
unformatted=$(git ls-files -z '*.go' | xargs -0 gofmt -l)
if [ -n "$unformatted" ]; then
	echo "gofmt would change: $unformatted" >&2
	exit 1
fi

echo "== go vet"
go vet ./...

echo "== staticcheck"
go tool staticcheck ./...

echo "== go test -race"
# The conformance live suite (every scenario against the installed servers,
# through the daemon) writes its table here; it is shown below.
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
LSPKIT_CONFORMANCE_SUMMARY=$summary go test -race -count=1 -timeout 10m ./...

echo "== conformance live suite"
cat "$summary"

echo "== bench modules (peers read every message of every corpus)"
(cd bench && go vet ./... && go tool staticcheck ./... && go test -count=1 ./...)
(cd bench/typed && go vet ./... && go tool staticcheck ./... && go test -count=1 ./...)

echo "== fuzz (bounded)"
# Budgets are execution counts, not durations: a duration -fuzztime races
# Go's fuzz coordinator at the deadline and fails with "context deadline
# exceeded" and no input (golang/go#75804, fixed in Go 1.27).
go test ./protocol -run '^$' -fuzz '^FuzzDecode$' -fuzztime 30000x
go test ./protocol -run '^$' -fuzz '^FuzzDecoder$' -fuzztime 100000x
go test ./transport -run '^$' -fuzz '^FuzzReader$' -fuzztime 150000x
go test ./transport -run '^$' -fuzz '^FuzzEnvelope$' -fuzztime 150000x
