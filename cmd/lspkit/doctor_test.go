//go:build linux

package main

import (
	"maps"
	"slices"

	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/registry"

	"github.com/go-json-experiment/json"
)

// doctorIn runs lspkit doctor --json on root with an empty server store
// and only Go's own directory on PATH (no node, npm or servers), and
// returns its report, its text and its exit status.
func doctorIn(t *testing.T, root string, args ...string) (doctorReport, string, int) {
	t.Helper()
	return doctorEnv(t, root, nil, args...)
}

// doctorEnv is doctorIn with more environment.
func doctorEnv(t *testing.T, root string, extraEnv []string, args ...string) (doctorReport, string, int) {
	t.Helper()
	goExe, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	goBin := filepath.Dir(goExe)
	env := append(append(os.Environ(), "PATH="+goBin, "LSPKIT_SERVERS="+t.TempDir(), "HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir()), extraEnv...)
	run := func(extra ...string) (string, int) {
		cmd := exec.Command(lspkitBin, append(append([]string{"doctor", "--root", root}, extra...), args...)...)
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		if errb.Len() > 0 {
			t.Logf("stderr: %s", errb.String())
		}
		return out.String(), cmd.ProcessState.ExitCode()
	}
	out, code := run("--json")
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	text, textCode := run()
	if textCode != code {
		t.Errorf("doctor exits %d, with --json %d", textCode, code)
	}
	return r, text, code
}

func server(r doctorReport, id string) doctorServer {
	for _, s := range r.Servers {
		if s.ID == id {
			return s
		}
	}
	return doctorServer{}
}

// TestDoctor: doctor says what this root needs and lacks — and only
// that: a Go module whose gopls installs on first need is all well, a
// .luau file without luau-lsp is not (with the hint), TypeScript without
// node names node as the missing toolchain, and a configuration key lspkit
// does not know is named.
func TestDoctor(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": "module m\n", "main.go": "package main\n"})

	r, text, code := doctorIn(t, root)
	if code != 0 || !r.OK || !strings.Contains(text, "all is well") {
		t.Fatalf("a Go module with go on PATH: exit %d, want 0\n%s", code, text)
	}
	if g := server(r, "gopls"); g.State != "installable" || !g.Needed || !strings.Contains(g.Hint, "lspkit install gopls") {
		t.Errorf("gopls = %+v, want installable, needed, with the install hint", g)
	}
	if l := server(r, "luau"); l.State != "missing" || l.Needed || l.Problem != "" {
		t.Errorf("luau with no .luau file = %+v, want missing and no problem", l)
	}
	if r.Toolchains[0].Name != "go" || !strings.HasPrefix(r.Toolchains[0].Version, "go1.") {
		t.Errorf("toolchains = %+v, want go's version first", r.Toolchains)
	}
	if r.Watch.Directories != 1 || r.Watch.Budget != 10000 {
		t.Errorf("watch = %+v, want 1 directory and the default budget", r.Watch)
	}

	writeFiles(t, root, map[string]string{"init.luau": "print(1)\n"})
	r, text, code = doctorIn(t, root)
	if l := server(r, "luau"); code != 1 || l.State != "missing" || !l.Needed || l.Problem == "" || !strings.Contains(text, "! * luau") || !strings.Contains(text, "install luau-lsp") {
		t.Errorf("a .luau file without luau-lsp: exit %d, luau %+v\n%s", code, l, text)
	}
	os.Remove(filepath.Join(root, "init.luau"))

	writeFiles(t, root, map[string]string{"app.ts": "export const x = 1\n"})
	r, text, code = doctorIn(t, root)
	ts := server(r, "typescript")
	var node doctorToolchain
	for _, tc := range r.Toolchains {
		if tc.Name == "node" {
			node = tc
		}
	}
	if code != 1 || ts.State != "missing" || !strings.Contains(ts.Hint, "install node and npm first") || !strings.Contains(node.Problem, "typescript") {
		t.Errorf("TypeScript without node: exit %d, typescript %+v, node %+v\n%s", code, ts, node, text)
	}
	os.Remove(filepath.Join(root, "app.ts"))

	writeFiles(t, root, map[string]string{"lspkit.json": `{"lps": 1, "lsp": {"diagnosticTimout": 5000, "servers": {"gopls": {"cmd": "gopls"}}}}`})
	r, text, code = doctorIn(t, root)
	want := []string{"lps", "lsp.diagnosticTimout", "lsp.servers.gopls.cmd"}
	if code != 1 || strings.Join(r.Config.UnknownKeys, " ") != strings.Join(want, " ") || !strings.Contains(r.Config.Error, "unknown key") ||
		!strings.Contains(text, "! config: unknown key lsp.diagnosticTimout") {
		t.Errorf("unknown keys: exit %d, config %+v, want %v\n%s", code, r.Config, want, text)
	}
	if filepath.Base(r.Config.Source) != "lspkit.json" {
		t.Errorf("config source = %q, want the lspkit.json", r.Config.Source)
	}

	if _, _, code := lspkit(t, root, "doctor", "extra"); code != exitUsage {
		t.Errorf("doctor with an argument: exit %d, want %d", code, exitUsage)
	}
}

// TestDoctorHostBootstrap: what a host's bootstrap set that lspkit did
// not take is named, each a problem (exit 1), beside the configuration in
// force.
func TestDoctorHostBootstrap(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": "module m\n", "main.go": "package main\n"})
	boot := `LSP_BOOTSTRAP={"workspaceRoot": "` + root + `", "config": {"servers": [{"id": "odd", "command": "odd-ls"}], "colour": 1, "diagnosticsTimeoutMs": 5000}}`
	r, text, code := doctorEnv(t, root, []string{boot})
	want := []string{"LSP_BOOTSTRAP config.colour: unknown key",
		"servers.odd: ignored: it names no file types (extensions), and neither its id nor its command odd-ls is a built-in server's"}
	if code != 1 || r.OK || strings.Join(r.Config.Ignored, "\n") != strings.Join(want, "\n") || r.Config.Source != "LSP_BOOTSTRAP" ||
		!strings.Contains(text, "! config: LSP_BOOTSTRAP config.colour: unknown key") {
		t.Errorf("exit %d, config %+v\n%s", code, r.Config, text)
	}
}

// TestWatchFindings: a tree whose watched directories exceed the
// system's limit is a problem with the fix named; beyond the budget it is
// polled, which is said, not a problem.
func TestWatchFindings(t *testing.T) {
	w := watchFindings(50, false, 10000)
	if w.Problem != "" {
		t.Errorf("50 directories: %+v", w)
	}
	w = watchFindings(30000, false, 10000)
	if !strings.Contains(w.Note, "20000 directories are beyond watchBudget 10000") {
		t.Errorf("30000 directories: note %q", w.Note)
	}
	if w.Setting != "" && w.Limit < 10000 && !strings.Contains(w.Problem, "raise it") {
		t.Errorf("limit %d below the budget: problem %q", w.Limit, w.Problem)
	}
}

// TestDoctorNamesEachServer: on a project holding a file of each
// live-tested server's type (and its first root marker), doctor names
// every one of those servers as needed — found, where the suite installed
// it (LSPKIT_REQUIRE_SERVERS=1; CI's live pass, LSPKIT_CI_LIVE=1, for the others).
// One doctor run: it probes every server once.
func TestDoctorNamesEachServer(t *testing.T) {
	t.Parallel()
	specs, err := registry.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	require := os.Getenv("LSPKIT_REQUIRE_SERVERS") == "1"
	ciTier := servertest.CILive()
	root := t.TempDir()
	files := map[string]string{}
	var enable []string
	var tested []string
	for _, id := range slices.Sorted(maps.Keys(specs)) {
		s := specs[id]
		if !s.Tested {
			continue
		}
		tested = append(tested, id)
		if len(s.FileNames) > 0 {
			files[s.FileNames[0]] = "\n"
		} else {
			files["main"+s.Extensions[0]] = "\n"
		}
		if len(s.RootMarkers) > 0 && files[s.RootMarkers[0]] == "" {
			files[s.RootMarkers[0]] = "{}\n"
		}
		if s.DefaultDisabled {
			enable = append(enable, `"`+id+`": {"enabled": true}`)
		}
	}
	files["lspkit.json"] = `{"lsp": {"servers": {` + strings.Join(enable, ", ") + `}}}`
	writeFiles(t, root, files)
	out, _ := exec.Command(lspkitBin, "doctor", "--json", "--root", root).Output() // its exit says whether all is well elsewhere too
	var r doctorReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	for _, id := range tested {
		s := specs[id]
		got := server(r, id)
		if !got.Needed || got.State == "disabled" {
			t.Errorf("%s: doctor says %+v, want it needed", id, got)
			continue
		}
		if require && (s.TestedIn == "" || ciTier) && got.State != "found" {
			t.Errorf("%s is %q (%s), want found: the suite installs it", id, got.State, got.Problem)
		}
	}
}
