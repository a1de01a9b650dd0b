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
. scripts/node-test.sh

LSPKIT_LLXPRT_MODULES=$(node_modules cmd/lspkit/testdata/llxprt llxprt)
export LSPKIT_LLXPRT_MODULES LSPKIT_REQUIRE_SERVERS=1
go_test TestLLxprtClient
