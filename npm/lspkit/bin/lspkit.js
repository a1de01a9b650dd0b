#!/usr/bin/env node
// lspkit's npm entry: runs the lspkit binary built for this machine — the
// one in the @lspkit/<os>-<cpu> package npm installed beside this one
// (an optional dependency; npm installs only the one whose os and cpu
// match), or LSPKIT_BINARY when set — with this process's arguments,
// standard streams and environment, and exits as it exits. Signals the
// host sends (a host stopping its MCP server) are passed on to it.
"use strict";

const { spawn } = require("node:child_process");

const packages = {
  "linux x64": "@lspkit/linux-x64",
  "linux arm64": "@lspkit/linux-arm64",
  "darwin x64": "@lspkit/darwin-x64",
  "darwin arm64": "@lspkit/darwin-arm64",
  "win32 x64": "@lspkit/win32-x64",
  "win32 arm64": "@lspkit/win32-arm64",
  "freebsd x64": "@lspkit/freebsd-x64",
  "freebsd arm64": "@lspkit/freebsd-arm64",
};

function fail(message) {
  process.stderr.write(`lspkit: ${message}\n`);
  process.exit(2);
}

// binary is the path of the lspkit binary to run.
function binary() {
  if (process.env.LSPKIT_BINARY) {
    return process.env.LSPKIT_BINARY;
  }
  const pkg = packages[`${process.platform} ${process.arch}`];
  if (!pkg) {
    fail(`no lspkit binary is published for ${process.platform}/${process.arch}; build one with ` +
      "`go install github.com/lspkit/lspkit/cmd/lspkit@latest` and set LSPKIT_BINARY to it");
  }
  const exe = process.platform === "win32" ? "lspkit.exe" : "lspkit";
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(`${pkg}, which holds the binary for this machine, is not installed (npm leaves optional ` +
      "dependencies out under --omit=optional): install lspkit again without it, or set LSPKIT_BINARY");
  }
}

const child = spawn(binary(), process.argv.slice(2), { stdio: "inherit", windowsHide: true });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (err) => fail(`cannot run ${child.spawnfile}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
