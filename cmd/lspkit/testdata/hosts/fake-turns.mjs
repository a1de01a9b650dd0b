// A stand-in for a model API that plays a scripted turn, for the hook tests:
// the Anthropic Messages API (Claude Code), OpenAI's chat completions
// (Copilot CLI, Qwen Code, opencode, Kilo, Droid) and Responses (Codex), and
// Gemini's generateContent (Gemini CLI), streamed or not as asked.
//
// FAKE_SCRIPT names a JSON file: {"steps": [{"tool": NAME, "args": {...}},
// ...]}. A request of the agent's conversation (one that offers a tool of the
// script) is answered with the step whose index is the number of tool
// results the conversation holds so far: the first request gets step 0, the
// one that carries step 0's result gets step 1, and so on; once every step
// has its result, the answer is a short text that ends the turn (again
// after each hold of the turn's end). A tool is named exactly, or by the end
// of a host's prefixed name ("mcp__lspkit__lsp_status").
//
// Each request of the conversation is logged to FAKE_LOG as one JSON line:
// {"step": N, "api": ..., "new": [texts]} — "new" is what the host sent since
// the model's last answer (the tool's result and anything a hook added to
// it, or the user message that holds the turn), each text as the model gets
// it. Other requests (titles, summaries, token counts) get a short text and
// are not logged. Prints its port on stdout.
import http from "node:http";
import fs from "node:fs";
import { anthropicReply, chatReply, geminiReply, id, json, responsesReply, text } from "./stand-in.mjs";

const script = JSON.parse(fs.readFileSync(process.env.FAKE_SCRIPT, "utf8"));
const steps = script.steps;
const log = process.env.FAKE_LOG;
const names = new Set(steps.map((s) => s.tool));
const matches = (offered, want) => offered === want || offered.endsWith("__" + want) || offered.endsWith("-" + want) || offered.endsWith("_" + want);
const ofScript = (offered) => offered.some((n) => [...names].some((w) => matches(n, w)));
const pick = (offered, want) => offered.find((n) => matches(n, want)) ?? want;

function record(step, api, fresh) {
  if (log) fs.appendFileSync(log, JSON.stringify({ step, api, new: fresh }) + "\n");
}

const callId = () => id("call_");

// Anthropic Messages.
function anthropic(r, res) {
  const offered = (r.tools || []).map((t) => t.name).filter(Boolean);
  const messages = r.messages || [];
  if (!ofScript(offered)) return anthropicReply(res, r.stream, [{ type: "text", text: "ok" }], "end_turn");
  const done = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result").length;
  const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
  const fresh = [];
  for (const m of messages.slice(lastAssistant + 1)) {
    if (typeof m.content === "string") fresh.push(m.content);
    else for (const b of m.content || []) fresh.push(b.type === "tool_result" ? text(b.content) : text(b));
  }
  record(done, "anthropic", fresh);
  if (done < steps.length) {
    const s = steps[done];
    return anthropicReply(res, r.stream, [{ type: "tool_use", id: id("toolu_"), name: pick(offered, s.tool), input: s.args }], "tool_use");
  }
  anthropicReply(res, r.stream, [{ type: "text", text: "done" }], "end_turn");
}

// OpenAI chat completions.
function chat(r, res) {
  const offered = (r.tools || []).map((t) => t.function?.name ?? t.name).filter(Boolean);
  const messages = r.messages || [];
  if (!ofScript(offered)) return chatReply(res, r.stream, { content: "ok" }, "stop");
  const done = messages.filter((m) => m.role === "tool").length;
  const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
  record(done, "chat", messages.slice(lastAssistant + 1).map((m) => text(m.content)));
  if (done < steps.length) {
    const s = steps[done];
    return chatReply(res, r.stream, { content: null, tool_calls: [{ id: callId(), type: "function", function: { name: pick(offered, s.tool), arguments: JSON.stringify(s.args) } }] }, "tool_calls");
  }
  chatReply(res, r.stream, { content: "done" }, "stop");
}

