// Counts, in o200k_base tokens (js-tiktoken), the tools/list answer of
// `lspkit mcp` as it is sent: node count.mjs LSPKIT [ARGS...] spawns it in
// the working directory, lists its tools and prints one JSON line:
// {"tokens": N, "chars": N, "tools": {"name": {"tokens", "description",
// "searchHint", "alwaysLoad"}}}.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

// js-tiktoken from the node_modules LSPKIT_TIKTOKEN names, else beside this
// script.
const require = createRequire(process.env.LSPKIT_TIKTOKEN ? join(process.env.LSPKIT_TIKTOKEN, 'x.js') : import.meta.url);
const { getEncoding } = require('js-tiktoken');

const enc = getEncoding('o200k_base');
const [bin, ...args] = process.argv.slice(2);
const p = spawn(bin, ['mcp', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
let buf = '';
const waiting = new Map();
p.stdout.on('data', (d) => {
  buf += d;
  for (let i; (i = buf.indexOf('\n')) >= 0; ) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    const w = waiting.get(m.id);
    if (w) w(line, m);
  }
});
const call = (id, method, params) => new Promise((resolve) => {
  waiting.set(id, (line, m) => resolve({ line, m }));
  p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
});
await call(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'count', version: '1' } });
p.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
const { m } = await call(2, 'tools/list', {});
const result = JSON.stringify(m.result);
const tools = {};
for (const t of m.result.tools) {
  tools[t.name] = {
    tokens: enc.encode(JSON.stringify(t)).length,
    description: t.description,
    searchHint: t._meta?.['anthropic/searchHint'] ?? '',
    alwaysLoad: t._meta?.['anthropic/alwaysLoad'] === true,
  };
}
console.log(JSON.stringify({ tokens: enc.encode(result).length, chars: result.length, tools }));
p.stdin.end();
p.kill();
