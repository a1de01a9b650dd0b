package hostconfig

import (
	"fmt"
	"path/filepath"
	"strings"
)

// hookTimeout is the time each host gives lspkit's hook, in seconds: past
// the burst's own bound (burstTimeoutMs, 60 s by default), which ends the
// check and says what it could not check.
const hookTimeout = 120

// hookCommand is lspkit's hook command for host, with the event name for
// the hosts that do not put it in their payload.
func hookCommand(o Options, host string, event ...string) string {
	args := []string{o.Command, "hook", host}
	if o.Each {
		args = append(args, "--each")
	}
	if o.NoGrepHint && host == "claude-code" {
		args = append(args, "--no-grep-hint")
	}
	return shellJoin(append(args, event...))
}

// claudeShapeHooks are the hook edits of the hosts whose hooks take Claude
// Code's shape (settings.json's "hooks": event → [{matcher, hooks:
// [{type, command, timeout}]}]): before and after every tool (matcher),
// and at the end of the turn (stop), each running lspkit's hook for host.
func claudeShapeHooks(o Options, host, file string, path []string, before, after, stop, matcher string, timeout int) []edit {
	entry := func(withMatcher bool) map[string]any {
		e := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hookCommand(o, host), "timeout": timeout}}}
		if withMatcher {
			e["matcher"] = matcher
		}
		return e
	}
	ours := " hook " + host
	return []edit{
		{file: file, path: append(path, before), appendTo: true, ours: ours, value: entry(true)},
		{file: file, path: append(path, after), appendTo: true, ours: ours, value: entry(true)},
		{file: file, path: append(path, stop), appendTo: true, ours: ours, value: entry(false)},
	}
}

// hookEdits are the edits that give host lspkit's hooks (none for a host
// without them): the host's own events before and after each tool and at
// the end of the model's turn.
func hookEdits(o Options, host string) []edit {
	if o.NoHooks || o.URL != "" {
		return nil
	}
	switch host {
	case "claude-code":
		return claudeShapeHooks(o, host, filepath.Join(o.Root, ".claude", "settings.json"), []string{"hooks"}, "PreToolUse", "PostToolUse", "Stop", "*", hookTimeout)
	case "codex":
		return claudeShapeHooks(o, host, filepath.Join(o.Root, ".codex", "hooks.json"), []string{"hooks"}, "PreToolUse", "PostToolUse", "Stop", "*", hookTimeout)
	case "gemini":
		return claudeShapeHooks(o, host, filepath.Join(o.Root, ".gemini", "settings.json"), []string{"hooks"}, "BeforeTool", "AfterTool", "AfterAgent", ".*", hookTimeout*1000)
	case "qwen":
		return claudeShapeHooks(o, host, filepath.Join(o.Root, ".qwen", "settings.json"), []string{"hooks"}, "PreToolUse", "PostToolUse", "Stop", "*", hookTimeout)
	case "droid":
		// Droid reads a project's hooks from its settings.json.
		return claudeShapeHooks(o, host, filepath.Join(o.Root, ".factory", "settings.json"), []string{"hooks"}, "PreToolUse", "PostToolUse", "Stop", "*", hookTimeout)
	case "copilot":
		file := filepath.Join(o.Root, ".github", "hooks", "lspkit.json")
		var out []edit
		for _, event := range []string{"preToolUse", "postToolUse", "agentStop"} {
			cmd := hookCommand(o, host, event)
			out = append(out, edit{file: file, path: []string{"hooks", event}, appendTo: true, ours: " hook copilot", initial: `{"version": 1}`,
				value: map[string]any{"type": "command", "bash": cmd, "powershell": cmd, "timeoutSec": hookTimeout}})
		}
		return out
	case "cursor":
		file := filepath.Join(o.Root, ".cursor", "hooks.json")
		var out []edit
		for _, event := range []string{"beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "afterFileEdit", "stop"} {
			out = append(out, edit{file: file, path: []string{"hooks", event}, appendTo: true, ours: " hook cursor", initial: `{"version": 1}`,
				value: map[string]any{"command": hookCommand(o, host)}})
		}
		return out
	case "opencode":
		return []edit{{file: filepath.Join(o.Root, ".opencode", "plugins", "lspkit.js"), whole: plugin(o, host)}}
	case "kilo":
		return []edit{{file: filepath.Join(o.Root, ".kilo", "plugins", "lspkit.js"), whole: plugin(o, host)}}
	}
	return nil
}

// hookStep is what the user still has to do for host's hooks, or "".
func hookStep(o Options, host string) string {
	if o.NoHooks || o.URL != "" {
		return ""
	}
	switch host {
	case "codex":
		return "Codex runs a project's hooks only once each is trusted: open /hooks in Codex in " + o.Root + " and trust lspkit's three (Codex asks again after any change to them)."
	case "cursor":
		return "Cursor reads .cursor/hooks.json when it starts (its editor and cursor-agent; lspkit's entry follows Cursor's documented shape: Cursor is not on npm and was not run here)."
	}
	return ""
}

// pluginMarker begins the plugin file lspkit writes: a file that starts
// otherwise is the user's.
const pluginMarker = "// lspkit's plugin"

// plugin is lspkit's plugin for opencode or Kilo: it tells `lspkit hook
// HOST` of each tool call (before it runs, with its arguments; after),
// appends what lspkit says to the tool's output, which the model reads,
// and when the session goes idle with errors its turn introduced, prompts
// it again with them, once (lspkit counts).
func plugin(o Options, host string) string {
	args := []string{o.Command, "hook", host}
	if o.Each {
		args = append(args, "--each")
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	return pluginMarker + ` for ` + host + ` (lspkit init --host ` + host + ` wrote it): it tells lspkit of the
// model's tool calls and hands the model what its edits broke — with the
// result of the next tool that edits nothing, and, when the session goes
// idle with errors its turn introduced, as a prompt, once.
import { spawn } from "node:child_process";

const command = [` + strings.Join(quoted, ", ") + `];

// ask runs lspkit's hook with one event and returns its answer ({} when
// lspkit has nothing to say or cannot be run).
function ask(event) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      return resolve({});
    }
    child.on("error", () => resolve({}));
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("close", () => {
      try {
        resolve(JSON.parse(out || "{}"));
      } catch {
        resolve({});
      }
    });
    child.stdin.end(JSON.stringify(event));
  });
}

export const Lspkit = async ({ client, directory }) => {
  const args = new Map(); // a call's arguments, from before it ran
  return {
    "tool.execute.before": async (input, output) => {
      args.set(input.callID, output.args);
      await ask({ event: "before", tool: input.tool, sessionID: input.sessionID, args: output.args, directory });
    },
    "tool.execute.after": async (input, output) => {
      const called = args.get(input.callID);
      args.delete(input.callID);
      const answer = await ask({ event: "after", tool: input.tool, sessionID: input.sessionID, args: called, directory });
      if (answer.context && typeof output.output === "string") output.output += "\n\n" + answer.context;
    },
    event: async ({ event }) => {
      if (event.type !== "session.idle") return;
      const sessionID = event.properties.sessionID;
      const answer = await ask({ event: "idle", sessionID, directory });
      if (answer.hold) await client.session.promptAsync({ path: { id: sessionID }, body: { parts: [{ type: "text", text: answer.hold }] } });
    },
  };
};
`
}
