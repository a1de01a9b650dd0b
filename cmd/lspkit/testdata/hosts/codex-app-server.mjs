// Drives `codex app-server` (JSON-RPC over stdio, one message a line) the
// way Codex's own clients do, without a model: initialize, start a thread
// in the working directory, list the MCP servers' status, and call
// lspkit's lsp_check_file on the file named in argv[2]. Prints one JSON
// line: {"status": <lspkit's McpServerStatus>, "call": <the call's result>}.
import { appServer } from "./codex-rpc.mjs";

const file = process.argv[2];
const timer = setTimeout(() => { console.error("codex app-server: no answer within 120 s"); process.exit(1); }, 120000);
let codex;
try {
  codex = await appServer();
  const call = codex.call;
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
  codex?.close();
}
