//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// conformFake runs `lspkit conform` on a fake server (this test binary,
// re-executed with LSPKIT_FAKE=behavior) and returns its exit status,
// stdout and stderr.
func conformFake(t *testing.T, behavior string, extra ...string) (int, string, string) {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.fk": "héllo 🙂 world\nworld ERROR\n"})
	exe, _ := os.Executable()
	args := append([]string{"conform", "--root", root, "--file", "a.fk", "--timeout", "3s"}, extra...)
	cmd := exec.Command(lspkitBin, append(args, "--", exe)...)
	cmd.Env = append(os.Environ(), "LSPKIT_FAKE="+behavior)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("lspkit conform hung on %s", behavior)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestConformExitStatus: 0 for a server that keeps the protocol, 1 with
// the card for one that breaks it, 2 (and no card) when the server cannot
// be scored — missing, unknown, not starting, hanging before initialize
// answers; a server that crashes mid-session gets a card that says where
// the session stopped and counts the request it left unanswered; one that
// writes a frame of garbage gets it on the card; one flooding stderr is
// scored as any other. --json prints the card as data; --transcript scores a
// recording of a session.
func TestConformExitStatus(t *testing.T) {
	t.Parallel()
	t.Run("clean", func(t *testing.T) {
		t.Parallel()
		code, out, errOut := conformFake(t, "conform-ok", "--timeout", "30s") // a loaded machine's answers are not violations
		if code != 0 || !strings.Contains(out, "Score **") || !strings.Contains(out, "| types: server messages | pass |") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
	})
	t.Run("flood", func(t *testing.T) {
		t.Parallel()
		if code, out, errOut := conformFake(t, "conform-flood", "--timeout", "30s"); code != 0 {
			t.Fatalf("exit %d\n%s\n%.500s", code, out, errOut)
		}
	})
	t.Run("liar", func(t *testing.T) {
		t.Parallel()
		transcript := filepath.Join(t.TempDir(), "liar.jsonl")
		code, out, errOut := conformFake(t, "conform-liar", "--json", "--record", transcript)
		var card struct {
			Rows []struct {
				Check, Verdict string
				Count          int
			}
		}
		if code != 1 || json.Unmarshal([]byte(out), &card) != nil {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		failed := 0
		for _, r := range card.Rows {
			if r.Verdict == "fail" {
				failed++
			}
		}
		if failed < 14 {
			t.Fatalf("%d checks fail, want every one the liar breaks:\n%s", failed, out)
		}
		// The recording scores offline: the message checks fail again
		// (the exit status and timings are live facts).
		cmd := exec.Command(lspkitBin, "conform", "--transcript", transcript)
		offline, err := cmd.Output()
		if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(offline), "| direction | fail |") {
			t.Fatalf("--transcript: %v\n%s", err, offline)
		}
	})
	t.Run("crash", func(t *testing.T) {
		t.Parallel()
		code, out, errOut := conformFake(t, "conform-crash")
		if code != 1 || !strings.Contains(out, "The session stopped early: at textDocument/hover: the server ended") || !strings.Contains(out, "textDocument/hover never answered: the server ended") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		t.Parallel()
		code, out, errOut := conformFake(t, "conform-garbage")
		if code != 1 || !strings.Contains(out, "an unreadable message: jsontext: invalid character") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
	})
	t.Run("hang", func(t *testing.T) {
		t.Parallel()
		code, out, errOut := conformFake(t, "conform-hang-init", "--timeout", "1s") // initialize gets 6 s
		if code != 2 || out != "" || !strings.Contains(errOut, "could not run the server") || !strings.Contains(errOut, "initialize") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		// The hung server did not outlive lspkit conform.
		if pids := fakesAlive("conform-hang-init"); len(pids) > 0 {
			t.Fatalf("the hung server is still running: %v", pids)
		}
	})
	for name, args := range map[string][]string{
		"unknown id":     {"conform", "no-such-server"},
		"not starting":   {"conform", "--root", ".", "--file", "conform_test.go", "--", "/no/such/server"},
		"no server":      {"conform"},
		"half workspace": {"conform", "--file", "a.go", "gopls"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(lspkitBin, args...)
			out, _ := cmd.CombinedOutput()
			if cmd.ProcessState.ExitCode() != 2 || !strings.HasPrefix(string(out), "lspkit conform: ") || strings.Count(string(out), "\n") != 1 {
				t.Fatalf("exit %d: %s", cmd.ProcessState.ExitCode(), out)
			}
		})
	}
}

// fakesAlive lists the live processes running the fake server behavior
// (their environment says LSPKIT_FAKE=behavior), where /proc tells.
func fakesAlive(behavior string) []string {
	var pids []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil || !bytes.Contains(env, []byte("LSPKIT_FAKE="+behavior+"\x00")) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(dir, "stat")); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				continue // a zombie is dead
			}
		}
		pids = append(pids, filepath.Base(dir))
	}
	return pids
}
