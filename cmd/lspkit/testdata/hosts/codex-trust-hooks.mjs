// Trusts the project's hooks as Codex's /hooks does when its user trusts
// them: asks `codex app-server` (hooks/list) for the hooks of the working
// directory and prints, for each untrusted one, the TOML Codex writes into
// ~/.codex/config.toml: [hooks.state."KEY"] trusted_hash = "HASH".
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const codex = spawn("codex", ["app-server"], { stdio: ["pipe", "pipe", "inherit"] });
const pending = new Map();
let next = 1;
createInterface({ input: codex.stdout }).on("line", (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.id !== undefined && pending.has(msg.id)) {
    const { resolve, reject } = pending.get(msg.id);
    pending.delete(msg.id);
    msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result);
  }
});
function call(method, params) {
  const id = next++;
  codex.stdin.write(JSON.stringify({ id, method, params }) + "\n");
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
const timer = setTimeout(() => { console.error("codex app-server: no answer within 60 s"); process.exit(1); }, 60000);
try {
  await call("initialize", { clientInfo: { name: "lspkit-host-test", title: null, version: "1" }, capabilities: null });
  codex.stdin.write(JSON.stringify({ method: "initialized" }) + "\n");
  const list = await call("hooks/list", { cwd: process.cwd() });
  for (const entry of list.data) {
    for (const hook of entry.hooks) {
      if (hook.trustStatus !== "trusted") console.log(`[hooks.state.${JSON.stringify(hook.key)}]\ntrusted_hash = ${JSON.stringify(hook.currentHash)}`);
    }
  }
} catch (e) {
  console.error("codex app-server:", e.message);
  process.exitCode = 1;
} finally {
  clearTimeout(timer);
  codex.kill();
}
