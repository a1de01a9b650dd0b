//go:build linux

package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/internal/servertest"
)

// TestHook: Claude Code's PostToolUse hook exits 2 with the findings of a
// broken file and 0, silent, for a fixed one, a file no server handles, an
// excluded one, one outside the root, a tool call without a file, and a
// file that is gone; with --shared the same answers come through the
// root's shared daemon.
func TestHook(t *testing.T) {
	t.Parallel()
	serversEnv(t)
	root, elsewhere := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":        goMod,
		"bad.go":        "package demo\n\nvar X int = \"s\"\n",
		"good.go":       "package demo\n\nvar Y = 1\n",
		"README.md":     "# demo\n",
		"gen/skip.go":   "package gen\n\nvar Z int = \"s\"\n",
		"lspkit.json":   noInstall(`,"exclude":["gen/**"]`),
		"sub/notes.txt": "x\n",
	})
	writeFiles(t, elsewhere, map[string]string{"out.go": "package out\n\nvar X int = \"s\"\n"})
	t.Cleanup(func() { // the shared daemon --shared started, and its gopls
		for _, pid := range sharedDaemons(root) {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		noProcessesIn(t, root)
	})
	for _, args := range [][]string{{"hook", "claude-code"}, {"hook", "claude-code", "--shared"}} {
		for _, tc := range []struct {
			file string
			code int
			want string
		}{
			{"bad.go", 2, "LSP errors in bad.go, please fix:\nbad.go:3:13: error: cannot use \"s\" (untyped string constant) as int value in variable declaration [compiler]\n"},
			{filepath.Join(root, "good.go"), 0, ""},
			{"README.md", 0, ""},
			{"go.mod", 0, ""},
			{"sub/notes.txt", 0, ""},
			{"gen/skip.go", 0, ""},
			{filepath.Join(elsewhere, "out.go"), 0, ""},
			{"gone.go", 0, ""},
			{"", 0, ""},
		} {
			payload, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PostToolUse", "tool_name": "Write",
				"tool_input": map[string]any{"file_path": tc.file, "content": "…"}, "tool_response": map[string]any{"success": true}})
			cmd := exec.Command(lspkitBin, args...)
			cmd.Dir, cmd.Stdin = t.TempDir(), bytes.NewReader(payload)
			cmd.Env = append(cmd.Environ(), "CLAUDE_PROJECT_DIR="+root)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tc.code || errb.String() != tc.want || out.Len() != 0 {
				t.Errorf("%v %q: exit %d, stdout %q, stderr %q; want %d and %q", args[2:], tc.file, code, out.String(), errb.String(), tc.code, tc.want)
			}
		}
	}
	_, errOut, code := lspkit(t, root, "hook", "cursor")
	if code != exitUsage || !strings.Contains(errOut, `unknown host "cursor" (expected claude-code)`) {
		t.Errorf("unknown host: exit %d %q", code, errOut)
	}
}

// TestHookGrepHint: on Claude Code's PreToolUse of Grep, `lspkit hook
// claude-code --shared` adds, for a pattern that is a symbol gopls knows,
// the lspkit calls that answer it (exit 0, JSON on stdout, no permission
// decision); it says nothing for a pattern that is no symbol's name, a
// name no symbol has, a name too short, another tool, and without
// --shared.
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
		{"Grep", "Greet", nil, ""},
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
