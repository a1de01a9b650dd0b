package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/registry"
)

// lspkit runs the built binary in dir and returns stdout, stderr and the
// exit code.
func lspkit(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(lspkitBin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// noProcessesIn waits, up to a deadline, until no process has dir as its
// working directory (a killed server may take a moment to leave the table).
func noProcessesIn(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := processesIn(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left in %s: %v", dir, left)
		}
		time.Sleep(10 * time.Millisecond) // polling the process table: no event exists for another process's exit
	}
}

// processesIn lists the processes whose working directory is dir.
func processesIn(dir string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestCLIUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if out, _, code := lspkit(t, dir, "--version"); code != 0 || !strings.HasPrefix(out, "lspkit ") {
		t.Errorf("--version: %d %q", code, out)
	}
	for _, args := range [][]string{{"--help"}, {"check", "--help"}, {"serve", "-h"}} {
		if out, _, code := lspkit(t, dir, args...); code != 0 || !strings.Contains(out, "Usage:") {
			t.Errorf("%v: %d %q", args, code, out)
		}
	}
	writeFiles(t, dir, map[string]string{"bad.json": `{"lsp": {"servers": {"gopls": {"args": "x"}}}}`})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Usage:"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"check"}, "no FILE given"},
		{[]string{"check", "--bogus", "a.go"}, "flag provided but not defined: -bogus"},
		{[]string{"check", "--severity", "fatal", "a.go"}, `unknown severity "fatal"`},
		{[]string{"check", "--config", "bad.json", "a.go"}, "bad.json: lsp.servers.gopls.args: expected an array of strings"},
		{[]string{"status", "--root", "/nonexistent"}, "root /nonexistent: not a directory"},
		{[]string{"serve", "extra"}, `unexpected argument "extra"`},
	} {
		_, errOut, code := lspkit(t, dir, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || (tc.args != nil && strings.Count(strings.TrimSpace(errOut), "\n") != 0) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestCLICheck(t *testing.T) {
	t.Parallel()
	serversEnv(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":      goMod,
		"bad.go":      "package demo\n\nvar X int = \"s\"\n",
		"good.go":     "package demo\n\nvar Y = 1\n",
		"lspkit.json": noInstall(""),
	})
	out, errOut, code := lspkit(t, root, "check", "bad.go")
	if code != 1 || out != "bad.go:3:13: error: cannot use \"s\" (untyped string constant) as int value in variable declaration [compiler]\n" {
		t.Fatalf("bad.go: exit %d\n%s\n%s", code, out, errOut)
	}
	noProcessesIn(t, root)
	out, errOut, code = lspkit(t, root, "check", "good.go")
	if code != 0 || out != "" {
		t.Fatalf("good.go: exit %d\n%s\n%s", code, out, errOut)
	}
	out, _, code = lspkit(t, root, "check", "--json", "bad.go", "good.go")
	var diags []api.Diagnostic
	if err := json.Unmarshal([]byte(out), &diags); err != nil || code != 1 || len(diags) != 1 || diags[0].File != "bad.go" {
		t.Fatalf("--json: exit %d %v\n%s", code, err, out)
	}
	noProcessesIn(t, root)
}

func TestCLIStatus(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"lspkit.json": `{"lsp": false}`})
	out, _, code := lspkit(t, root, "status")
	if code != 0 || !strings.Contains(out, "LSP disabled by configuration") || !strings.Contains(out, "gopls") {
		t.Fatalf("status: %d\n%s", code, out)
	}
	out, _, code = lspkit(t, root, "status", "--json")
	var sts []api.ServerStatus
	if err := json.Unmarshal([]byte(out), &sts); err != nil || code != 0 || len(sts) < 20 {
		t.Fatalf("status --json: %d %v\n%s", code, err, out)
	}
	for _, s := range sts {
		if s.Status != "disabled" {
			t.Errorf("%s: %s", s.ID, s.Status)
		}
	}
}

// TestAutoInstall: a missing built-in (yaml-language-server, from npm) is
// installed into the user cache on first need, with progress on stderr,
// and then used; without npm the server is unavailable, saying why.
func TestAutoInstall(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	root, cache := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{"a.yaml": "a: [1\n"})
	cmd := exec.Command(lspkitBin, "check", "a.yaml")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "LSPKIT_SERVERS=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	if cmd.ProcessState.ExitCode() != 1 || !strings.HasPrefix(out.String(), "a.yaml:2:1: error: ") {
		t.Fatalf("exit %d\n%s\n%s", cmd.ProcessState.ExitCode(), out.String(), errb.String())
	}
	specs, err := registry.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	if pkgs := strings.Join(specs["yaml"].Install.From.Packages, " "); !strings.Contains(errb.String(), "lspkit: installing yaml ("+pkgs+" into ") || !strings.Contains(errb.String(), "lspkit: installed yaml") {
		t.Fatalf("no progress on stderr:\n%s", errb.String())
	}
	if _, err := os.Stat(filepath.Join(cache, "lspkit", "servers", "bin", "yaml-language-server")); err != nil {
		t.Fatal(err)
	}

	// No npm on PATH: unavailable, and why.
	d := startDaemon(t, root, "XDG_CACHE_HOME="+t.TempDir(), "LSPKIT_SERVERS=", "PATH=/nonexistent")
	var res api.CheckResult
	d.must("lsp/check", map[string]any{"filePath": "a.yaml"}, &res)
	if len(res.Servers) != 1 || res.Servers[0].Verdict != api.VerdictUnavailable || !strings.Contains(res.Servers[0].Reason, "needs npm, and npm is not on PATH") {
		t.Fatalf("servers: %+v", res.Servers)
	}
	if st := d.status()["yaml"]; st.Status != "unavailable" || !strings.Contains(st.Reason, "npm") {
		t.Fatalf("status: %+v", st)
	}
}
