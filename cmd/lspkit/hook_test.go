//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
)

func init() {
	fakeServers["hook-linked"] = lsptest.Behavior{Linked: true}
}

// hookFixture is a workspace of the fake "linked" server — lib.fk defines
// F, a.fk and b.fk call it (b.fk with an error of its own) — whose shared
// daemon keeps its socket in a runtime directory of its own.
func hookFixture(t *testing.T) (root, runtime string) {
	t.Helper()
	exe, _ := os.Executable()
	root = t.TempDir()
	writeFiles(t, root, map[string]string{
		"lib.fk":      "def F 1\n",
		"a.fk":        "import lib\ncall F 1\n",
		"b.fk":        "import lib\ncall F 1\nERROR of b's own\n",
		"README.md":   "# x\n",
		"lspkit.json": fmt.Sprintf(`{"lsp":{"autoInstall":false,"servers":{"fake":{"command":%q,"extensions":[".fk"],"impact":"pythonImports","env":{"LSPKIT_FAKE":"hook-linked"}}}}}`, exe),
	})
	runtime, err := os.MkdirTemp("", "rt") // a socket's path must be short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range sharedDaemons(root) {
			syscall.Kill(pid, syscall.SIGTERM)
			gone(t, pid, servertest.Scale(20*time.Second))
		}
		noProcessesIn(t, root)
		os.RemoveAll(runtime)
	})
	return root, runtime
}