// OpenAI Responses (Codex): function tools, custom (freeform) tools such
// as apply_patch, whose input is the step's args.input, and the tool
// search Codex runs itself (a tool of type tool_search, execution
// "client"), whose arguments are the step's args.
function responses(r, res) {
  const tools = r.tools || [];
  const offered = tools.map((t) => t.name ?? t.function?.name ?? t.type).filter(Boolean);
  const input = Array.isArray(r.input) ? r.input : [];
  if (!ofScript(offered)) return responsesReply(res, r.stream, [message("ok")]);
  const outputs = ["function_call_output", "custom_tool_call_output", "tool_search_output"];
  const done = input.filter((i) => outputs.includes(i.type)).length;
  const lastModel = input.findLastIndex((i) => i.type === "function_call" || i.type === "custom_tool_call" || i.type === "tool_search_call" || (i.type === "message" && i.role === "assistant"));
  record(done, "responses", input.slice(lastModel + 1).map((i) => (i.type === "message" ? text(i.content) : i.type === "tool_search_output" ? JSON.stringify(i.tools) : text(i.output))));
  if (done < steps.length) {
    const s = steps[done];
    const name = pick(offered, s.tool);
    const tool = tools.find((t) => (t.name ?? t.function?.name ?? t.type) === name);
    const call = callId();
    if (tool?.type === "tool_search") {
      return responsesReply(res, r.stream, [{ type: "tool_search_call", id: "tsc_" + call, call_id: call, execution: "client", arguments: s.args, status: "completed" }]);
    }
    if (tool?.type === "custom") {
      return responsesReply(res, r.stream, [{ type: "custom_tool_call", id: "ctc_" + call, call_id: call, name, input: s.args.input, status: "completed" }]);
    }
    return responsesReply(res, r.stream, [{ type: "function_call", id: "fc_" + call, call_id: call, name, arguments: JSON.stringify(s.args), status: "completed" }]);
  }
  responsesReply(res, r.stream, [message("done")]);
}

const message = (t) => ({ type: "message", id: id("msg_"), role: "assistant", status: "completed", content: [{ type: "output_text", text: t, annotations: [] }] });

// Gemini generateContent.
function gemini(r, res, stream) {
  const offered = (r.tools || []).flatMap((t) => t.functionDeclarations || []).map((f) => f.name);
  const contents = r.contents || [];
  if (!ofScript(offered)) return geminiReply(res, stream, [{ text: "ok" }]);
  const parts = contents.flatMap((c) => c.parts || []);
  const done = parts.filter((p) => p.functionResponse).length;
  const lastModel = contents.findLastIndex((c) => c.role === "model");
  const fresh = [];
  for (const c of contents.slice(lastModel + 1)) {
    for (const p of c.parts || []) fresh.push(p.functionResponse ? text(p.functionResponse.response) : text(p));
  }
  record(done, "gemini", fresh);
  if (done < steps.length) {
    const s = steps[done];
    return geminiReply(res, stream, [{ functionCall: { name: pick(offered, s.tool), args: s.args } }]);
  }
  geminiReply(res, stream, [{ text: "done" }]);
}

const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    let r = {};
    try { r = JSON.parse(body); } catch {}
    const url = req.url;
    if (process.env.FAKE_TRACE) fs.appendFileSync(process.env.FAKE_TRACE, `${req.method} ${url} ${body.slice(0, 400000)}\n`);
    if (req.method === "GET") {
      return json(res, { object: "list", data: [{ id: "stand-in", object: "model", owned_by: "test" }], models: [{ name: "models/stand-in" }] });
    }
    if (url.includes("count_tokens") || url.includes(":countTokens")) return json(res, { input_tokens: 1, totalTokens: 1 });
    if (url.includes("/messages")) return anthropic(r, res);
    if (url.includes("/responses")) return responses(r, res);
    if (url.includes("/chat/completions")) return chat(r, res);
    if (url.includes(":streamGenerateContent")) return gemini(r, res, true);
    if (url.includes(":generateContent")) return gemini(r, res, false);
    json(res, {});
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
