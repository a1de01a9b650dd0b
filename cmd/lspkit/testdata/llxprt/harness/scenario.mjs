// One LLxprt Code session against lspkit, through LLxprt's own client code
// (vendored, types stripped): what its config, edit tools, /lsp status and
// model see. lspkit runs where LLxprt runs `bun <its LSP entry>`: a `bun`
// first on PATH that execs lspkit serve. Everything observed is printed as
// one JSON object for the Go test to judge.
//
//   node scenario.mjs ROOT SHAPE
//
// SHAPE is the LLxprt `lsp` setting: plain (true), timeouts (its timeout
// keys) or configured (servers of its own).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { initializeLsp, parseLspConfig, shutdownLsp } from './packages/core/src/config/lspIntegration.js';
import { CoreLspServiceAdapter } from './packages/core/src/tools-adapters/CoreLspServiceAdapter.js';
import { collectLspDiagnosticsBlock } from './packages/tools/src/utils/lsp-diagnostics-helper.js';

const [root, shape] = process.argv.slice(2);
const out = { shape, uncaught: [], pipeErrors: [], calls: {}, steps: {} };
const begun = performance.now();
const step = (name) => {
  out.steps[name] = Math.round(performance.now() - begun);
};
process.on('uncaughtException', (e) => out.uncaught.push(String(e?.stack ?? e)));
process.on('unhandledRejection', (e) => out.uncaught.push(`unhandled rejection: ${String(e?.stack ?? e)}`));

const settings = {
  plain: true,
  timeouts: {
    servers: [],
    diagnosticTimeout: 8000,
    firstTouchTimeout: 60000,
    navigationTimeout: 20000,
    requestTimeout: 30000,
    navigationTools: true,
  },
  configured: {
    servers: [
      { id: 'ts', command: 'typescript-language-server', args: ['--stdio'] },
      { id: 'gopls', command: 'gopls' },
    ],
    includeSeverities: ['error'],
  },
}[shape];
if (settings === undefined) {
  throw new Error(`unknown shape ${shape}`);
}

// The host's tool registry and config, as far as this code uses them.
const registry = {
  tools: new Map(),
  registerTool(tool) {
    this.tools.set(tool.serverToolName, tool);
  },
  sortTools() {},
  removeMcpToolsByServer(server) {
    for (const [name, tool] of this.tools) {
      if (tool.serverName === server) this.tools.delete(name);
    }
  },
};
const host = { getTargetDir: () => root, getToolRegistry: () => registry };
const state = { lspConfig: parseLspConfig(settings) };
const config = { getLspServiceClient: () => state.lspServiceClient, getLspConfig: () => state.lspConfig };
const adapter = new CoreLspServiceAdapter(config);

const started = performance.now();
await initializeLsp(state, host);
out.startMs = Math.round(performance.now() - started);
const client = state.lspServiceClient;
out.alive = client?.isAlive() === true;
out.unavailable = client?.getUnavailableReason() ?? null;
out.tools = [...registry.tools.values()].map((t) => ({ name: t.serverToolName, server: t.serverName, trust: t.trust }));
if (!out.alive) {
  step('pipes closed');
console.log(JSON.stringify(out));
// LLxprt's client leaves timers behind (its 10 s ready timeout, its 2 s
// SIGKILL grace); the host lives on anyway, the scenario need not.
process.exit(0);
  process.exit(0);
}
const child = client.process;
out.pid = child.pid;
const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

const goFile = join(root, 'main.go');
const tsFile = join(root, 'src', 'app.ts');
// The servers' first touch: LLxprt's edit tools give a check 5 s, and a
// project's first load may take longer on a loaded machine. The client's
// checkFile without an abort waits for lspkit's answer.
await client.checkFile(goFile);
step('go first check');
await client.checkFile(tsFile);
step('ts first check');

// What an edit tool appends to its answer for the model.
out.goBlock = await collectLspDiagnosticsBlock(adapter, host, goFile);
out.tsBlock = await collectLspDiagnosticsBlock(adapter, host, tsFile);
out.all = await client.getAllDiagnostics();
out.status = await client.status();
out.rawStatus = await client.connection.sendRequest('lsp/status');

// The navigation tools, as the model calls them (250 ms each, as shipped).
const call = async (label, name, args) => {
  const tool = registry.tools.get(name);
  if (tool === undefined) {
    out.calls[label] = { missing: true };
    return;
  }
  const t0 = performance.now();
  try {
    const res = await tool.call(args);
    out.calls[label] = { ms: Math.round(performance.now() - t0), isError: res.isError === true, text: res.content?.map((c) => c.text).join('') };
  } catch (e) {
    out.calls[label] = { ms: Math.round(performance.now() - t0), error: String(e) };
  }
};
await call('go definition', 'lsp_goto_definition', { file: 'main.go', line: 6, symbol: 'answer' });
await call('go references', 'lsp_find_references', { file: 'main.go', line: 6, symbol: 'answer' });
await call('go hover', 'lsp_hover', { file: 'main.go', line: 6, symbol: 'answer' });
await call('ts definition', 'lsp_goto_definition', { file: 'src/app.ts', line: 5, symbol: 'twice' });

// Fixed on disk, as an edit tool writes: no block, nothing known.
writeFileSync(goFile, 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(answer())\n\tvar s string = fmt.Sprint(answer())\n\tfmt.Println(s)\n}\n');
writeFileSync(tsFile, 'export function twice(n: number): number {\n  return n * 2;\n}\n\nconst label: string = String(twice(21));\nconsole.log(label);\n');
out.goFixedBlock = await collectLspDiagnosticsBlock(adapter, host, goFile);
out.tsFixedBlock = await collectLspDiagnosticsBlock(adapter, host, tsFile);
out.allFixed = await client.getAllDiagnostics();
step('fixed');

const streams = client.getMcpTransportStreams();
await shutdownLsp(state, registry);
out.exit = await exited;
step('shut down');
// The host's ends of the MCP pipes, read to their end: bytes lspkit left
// unread would have reset them (ECONNRESET, an uncaught error in a host
// without a listener).
await Promise.all(
  [streams.readable, streams.writable].map(
    (s) =>
      new Promise((resolve) => {
        s.on('error', (e) => out.pipeErrors.push(String(e)));
        if (s.destroyed) {
          resolve();
          return;
        }
        s.once('close', resolve);
        s.resume();
      }),
  ),
);
step('pipes closed');
console.log(JSON.stringify(out));
// LLxprt's client leaves timers behind (its 10 s ready timeout, its 2 s
// SIGKILL grace); the host lives on anyway, the scenario need not.
process.exit(0);
