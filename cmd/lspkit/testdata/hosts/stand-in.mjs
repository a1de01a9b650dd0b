// The replies of a stand-in for a model API, in each API's shape and
// streamed (SSE) or not, as asked: the Anthropic Messages API, OpenAI's
// chat completions and Responses, Gemini's generateContent; and text,
// the text of a message's content, whatever its shape. The stand-ins
// (fake-model.mjs, fake-openai.mjs, fake-turns.mjs) decide what to say.
let calls = 0;

// id is a fresh id with prefix.
export const id = (prefix) => `${prefix}${++calls}_${Date.now()}`;

export function text(content) {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(text).join("");
  if (typeof content === "object") {
    if (typeof content.text === "string") return content.text;
    if (content.content !== undefined) return text(content.content);
    if (content.output !== undefined) return text(content.output);
  }
  return JSON.stringify(content);
}

export function anthropicReply(res, stream, content, stopReason) {
  const msg = { id: id("msg_"), type: "message", role: "assistant", model: "claude-stand-in", content, stop_reason: stopReason, stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } };
  if (!stream) return json(res, msg);
  sse(res);
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send("message_start", { message: { ...msg, content: [], stop_reason: null } });
  content.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      send("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 1 } });
  send("message_stop", {});
  res.end();
}

export function chatReply(res, stream, message, finish) {
  const base = { id: id("chatcmpl-"), object: "chat.completion", created: Math.floor(Date.now() / 1000), model: "stand-in" };
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  if (!stream) return json(res, { ...base, choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }], usage });
  sse(res);
  const send = (delta, finish_reason = null, extra = {}) =>
    res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`);
  send({ role: "assistant", content: "" });
  if (message.content) send({ content: message.content });
  (message.tool_calls || []).forEach((c, index) => send({ tool_calls: [{ index, ...c }] }));
  send({}, finish, { usage });
  res.write("data: [DONE]\n\n");
  res.end();
}

export function responsesReply(res, stream, output) {
  const resp = { id: id("resp_"), object: "response", created_at: Math.floor(Date.now() / 1000), model: "stand-in", status: "completed", output,
    usage: { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 } };
  if (!stream) return json(res, resp);
  sse(res);
  let seq = 0;
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  send("response.created", { response: { ...resp, status: "in_progress", output: [] } });
  output.forEach((item, output_index) => {
    send("response.output_item.added", { output_index, item });
    send("response.output_item.done", { output_index, item });
  });
  send("response.completed", { response: resp });
  res.end();
}

export function geminiReply(res, stream, parts) {
  const body = { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 }, modelVersion: "stand-in" };
  if (!stream) return json(res, body);
  sse(res);
  res.write(`data: ${JSON.stringify(body)}\n\n`);
  res.end();
}

export function json(res, body) {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export function sse(res) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
}
