// A stand-in for an OpenAI-compatible chat completions API, for the hosts
// that take one (Copilot CLI's offline provider, Qwen Code's
// --auth-type openai, Continue's model config): the first turn that offers
// the tool asks for it (the tool and its arguments from FAKE_TOOL and
// FAKE_ARGS; a host's prefixed name — "lspkit__lsp_check_file",
// "mcp__lspkit__lsp_check_file", "lspkit-lsp_check_file" — matches by its
// end); the turn that carries its result writes the result's content, as
// the host gives it to the model, into FAKE_OUT and ends the conversation.
// With FAKE_TOOLS set, the names of the tools offered in the first request
// that offers any are written there. Every other request gets a short text
// answer. Answers are streamed (SSE chunks) or not, as asked; the
// Responses API (/responses) is answered in its own shape. Prints its port
// on stdout.
import http from "node:http";
import fs from "node:fs";
import { chatReply as chat, responsesReply as responses, text } from "./stand-in.mjs";

const tool = process.env.FAKE_TOOL;
const args = JSON.parse(process.env.FAKE_ARGS || "{}");
const out = process.env.FAKE_OUT;
const toolsOut = process.env.FAKE_TOOLS;
const log = process.env.FAKE_LOG;
let toolsSeen = false;

const matches = (n) => n && tool && (n === tool || n.endsWith("__" + tool) || n.endsWith("-" + tool) || n.endsWith("_" + tool));

const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    let r = {};
    try { r = JSON.parse(body); } catch {}
    if (log) fs.appendFileSync(log, `${req.method} ${req.url} ${body}\n`);
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "fake", object: "model", owned_by: "test" }] }));
      return;
    }
    const offered = (r.tools || []).map((t) => t.function?.name ?? t.name).filter(Boolean);
    if (toolsOut && !toolsSeen && offered.length) {
      toolsSeen = true;
      fs.writeFileSync(toolsOut, offered.join("\n") + "\n");
    }
    const name = offered.find(matches);
    if (req.url.includes("/responses")) {
      const result = (r.input || []).filter((i) => i.type === "function_call_output").at(-1);
      if (result) {
        fs.writeFileSync(out, text(result.output));
        responses(res, r.stream, [{ type: "message", id: "msg_fake", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done", annotations: [] }] }]);
      } else if (name) {
        responses(res, r.stream, [{ type: "function_call", id: "fc_fake", call_id: "call_fake1", name, arguments: JSON.stringify(args), status: "completed" }]);
      } else {
        responses(res, r.stream, [{ type: "message", id: "msg_fake", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok", annotations: [] }] }]);
      }
      return;
    }
    const messages = r.messages || [];
    const last = messages.at(-1);
    if (last?.role === "tool") {
      if (out) fs.writeFileSync(out, text(last.content));
      chat(res, r.stream, { content: "done" }, "stop");
    } else if (name && !messages.some((m) => m.role === "tool")) {
      chat(res, r.stream, { content: null, tool_calls: [{ id: "call_fake1", type: "function", function: { name, arguments: JSON.stringify(args) } }] }, "tool_calls");
    } else {
      chat(res, r.stream, { content: "ok" }, "stop");
    }
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
