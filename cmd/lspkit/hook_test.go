//go:build linux

package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/go-json-experiment/json"
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
