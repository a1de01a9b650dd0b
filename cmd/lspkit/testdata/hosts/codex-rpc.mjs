// A client of `codex app-server` (JSON-RPC over stdio, one message a
// line), as Codex's own clients speak to it: appServer starts it,
// initializes the session and returns call (a request, answered by a
// promise) and close. A request of the server's (an approval) is declined,
// so that nothing runs unasked.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export async function appServer() {
  const codex = spawn("codex", ["app-server"], { stdio: ["pipe", "pipe", "inherit"] });
  const pending = new Map();
  let next = 1;
  createInterface({ input: codex.stdout }).on("line", (line) => {
    let msg;
    try { msg = JSON.parse(line); } catch { return; }
    if (msg.id !== undefined && pending.has(msg.id) && (msg.result !== undefined || msg.error !== undefined)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result);
    } else if (msg.id !== undefined && msg.method) {
      codex.stdin.write(JSON.stringify({ id: msg.id, result: { decision: "decline" } }) + "\n");
    }
  });
  const call = (method, params) => {
    const id = next++;
    codex.stdin.write(JSON.stringify({ id, method, params }) + "\n");
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  };
  await call("initialize", { clientInfo: { name: "lspkit-host-test", title: null, version: "1" }, capabilities: null });
  codex.stdin.write(JSON.stringify({ method: "initialized" }) + "\n");
  return { call, close: () => codex.kill() };
}
