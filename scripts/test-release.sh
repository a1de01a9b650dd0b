#!/usr/bin/env bash
# The release channels, built and installed here as a user would, nothing
# published: scripts/release-snapshot.sh builds dist/; cmd/lspkit's
# TestRelease* then check the archives and checksums, install with
# install.sh from dist/ served on 127.0.0.1 (and refuse a corrupted
# archive), install the .deb with dpkg -i (as root), and publish the npm
# packages to Verdaccio on 127.0.0.1 (pinned by
# cmd/lspkit/testdata/registry, installed once into the user cache) to run
# them with npx in an empty HOME whose PATH has no Go. Needs the servers
# scripts/test.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/node-test.sh

start=$(date +%s)
bash scripts/release-snapshot.sh >&2
echo "== snapshot built in $(($(date +%s) - start)) s; $(du -sh dist | cut -f1) in dist/"
ls -l dist/*.tar.gz dist/*.zip dist/*.deb dist/*.rpm | awk '{printf "   %8.1f MB  %s\n", $5/1048576, $9}'

modules=$(node_modules cmd/lspkit/testdata/registry registry)
export LSPKIT_RELEASE_DIST=$PWD/dist LSPKIT_VERDACCIO=$modules/.bin/verdaccio LSPKIT_REQUIRE_SERVERS=1
for test in TestReleaseArchives TestReleaseManifests TestReleaseInstallScript TestReleaseDeb TestReleaseNPM TestReleaseGoInstall TestClaudePlugin; do
	go_test "$test"
done
