// The end-to-end tests drive the built binary and read /proc: Linux only
// (the other systems are covered by cross-compiled builds and vets).

//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/internal/servertest"
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
// working directory (a killed server may take a moment to leave the
// table; on a loaded machine, many: the limit is generous and scales).
// What is left is named, command line and parent, so that a leak says
// whose it is.
func noProcessesIn(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(servertest.Scale(30 * time.Second))
	for {
		left := processesIn(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var named []string
			for _, pid := range left {
				named = append(named, describeProcess(pid))
			}
			t.Fatalf("processes left in %s:\n%s", dir, strings.Join(named, "\n"))
		}
		time.Sleep(10 * time.Millisecond) // polling the process table: no event exists for another process's exit
	}
}

// describeProcess is pid, its state, its parent and its command line.
func describeProcess(pid string) string {
	cmdline, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
	status, _ := os.ReadFile(filepath.Join("/proc", pid, "status"))
	var state, ppid string
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "State:"); ok {
			state = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			ppid = strings.TrimSpace(v)
		}
	}
	return fmt.Sprintf("  %s (%s, parent %s): %s", pid, state, ppid, strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "))
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

// TestCLICheck: findings, clean and the JSON report against gopls; the
// severity flag widens the configured default.
func TestCLICheck(t *testing.T) {
	t.Parallel()
	serversEnv(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":      goMod,
		"bad.go":      "package demo\n\nvar X int = \"s\"\n",
		"good.go":     "package demo\n\nvar Y = 1\n",
		"vet/vet.go":  "package vet\n\nimport \"fmt\"\n\nfunc P() { fmt.Printf(\"%d\\n\", \"x\") }\n",
		"notes.xyz":   "not code\n",
		"lspkit.json": noInstall(""),
	})
	out, errOut, code := lspkit(t, root, "check", "bad.go")
	if code != 1 || out != "bad.go:3:13: error: cannot use \"s\" (untyped string constant) as int value in variable declaration [compiler]\n" {
		t.Fatalf("bad.go: exit %d\n%s\n%s", code, out, errOut)
	}
	noProcessesIn(t, root)
	// go vet's printf finding is a warning: clean at the default
	// severities, a finding when warnings are asked for. (gopls runs the
	// analyzers on packages without type errors: vet is its own package.)
	if out, errOut, code = lspkit(t, root, "check", "good.go", "vet/vet.go"); code != 0 || out != "" {
		t.Fatalf("good.go vet/vet.go: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = lspkit(t, root, "check", "--severity", "error,warning", "vet/vet.go")
	if code != 1 || !strings.Contains(out, "vet/vet.go:5:") || !strings.Contains(out, "warning: fmt.Printf format %d has arg") {
		t.Fatalf("--severity error,warning: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = lspkit(t, root, "check", "--json", "bad.go", "good.go", "notes.xyz")
	var report checkReport
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != 1 || len(report.Diagnostics) != 1 || report.Diagnostics[0].File != "bad.go" {
		t.Fatalf("--json: exit %d %v\n%s\n%s", code, err, out, errOut)
	}
	if len(report.Files) != 3 || !report.Files[0].Checked || report.Files[0].File != "bad.go" || len(report.Files[0].Servers) != 1 ||
		report.Files[0].Servers[0].Verdict != api.VerdictSettled || report.Files[2].Checked || !strings.Contains(report.Files[2].Reason, "no language server handles .xyz files") {
		t.Fatalf("--json files: %+v", report.Files)
	}
	if strings.Count(errOut, "notes.xyz") != 1 {
		t.Fatalf("the unchecked file is not named once on stderr:\n%s", errOut)
	}
	noProcessesIn(t, root)
}

// TestCLICheckVerdicts: every way a file goes unchecked has its exit
// status and its own reason, named once; bad input exits 2 and the other
// files are still checked.
func TestCLICheckVerdicts(t *testing.T) {
	t.Parallel()
	root, elsewhere := t.TempDir(), t.TempDir()
	writeFiles(t, root, map[string]string{
		"notes.xyz":   "not code\n",
		"blob.brk":    "\x00\x01binary",
		"a.missing":   "x\n",
		"a.brk":       "x\n",
		"a.hang":      "x\n",
		"dir/a.brk":   "x\n",
		"lspkit.json": noInstall(`,"servers":{"missing":{"command":"lspkit-no-such-server","extensions":[".missing"]},"broken":{"command":"sh","args":["-c","echo the server fell over >&2; exit 3"],"extensions":[".brk"]},"hang":{"command":"sh","args":["-c","exec sleep 60"],"extensions":[".hang"]}}`),
	})
	writeFiles(t, elsewhere, map[string]string{"off/lspkit.json": `{"lsp": false}`, "off/a.go": "package a\n", "out.xyz": "x\n"})
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // on stderr
	}{
		{"no server", []string{"notes.xyz"}, 3, "notes.xyz: not checked: no language server handles .xyz files (configured: "},
		{"binary", []string{"blob.brk"}, 3, "blob.brk: not checked: blob.brk is a binary file"},
		{"unavailable", []string{"a.missing"}, 3, "a.missing: not checked: missing is unavailable: lspkit-no-such-server not found on PATH"},
		{"broken", []string{"a.brk"}, 3, "the server fell over"},
		{"timed out", []string{"--timeout", "300", "a.hang"}, 3, "a.hang: not checked: hang timed out after "},
		{"missing path", []string{"gone.go", "notes.xyz"}, 2, "gone.go: no such file"},
		{"directory", []string{"dir"}, 2, "dir: is a directory"},
		{"outside the root", []string{filepath.Join(elsewhere, "out.xyz")}, 2, "outside the workspace root"},
		{"disabled", []string{"--root", filepath.Join(elsewhere, "off"), filepath.Join(elsewhere, "off", "a.go")}, 3, "not checked: LSP is disabled by configuration"},
	} {
		out, errOut, code := lspkit(t, root, append([]string{"check"}, tc.args...)...)
		if code != tc.code || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d and %q", tc.name, code, out, errOut, tc.code, tc.want)
		}
		// A person reads it: one line per problem, no log records, no
		// server's stderr beyond the line that says why.
		for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
			if !strings.HasPrefix(line, "lspkit check: ") || len(line) > 1500 {
				t.Errorf("%s: stderr has a line that is not one problem's: %q", tc.name, line)
			}
		}
		if tc.name == "missing path" && !strings.Contains(errOut, "notes.xyz: not checked:") {
			t.Errorf("missing path: the other file was not checked: %q", errOut)
		}
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
	servertest.CIOnly(t) // an install from npm and a live server: CI's live pass
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

// TestCLICheckProxyWithoutServer: a server command that is rustup's proxy
// for a component not installed (rustup's default install has no
// rust-analyzer) is answered at once, in one line: not checked, rustup's
// own words, and the command that fixes it — not four restarts, each
// logging rustup's backtrace. The proxy here is a stand-in that says what
// rustup says; doctor calls it missing with the same fix.
func TestCLICheckProxyWithoutServer(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bin := filepath.Join(root, "cargo", "bin")
	writeFiles(t, root, map[string]string{
		"cargo/bin/rustup": "#!/bin/sh\n" +
			"echo \"error: Unknown binary '$(basename \"$0\")' in official toolchain 'stable-x86_64-unknown-linux-gnu'.\" >&2\n" +
			"echo >&2; echo 'Stack backtrace:' >&2\n" +
			"for i in $(seq 0 60); do echo \"  $i: rustup::frame::$i\" >&2; done\n" +
			"exit 1\n",
		"src/main.rsx": "fn main() {}\n",
		"lspkit.json":  noInstall(`,"servers":{"rustish":{"command":` + strconv.Quote(filepath.Join(bin, "rust-analyzer")) + `,"extensions":[".rsx"]}}`),
	})
	if err := os.Chmod(filepath.Join(bin, "rustup"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("rustup", filepath.Join(bin, "rust-analyzer")); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := lspkit(t, root, "check", "src/main.rsx")
	want := "lspkit check: src/main.rsx: not checked: rustish is unavailable: not installed (its command is rustup's proxy: error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'.); fix: rustup component add rust-analyzer\n"
	if code != 3 || out != "" || errOut != want {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, errOut, want)
	}
	out, _, _ = lspkit(t, root, "doctor", "--json")
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	got := server(r, "rustish")
	if got.State != "missing" || got.Hint != "rustup component add rust-analyzer" || !strings.Contains(got.Problem, "Unknown binary 'rust-analyzer'") {
		t.Fatalf("doctor: %+v", got)
	}
	noProcessesIn(t, root)
}

// TestDoctorStopsWhatItStarts: doctor starts each server the root's files
// need once and stops it as a client does — biome's lsp-proxy starts a
// daemon of its own (`biome __run_server`, in a session of its own, out
// of reach of a kill of the proxy's process group) that stops only when
// its client shuts down: nothing is left. A root with JSON files and no
// biome.json does not need biome at all (it runs only where its marker
// is), so doctor does not start it.
func TestDoctorStopsWhatItStarts(t *testing.T) {
	servertest.CIOnly(t)
	t.Parallel()
	servertest.Binary(t, "biome")
	for _, marked := range []bool{true, false} {
		root := t.TempDir()
		files := map[string]string{"a.json": "{\"a\": 1}\n", "lspkit.json": noInstall("")}
		if marked {
			files["biome.json"] = "{}\n"
		}
		writeFiles(t, root, files)
		out, _, _ := lspkit(t, root, "doctor", "--json")
		var r doctorReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("doctor --json: %v\n%s", err, out)
		}
		if got := server(r, "biome"); got.Needed != marked || marked && !strings.HasPrefix(got.Probe, "started in ") {
			t.Errorf("biome.json here: %v; doctor: %+v", marked, got)
		}
		noProcessesIn(t, root)
	}
}
