#!/usr/bin/env bash
# release-snapshot.sh: dist/ as a release builds it, nothing published —
# GoReleaser's archives for linux, darwin, windows and freebsd on amd64
# and arm64, checksums.txt, the .deb and .rpm, the Homebrew cask and the
# Scoop manifest (.goreleaser.yaml); server.json for the MCP Registry at
# the snapshot's version; and the npm packages under dist/npm
# (scripts/npm-packages.mjs). GoReleaser is installed once into the user
# cache at its pinned version.
set -euo pipefail
cd "$(dirname "$0")/.."

goreleaser_version=v2.15.1
tools="${XDG_CACHE_HOME:-$HOME/.cache}/lspkit/tools/goreleaser-$goreleaser_version"
if [ ! -x "$tools/goreleaser" ]; then
	echo "== installing GoReleaser $goreleaser_version into $tools"
	GOBIN="$tools" GOFLAGS=-modcacherw go install "github.com/goreleaser/goreleaser/v2@$goreleaser_version"
fi

LSPKIT_COMMIT=$(git rev-parse HEAD) "$tools/goreleaser" release --snapshot --clean --skip=publish,sign,announce,validate --parallelism "${LSPKIT_RELEASE_PARALLELISM:-2}"

node -e '
const fs = require("node:fs");
const { version } = JSON.parse(fs.readFileSync("dist/metadata.json", "utf8"));
const server = JSON.parse(fs.readFileSync("server.json", "utf8"));
server.version = version;
for (const p of server.packages) p.version = version;
fs.writeFileSync("dist/server.json", JSON.stringify(server, null, 2) + "\n");
'
node scripts/npm-packages.mjs dist
echo "== dist/: $(ls dist | tr '\n' ' ')"
