// Drives `codex app-server` (JSON-RPC over stdio, one message a line) the
// way Codex's own clients do, without a model: initialize, start a thread
// in the working directory, list the MCP servers' status, and call
// lspkit's lsp_check_file on the file named in argv[2]. Prints one JSON
// line: {"status": <lspkit's McpServerStatus>, "call": <the call's result>}.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const file = process.argv[2];
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
    // A request of the server's (an approval): decline, so nothing runs unasked.
    codex.stdin.write(JSON.stringify({ id: msg.id, result: { decision: "decline" } }) + "\n");
  }
});
function call(method, params) {
  const id = next++;
  codex.stdin.write(JSON.stringify({ id, method, params }) + "\n");
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
const timer = setTimeout(() => { console.error("codex app-server: no answer within 120 s"); process.exit(1); }, 120000);
try {
  await call("initialize", { clientInfo: { name: "lspkit-host-test", title: null, version: "1" }, capabilities: null });
  codex.stdin.write(JSON.stringify({ method: "initialized" }) + "\n");
  const thread = await call("thread/start", { cwd: process.cwd(), ephemeral: true });
  const threadId = thread.thread.id;
  let status;
  for (let i = 0; i < 100; i++) { // the thread's MCP connections come up in the background
    const list = await call("mcpServerStatus/list", { threadId });
    status = list.data.find((s) => s.name === "lspkit");
    if (status && status.runtimeStatus && status.runtimeStatus !== "starting") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const result = await call("mcpServer/tool/call", { threadId, server: "lspkit", tool: "lsp_check_file", arguments: { file } });
  console.log(JSON.stringify({ status: { name: status?.name, runtimeStatus: status?.runtimeStatus, tools: Object.keys(status?.tools ?? {}).sort(), toolsError: status?.toolsError }, call: result }));
} catch (e) {
  console.error("codex app-server:", e.message);
  process.exitCode = 1;
} finally {
  clearTimeout(timer);
  codex.kill();
}