// runHook runs `lspkit hook` with args and payload (JSON) in root's
// environment, as a host runs it: the exit status, stdout and stderr.
func runHook(t *testing.T, root, runtime string, payload any, env []string, args ...string) (int, string, string) {
	t.Helper()
	data, _ := json.Marshal(payload)
	cmd := exec.Command(lspkitBin, append([]string{"hook"}, args...)...)
	cmd.Dir, cmd.Stdin = t.TempDir(), bytes.NewReader(data)
	cmd.Env = append(cmd.Environ(), append([]string{"CLAUDE_PROJECT_DIR=" + root, "LSPKIT_RUNTIME_DIR=" + runtime}, env...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// TestHook: `lspkit hook claude-code` through a turn, as Claude Code runs
// it: before and after an edit that breaks lib.fk's callers it says
// nothing (exit 0); before the next tool it says nothing either, and after
// it the model is given the callers that broke — a.fk and b.fk, not b.fk's
// error of its own — once; the turn's end is held once with the list, and
// let go at the second. Files of no server of lspkit's make no burst; a
// payload that is not JSON, an unknown host are usage errors.
func TestHook(t *testing.T) {
	t.Parallel()
	root, runtime := hookFixture(t)
	tool := func(event, name string, input map[string]any) map[string]any {
		return map[string]any{"session_id": "s", "cwd": root, "hook_event_name": event, "tool_name": name, "tool_input": input}
	}
	quiet := func(what string, payload any, env ...string) {
		t.Helper()
		if code, out, errb := runHook(t, root, runtime, payload, env, "claude-code"); code != 0 || out != "" || errb != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 0 and nothing", what, code, out, errb)
		}
	}
	said := func(what string, payload any, env ...string) map[string]any {
		t.Helper()
		code, out, errb := runHook(t, root, runtime, payload, env, "claude-code")
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || errb != "" {
			t.Fatalf("%s: exit %d, stdout %q (%v), stderr %q; want 0 and JSON", what, code, out, err, errb)
		}
		return got
	}
	edit := tool("PreToolUse", "Edit", map[string]any{"file_path": filepath.Join(root, "lib.fk")})
	quiet("before the edit", edit)
	writeFiles(t, root, map[string]string{"lib.fk": "def F 2\n"})
	edit["hook_event_name"] = "PostToolUse"
	quiet("after the edit", edit)
	notes := tool("PreToolUse", "Edit", map[string]any{"file_path": filepath.Join(root, "README.md")})
	quiet("before an edit of a file no server checks", notes)
	bash := tool("PreToolUse", "Bash", map[string]any{"command": "go test ./..."})
	quiet("before the next tool", bash)
	bash["hook_event_name"] = "PostToolUse"
	got := said("after the next tool", bash)
	text, _ := got["hookSpecificOutput"].(map[string]any)["additionalContext"].(string)
	if !strings.Contains(text, `<diagnostics file="a.fk">`) || !strings.Contains(text, `<diagnostics file="b.fk">`) || !strings.Contains(text, "F takes 2 arguments, not 1") || strings.Contains(text, "of b's own") {
		t.Fatalf("after the next tool the model is given:\n%s", text)
	}
	quiet("after another tool (said once)", bash)
	stop := map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "Stop", "stop_hook_active": false}
	if got := said("the end of the turn", stop); got["decision"] != "block" || !strings.Contains(got["reason"].(string), `<diagnostics file="a.fk">`) {
		t.Fatalf("the end of the turn: %v", got)
	}
	quiet("the end of the turn, again", stop)

	// Copilot CLI runs Claude Code's hooks too: its answer after a tool
	// is its own shape.
	writeFiles(t, root, map[string]string{"lib.fk": "def F 1\n"})
	edit["hook_event_name"], edit["session_id"] = "PreToolUse", "c"
	quiet("Copilot: before the edit", edit, "COPILOT_CLI=1")
	writeFiles(t, root, map[string]string{"lib.fk": "def G 1\n"})
	edit["hook_event_name"] = "PostToolUse"
	quiet("Copilot: after the edit", edit, "COPILOT_CLI=1")
	bash["session_id"] = "c"
	if got := said("Copilot: after the next tool", bash, "COPILOT_CLI=1"); !strings.Contains(fmt.Sprint(got["additionalContext"]), "undefined: F") || got["hookSpecificOutput"] != nil {
		t.Fatalf("Copilot's answer after the next tool: %v", got)
	}

	if code, _, errb := runHook(t, root, runtime, "not an object", nil, "claude-code"); code != exitUsage || !strings.Contains(errb, "not claude-code's JSON") {
		t.Errorf("a payload that is not the host's: exit %d %q", code, errb)
	}
	if code, _, errb := runHook(t, root, runtime, map[string]any{}, nil, "vim"); code != exitUsage || !strings.Contains(errb, `unknown host "vim" (expected claude-code, codex`) {
		t.Errorf("unknown host: exit %d %q", code, errb)
	}
}

// TestHookCodexPatch: Codex's apply_patch names its files only in the
// patch, relative to the session's directory; its strict output schema
// takes hookSpecificOutput with hookEventName and additionalContext.
func TestHookCodexPatch(t *testing.T) {
	t.Parallel()
	root, runtime := hookFixture(t)
	patch := "*** Begin Patch\n*** Update File: lib.fk\n@@\n-def F 1\n+def F 3\n*** End Patch\n"
	call := func(event, name string, input map[string]any) map[string]any {
		return map[string]any{"session_id": "x", "turn_id": "t", "cwd": root, "hook_event_name": event, "model": "m", "permission_mode": "default",
			"tool_name": name, "tool_input": input, "tool_use_id": "u", "transcript_path": nil}
	}
	for _, p := range []map[string]any{call("PreToolUse", "apply_patch", map[string]any{"command": patch})} {
		if code, out, _ := runHook(t, root, runtime, p, nil, "codex"); code != 0 || out != "" {
			t.Fatalf("before apply_patch: exit %d %q", code, out)
		}
	}
	writeFiles(t, root, map[string]string{"lib.fk": "def F 3\n"})
	runHook(t, root, runtime, call("PostToolUse", "apply_patch", map[string]any{"command": patch}), nil, "codex")
	runHook(t, root, runtime, call("PreToolUse", "Bash", map[string]any{"command": "ls"}), nil, "codex")
	code, out, _ := runHook(t, root, runtime, call("PostToolUse", "Bash", map[string]any{"command": "ls"}), nil, "codex")
	var got struct {
		Specific map[string]string `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &got, json.RejectUnknownMembers(true)); code != 0 || err != nil || got.Specific["hookEventName"] != "PostToolUse" || len(got.Specific) != 2 ||
		!strings.Contains(got.Specific["additionalContext"], "F takes 3 arguments, not 1") {
		t.Fatalf("after the next tool: exit %d, %q (%v)", code, out, err)
	}
}

// TestHookGrepHint: on Claude Code's PreToolUse of Grep, `lspkit hook
// claude-code` adds, for a pattern that is a symbol gopls knows, the
// lspkit calls that answer it (exit 0, JSON on stdout, no permission
// decision); it says nothing for a pattern that is no symbol's name, a
// name no symbol has, a name too short, another tool, and with
// --no-grep-hint.
func TestHookGrepHint(t *testing.T) {
	t.Parallel()
	serversEnv(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":      goMod,
		"lib.go":      "package demo\n\n// Greet says hello.\nfunc Greet(name string) string { return \"hello, \" + name }\n\n// Counter counts.\ntype Counter struct{ n int }\n\n// Add adds d.\nfunc (c *Counter) Add(d int) int { c.n += d; return c.n }\n",
		"lspkit.json": noInstall(""),
	})
	t.Cleanup(func() {
		for _, pid := range sharedDaemons(root) {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		noProcessesIn(t, root)
	})
	within := "--hint-within=" + servertest.Scale(2*time.Minute).String() // the first lookup starts the daemon and gopls
	for _, tc := range []struct {
		tool, pattern string
		args          []string
		want          string // in the added context; "" for nothing on stdout
	}{
		{"Grep", "Greet", []string{"--shared", within}, `"Greet" is a symbol the language servers know: function Greet (lib.go:4). `},
		{"Grep", `\bAdd\b`, []string{"--shared", within}, `method Counter.Add (lib.go:10)`},
		{"Grep", `func\s+Counter`, []string{"--shared", within}, `mcp__lspkit__lsp_find_references {"symbol": "Counter"}`},
		{"Grep", "hello, ", []string{"--shared", within}, ""},
		{"Grep", "Missing", []string{"--shared", within}, ""},
		{"Grep", "c", []string{"--shared", within}, ""},
		{"Glob", "Greet", []string{"--shared", within}, ""},
		{"Grep", "Greet", []string{"--no-grep-hint", within}, ""},
	} {
		payload, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": tc.tool,
			"tool_input": map[string]any{"pattern": tc.pattern, "output_mode": "content"}})
		cmd := exec.Command(lspkitBin, append([]string{"hook", "claude-code"}, tc.args...)...)
		cmd.Dir, cmd.Stdin = t.TempDir(), bytes.NewReader(payload)
		cmd.Env = append(cmd.Environ(), "CLAUDE_PROJECT_DIR="+root)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 0 || errb.Len() != 0 {
			t.Errorf("%s %q %v: exit %d, stderr %q; want 0 and nothing", tc.tool, tc.pattern, tc.args, code, errb.String())
		}
		if tc.want == "" {
			if out.Len() != 0 {
				t.Errorf("%s %q %v: stdout %q, want nothing", tc.tool, tc.pattern, tc.args, out.String())
			}
			continue
		}
		var got struct {
			Specific map[string]any `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Specific["hookEventName"] != "PreToolUse" || len(got.Specific) != 2 {
			t.Errorf("%q: stdout %q (%v), want hookSpecificOutput with hookEventName and additionalContext alone", tc.pattern, out.String(), err)
			continue
		}
		if text, _ := got.Specific["additionalContext"].(string); !strings.Contains(text, tc.want) {
			t.Errorf("%q: the added context %q does not say %q", tc.pattern, text, tc.want)
		}
	}
}

// TestHookNoDaemon: a hook that cannot reach its daemon tells the model,
// after a tool and once a session, that its edits could not be checked
// and why; never before a tool, and it never holds a turn for that.
func TestHookNoDaemon(t *testing.T) {
	t.Parallel()
	root, _ := hookFixture(t)
	notDir := filepath.Join(t.TempDir(), "file")
	writeFiles(t, filepath.Dir(notDir), map[string]string{"file": "x"})
	session := fmt.Sprintf("no-daemon-%d", time.Now().UnixNano())
	call := func(event, tool string) map[string]any {
		return map[string]any{"session_id": session, "cwd": root, "hook_event_name": event, "tool_name": tool, "tool_input": map[string]any{"file_path": filepath.Join(root, "lib.fk")}}
	}
	if code, out, _ := runHook(t, root, notDir, call("PreToolUse", "Edit"), nil, "claude-code"); code != 0 || out != "" {
		t.Errorf("before an edit, without its daemon: exit %d %q", code, out)
	}
	code, out, errb := runHook(t, root, notDir, call("PostToolUse", "Edit"), nil, "claude-code")
	if code != 0 || !strings.Contains(out, "LSP could not check your edits (lspkit's hook could not reach its daemon)") || !strings.Contains(errb, "runtime directory") {
		t.Errorf("after the edit: exit %d, stdout %q, stderr %q", code, out, errb)
	}
	if code, out, _ := runHook(t, root, notDir, call("PostToolUse", "Bash"), nil, "claude-code"); code != 0 || out != "" {
		t.Errorf("said again: exit %d %q", code, out)
	}
	if code, out, _ := runHook(t, root, notDir, map[string]any{"session_id": session, "cwd": root, "hook_event_name": "Stop"}, nil, "claude-code"); code != 0 || out != "" {
		t.Errorf("the end of the turn without the daemon: exit %d %q", code, out)
	}
}
