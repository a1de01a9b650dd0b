package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"
)

// The payloads below are the hosts' own, as each ran lspkit's hooks
// (pinned versions, docs/hosts.md), cut to what lspkit reads and a few
// members it does not.

func env(kv ...string) Env {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

// TestRead: each host's events read as lspkit needs them — the tool, the
// files an edit tool writes (apply_patch's from its patch), the text
// before where the host gives it, the session, the project.
func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, host, event, payload string
		env                        Env
		want                       Event
	}{
		{"claude pre edit", ClaudeCode, "", `{"session_id":"s1","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"/p/a.go","old_string":"x","new_string":"y"},"tool_use_id":"t"}`,
			env("CLAUDE_PROJECT_DIR", "/p"), Event{Kind: BeforeTool, Tool: "Edit", Edit: true, Files: []string{"/p/a.go"}, Session: "s1", CWD: "/p", Project: "/p", Answer: ClaudeCode}},
		{"claude post edit", ClaudeCode, "", `{"session_id":"s1","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/p/a.go","content":"y"},"tool_response":{"type":"update","filePath":"/p/a.go","originalFile":"x\n"}}`,
			env(), Event{Kind: AfterTool, Tool: "Write", Edit: true, Files: []string{"/p/a.go"}, Before: map[string]string{"/p/a.go": "x\n"}, Session: "s1", CWD: "/p", Answer: ClaudeCode}},
		{"claude grep", ClaudeCode, "", `{"session_id":"s1","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"\\bGreet\\b"}}`,
			env(), Event{Kind: BeforeTool, Tool: "Grep", Pattern: `\bGreet\b`, Session: "s1", CWD: "/p", Answer: ClaudeCode}},
		{"claude stop", ClaudeCode, "", `{"session_id":"s1","cwd":"/p","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}`,
			env(), Event{Kind: Stop, Session: "s1", CWD: "/p", Answer: ClaudeCode}},
		{"claude batch", ClaudeCode, "", `{"session_id":"s1","hook_event_name":"PostToolBatch","tool_calls":[]}`,
			env(), Event{Kind: Ignored, Session: "s1", Answer: ClaudeCode}},
		{"copilot runs claude's hook", ClaudeCode, "", `{"hook_event_name":"PostToolUse","session_id":"c1","cwd":"/p","tool_name":"Edit","tool_input":{"path":"/p/a.go","old_str":"x","new_str":"y"},"tool_result":{"result_type":"success"}}`,
			env("COPILOT_CLI", "1", "CLAUDE_PROJECT_DIR", "/p"), Event{Kind: AfterTool, Tool: "Edit", Edit: true, Files: []string{"/p/a.go"}, Session: "c1", CWD: "/p", Project: "/p", Answer: Copilot}},
		{"codex apply_patch", Codex, "", `{"session_id":"x1","turn_id":"u1","cwd":"/p","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Add File: b/c.go\n+package b\n*** Delete File: old.go\n*** End Patch\n"},"tool_use_id":"t"}`,
			env(), Event{Kind: BeforeTool, Tool: "apply_patch", Edit: true, Files: []string{"a.go", "b/c.go", "old.go"}, Session: "x1", CWD: "/p", Answer: Codex}},
		{"codex shell", Codex, "", `{"session_id":"x1","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go build ./..."}}`,
			env(), Event{Kind: BeforeTool, Tool: "Bash", Session: "x1", CWD: "/p", Answer: Codex}},
		{"copilot post edit", Copilot, "postToolUse", `{"sessionId":"c1","timestamp":1,"cwd":"/p","toolName":"edit","toolArgs":{"path":"/p/a.go","old_str":"x","new_str":"y"},"toolResult":{"resultType":"success"}}`,
			env("COPILOT_CLI", "1"), Event{Kind: AfterTool, Tool: "edit", Edit: true, Files: []string{"/p/a.go"}, Session: "c1", CWD: "/p", Answer: Copilot}},
		{"copilot args as a string", Copilot, "preToolUse", `{"sessionId":"c1","cwd":"/p","toolName":"create","toolArgs":"{\"path\":\"/p/n.go\",\"file_text\":\"x\"}"}`,
			env(), Event{Kind: BeforeTool, Tool: "create", Edit: true, Files: []string{"/p/n.go"}, Session: "c1", CWD: "/p", Answer: Copilot}},
		{"copilot stop", Copilot, "agentStop", `{"sessionId":"c1","cwd":"/p","stopReason":"end_turn","stop_hook_active":false}`,
			env(), Event{Kind: Stop, Session: "c1", CWD: "/p", Answer: Copilot}},
		{"gemini replace", Gemini, "", `{"session_id":"g1","cwd":"/p","hook_event_name":"AfterTool","tool_name":"replace","tool_input":{"file_path":"/p/a.go","old_string":"x","new_string":"y"},"tool_response":{"llmContent":"ok"}}`,
			env("GEMINI_PROJECT_DIR", "/p"), Event{Kind: AfterTool, Tool: "replace", Edit: true, Files: []string{"/p/a.go"}, Session: "g1", CWD: "/p", Project: "/p", Answer: Gemini}},
		{"gemini after agent", Gemini, "", `{"session_id":"g1","cwd":"/p","hook_event_name":"AfterAgent","prompt":"go","stop_hook_active":false}`,
			env(), Event{Kind: Stop, Session: "g1", CWD: "/p", Answer: Gemini}},
		{"qwen edit", Qwen, "", `{"session_id":"q1","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"edit","tool_input":{"file_path":"/p/a.go"}}`,
			env(), Event{Kind: BeforeTool, Tool: "edit", Edit: true, Files: []string{"/p/a.go"}, Session: "q1", CWD: "/p", Answer: Qwen}},
		{"droid execute", Droid, "", `{"session_id":"d1","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Execute","tool_input":{"command":"ls"},"tool_response":"a.go"}`,
			env(), Event{Kind: AfterTool, Tool: "Execute", Session: "d1", CWD: "/p", Answer: Droid}},
		{"opencode plugin after edit", Opencode, "", `{"event":"after","tool":"edit","sessionID":"o1","args":{"filePath":"/p/a.go","oldString":"x","newString":"y"},"directory":"/p"}`,
			env(), Event{Kind: AfterTool, Tool: "edit", Edit: true, Files: []string{"/p/a.go"}, Session: "o1", CWD: "/p", Project: "/p", Answer: Opencode}},
		{"kilo plugin idle", Kilo, "", `{"event":"idle","sessionID":"k1","directory":"/p"}`,
			env(), Event{Kind: Stop, Session: "k1", CWD: "/p", Project: "/p", Answer: Kilo}},
		{"cursor shell", Cursor, "", `{"conversation_id":"u1","hook_event_name":"beforeShellExecution","workspace_roots":["/p"],"command":"ls"}`,
			env(), Event{Kind: BeforeTool, Session: "u1", Project: "/p", Answer: Cursor}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read(tc.host, tc.event, []byte(tc.payload), tc.env)
			if err != nil {
				t.Fatal(err)
			}
			got.name = ""
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(Event{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if _, err := Read("vim", "", []byte(`{}`), env()); err == nil || !strings.Contains(err.Error(), "claude-code, codex") {
		t.Errorf("an unknown host: %v", err)
	}
	if _, err := Read(Codex, "", []byte(`not json`), env()); err == nil || !strings.Contains(err.Error(), "not codex's JSON") {
		t.Errorf("a payload that is not JSON: %v", err)
	}
}

// TestCursorUndo: Cursor's afterFileEdit names the edits; the text before
// is what undoing them gives.
func TestCursorUndo(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a.go")
	os.WriteFile(file, []byte("package a\n\nfunc A(x int) int { return x + 1 }\n"), 0o644)
	payload, _ := json.Marshal(map[string]any{"conversation_id": "u1", "hook_event_name": "afterFileEdit", "file_path": file,
		"edits": []map[string]string{{"old_string": "func A()", "new_string": "func A(x int)"}, {"old_string": "return 1", "new_string": "return x + 1"}}})
	ev, err := Read(Cursor, "", payload, env())
	if err != nil || !ev.Edit || ev.Kind != AfterTool || ev.Before[file] != "package a\n\nfunc A() int { return 1 }\n" {
		t.Fatalf("%+v %v", ev, err)
	}
}

// TestWrite: each host's answer in its own shape — context after a tool,
// the turn held — and nothing at all when there is nothing to say.
func TestWrite(t *testing.T) {
	for _, tc := range []struct {
		host, event, payload string
		env                  Env
		a                    Answer
		want                 string
	}{
		{ClaudeCode, "", `{"hook_event_name":"PostToolUse","tool_name":"Bash"}`, env(), Answer{Context: "E"}, `{"hookSpecificOutput":{"additionalContext":"E","hookEventName":"PostToolUse"}}`},
		{ClaudeCode, "", `{"hook_event_name":"PreToolUse","tool_name":"Grep"}`, env(), Answer{Context: "H"}, `{"hookSpecificOutput":{"additionalContext":"H","hookEventName":"PreToolUse"}}`},
		{ClaudeCode, "", `{"hook_event_name":"Stop"}`, env(), Answer{Hold: "E"}, `{"decision":"block","reason":"E"}`},
		{ClaudeCode, "", `{"hook_event_name":"PostToolUse","tool_name":"Bash"}`, env("COPILOT_CLI", "1"), Answer{Context: "E"}, `{"additionalContext":"E"}`},
		{Codex, "", `{"hook_event_name":"PostToolUse","tool_name":"Bash"}`, env(), Answer{Context: "E"}, `{"hookSpecificOutput":{"additionalContext":"E","hookEventName":"PostToolUse"}}`},
		{Codex, "", `{"hook_event_name":"Stop"}`, env(), Answer{Hold: "E"}, `{"decision":"block","reason":"E"}`},
		{Copilot, "postToolUse", `{"toolName":"bash"}`, env(), Answer{Context: "E"}, `{"additionalContext":"E"}`},
		{Copilot, "agentStop", `{}`, env(), Answer{Hold: "E"}, `{"decision":"block","reason":"E"}`},
		{Gemini, "", `{"hook_event_name":"AfterTool","tool_name":"run_shell_command"}`, env(), Answer{Context: "E"}, `{"hookSpecificOutput":{"additionalContext":"E","hookEventName":"AfterTool"}}`},
		{Gemini, "", `{"hook_event_name":"AfterAgent"}`, env(), Answer{Hold: "E"}, `{"decision":"deny","reason":"E"}`},
		{Qwen, "", `{"hook_event_name":"Stop"}`, env(), Answer{Hold: "E"}, `{"decision":"block","reason":"E"}`},
		{Droid, "", `{"hook_event_name":"PostToolUse","tool_name":"Execute"}`, env(), Answer{Context: "E"}, `{"hookSpecificOutput":{"additionalContext":"E","hookEventName":"PostToolUse"}}`},
		{Opencode, "", `{"event":"after","tool":"bash"}`, env(), Answer{Context: "E"}, `{"context":"E"}`},
		{Kilo, "", `{"event":"idle"}`, env(), Answer{Hold: "E"}, `{"hold":"E"}`},
		{Cursor, "", `{"hook_event_name":"stop"}`, env(), Answer{Hold: "E"}, `{"followup_message":"E"}`},
		{Cursor, "", `{"hook_event_name":"beforeShellExecution"}`, env(), Answer{}, `{"permission":"allow"}`},
		{ClaudeCode, "", `{"hook_event_name":"PostToolUse","tool_name":"Edit"}`, env(), Answer{}, ``},
		{ClaudeCode, "", `{"hook_event_name":"Stop"}`, env(), Answer{}, ``},
	} {
		ev, err := Read(tc.host, tc.event, []byte(tc.payload), tc.env)
		if err != nil {
			t.Fatal(err)
		}
		out, code := Write(ev, tc.a)
		if got := strings.TrimSpace(string(out)); got != tc.want || code != 0 {
			t.Errorf("%s %s: %q (exit %d), want %q", tc.host, tc.payload, got, code, tc.want)
		}
	}
}

func TestPatchFiles(t *testing.T) {
	patch := "*** Begin Patch\r\n*** Update File: a.go\r\n*** Move to: b.go\r\n@@\r\n-x\r\n+y\r\n*** Update File: a.go\r\n*** End Patch\r\n"
	if got := PatchFiles(patch); !slices.Equal(got, []string{"a.go", "b.go"}) {
		t.Errorf("PatchFiles = %v", got)
	}
}
