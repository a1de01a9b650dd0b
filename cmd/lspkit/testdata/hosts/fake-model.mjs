// A stand-in for the Anthropic Messages API, for `claude -p` in tests: the
// first turn of a conversation that offers the tool asks for it (the tool
// and its arguments from FAKE_TOOL and FAKE_ARGS: an MCP tool by the name
// after its server's prefix, or one of Claude Code's own by its name); the
// turn that carries its result records what Claude Code gives the model
// for it — the tool_result's content, as sent, or with FAKE_WHOLE the
// turn's every block, where a hook's feedback comes — into FAKE_OUT, and
// ends the conversation. Every other request gets a short text answer. Answers are
// streamed (SSE) or not, as asked. Prints its port on stdout.
import http from "node:http";
import fs from "node:fs";
import { anthropicReply } from "./stand-in.mjs";

const tool = process.env.FAKE_TOOL;
const args = JSON.parse(process.env.FAKE_ARGS || "{}");
const out = process.env.FAKE_OUT;
const whole = !!process.env.FAKE_WHOLE;

// reply answers in the Messages API's shape.
const reply = anthropicReply;

const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    if (!req.url.startsWith("/v1/messages") || req.url.includes("count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ input_tokens: 1 }));
      return;
    }
    let r = {};
    try { r = JSON.parse(body); } catch {}
    const name = (r.tools || []).map((t) => t.name).find((n) => n && (n === tool || n.endsWith("__" + tool)));
    const last = (r.messages || []).at(-1);
    const result = Array.isArray(last?.content) ? last.content.find((b) => b.type === "tool_result") : undefined;
    if (result) {
      fs.writeFileSync(out, JSON.stringify(whole ? last.content : result.content));
      reply(res, r.stream, [{ type: "text", text: "done" }], "end_turn");
    } else if (name) {
      reply(res, r.stream, [{ type: "tool_use", id: "toolu_fake1", name, input: args }], "tool_use");
    } else {
      reply(res, r.stream, [{ type: "text", text: "ok" }], "end_turn");
    }
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
