//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// gitIn runs git in dir, as a user with no configuration of their own.
func gitIn(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func init() {
	fakeServers["shared-folders"] = lsptest.Behavior{Folders: true}
}

// TestSharedWorktrees: agents in two worktrees of one repository
// (git worktree add) share one shared daemon, each worktree its own root:
// the same file, broken in one and fixed in the other, checked from both
// at once for 50 rounds, is each worktree's own every time, and no answer
// names the other worktree. lspkit status in either names the other. Then
// `git worktree remove` of the second, while the first goes on checking:
// the first is not disturbed, and the second's client is told why it is
// no longer served.
//
// A server that does not take workspace folders runs once per worktree:
// the removed worktree's process exits. One that does (as gopls and
// pyright) runs once for both, each worktree a folder of it: the removed
// worktree's folder leaves it, and the process stays for the first.
func TestSharedWorktrees(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, tc := range []struct {
		behavior string
		shared   bool
	}{{"shared-plain", false}, {"shared-folders", true}} {
		t.Run(tc.behavior, func(t *testing.T) {
			t.Parallel()
			sharedWorktrees(t, tc.behavior, tc.shared)
		})
	}
}

func sharedWorktrees(t *testing.T, behavior string, oneProcess bool) {
	repo, runtime := sharedFixture(t, behavior, 300)
	if oneProcess {
		// A server that says it serves several roots as workspace folders
		// (as servers.json says of gopls and pyright).
		cfg, err := os.ReadFile(filepath.Join(repo, "lspkit.json"))
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, repo, map[string]string{"lspkit.json": strings.Replace(string(cfg), `"extensions":`, `"roots":"folders","extensions":`, 1)})
	}
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-qm", "one")
	second := filepath.Join(t.TempDir(), "second")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "second", second)
	writeFiles(t, second, map[string]string{"a.fk": "fixed here\n"})

	a, pid := attach(t, repo, runtime)
	b, pidB := attach(t, second, runtime)
	if pid != pidB {
		t.Fatalf("two worktrees of one repository, two daemons: %d and %d", pid, pidB)
	}
	// The same file, broken in one and fixed in the other, from both at
	// once, round after round.
	errs := make(chan string, 100)
	for round := range 50 {
		var wg sync.WaitGroup
		for _, c := range []struct {
			d     *daemon
			own   string
			other string
			want  int
		}{{a, repo, second, 1}, {b, second, repo, 0}} {
			wg.Go(func() {
				var res api.CheckResult
				if err := c.d.call("lsp/check", map[string]any{"filePath": filepath.Join(c.own, "a.fk")}, &res); err != nil {
					errs <- fmt.Sprintf("round %d, %s: %v", round, c.own, err)
					return
				}
				text := fmt.Sprintf("%+v", res)
				if !res.Checked || len(res.Diagnostics) != c.want || strings.Contains(text, c.other) {
					errs <- fmt.Sprintf("round %d, %s: %s", round, c.own, text)
				}
			})
		}
		wg.Wait()
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	sa, sb := a.status()["fake"], b.status()["fake"]
	if sa.Root != repo || sb.Root != second || sa.ServerPID == 0 || (sa.ServerPID == sb.ServerPID) != oneProcess {
		t.Fatalf("each worktree's server: %+v and %+v, want one process for both: %v", sa, sb, oneProcess)
	}
	if hover := hoverOf(t, b); !strings.Contains(hover, "fixed here") || (oneProcess && !slices.Contains([]string{filepath.Base(repo) + ",second", "second," + filepath.Base(repo)}, serverFolders(hover))) {
		t.Fatalf("the second worktree's hover: %q", hover)
	}
	if out := statusIn(t, second, runtime); !strings.Contains(out, fmt.Sprintf("shared daemon: pid %d since ", pid)) ||
		!strings.Contains(out, "it serves "+repo+" too (other worktrees of the repository)") || strings.Count(out, "\nfake ") != 1 ||
		strings.Contains(out, fmt.Sprintf("pid %d serves 1 other worktree too", sb.ServerPID)) != oneProcess {
		t.Fatalf("lspkit status in the second worktree:\n%s", out)
	}

	// A third worktree no client attached for: its own servers, not
	// running, and the daemon named as serving the others.
	third := filepath.Join(t.TempDir(), "third")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "third", third)
	if out := statusIn(t, third, runtime); !strings.Contains(out, fmt.Sprintf("shared daemon: pid %d serves ", pid)) || !strings.Contains(out, "not this root") ||
		!regexp.MustCompile(`(?m)^fake +\S* +idle`).MatchString(out) {
		t.Fatalf("lspkit status in a worktree the daemon does not serve:\n%s", out)
	}

	// The second worktree removed while the first works.
	serverB := b.status()["fake"].ServerPID
	gitIn(t, repo, "worktree", "remove", "--force", second)
	removed := time.Now()
	if oneProcess {
		// The folder leaves the process the first worktree goes on using.
		deadline := time.Now().Add(servertest.Scale(10 * time.Second))
		for serverFolders(hoverOf(t, a)) != filepath.Base(repo) {
			if time.Now().After(deadline) {
				t.Fatalf("the removed worktree's folder is still on the server: %q", hoverOf(t, a))
			}
			time.Sleep(20 * time.Millisecond) // polling the server's folders: the removal is the daemon's, on its own clock
		}
		t.Logf("the removed worktree's folder left the shared server %d ms after git worktree remove", time.Since(removed).Milliseconds())
	} else {
		gone(t, serverB, servertest.Scale(10*time.Second))
		t.Logf("the removed worktree's server exited %d ms after git worktree remove", time.Since(removed).Milliseconds())
	}
	var res api.CheckResult
	a.must("lsp/check", map[string]any{"filePath": "a.fk"}, &res)
	if !res.Checked || len(res.Diagnostics) != 1 || (a.status()["fake"].ServerPID == serverB) != oneProcess {
		t.Fatalf("the first worktree after the second's removal: %+v (server %d, the removed one's %d)", res, a.status()["fake"].ServerPID, serverB)
	}
	if err := b.call("lsp/check", map[string]any{"filePath": "a.fk"}, &res); err == nil || !strings.Contains(err.Error(), "not a directory on disk") {
		t.Fatalf("a check in the removed worktree: %+v, %v; want an error saying it is gone", res, err)
	}
}

// serverFolders is the folders a fake server's hover names.
func serverFolders(hover string) string {
	_, folders, _ := strings.Cut(hover, "\nfolders: ")
	return folders
}

// hoverOf is the fake server's hover on a.fk's first line, through d.
func hoverOf(t *testing.T, d *daemon) string {
	t.Helper()
	var hover api.HoverResult
	d.must("lsp/hover", map[string]any{"file": "a.fk", "line": 1, "character": 1}, &hover)
	if hover.Content == nil {
		return ""
	}
	return *hover.Content
}

// TestSharedWorktreesLive: two worktrees of a Go + Python repository, an
// agent in each through one shared daemon: one gopls and one pyright
// serve both (each worktree a workspace folder of them). A break made in
// one worktree only — Go in the second, Python in the first — is found in
// that one and never in the other, checked from both at once round after
// round; workspace symbols (which gopls answers from every folder it
// has) and references name only the asking worktree's files. Removing the
// second worktree leaves the first's servers running and answering.
func TestSharedWorktreesLive(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	servertest.Binary(t, "pyright-langserver")
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{
		"go.mod":             goMod,
		"lib.go":             "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n",
		"use.go":             "package demo\n\nfunc Use() string { return Greeting(\"x\") }\n",
		"py/pyproject.toml":  "[project]\nname = \"pkg\"\nversion = \"0\"\n",
		"py/pkg/__init__.py": "",
		"py/pkg/lib.py":      "def greeting(name: str) -> str:\n    return \"hello, \" + name\n",
		"py/pkg/use.py":      "from .lib import greeting\n\nn: str = greeting(\"x\")\n",
		"lspkit.json":        servertest.LiveConfig(""),
		".gitignore":         "__pycache__/\n",
	})
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-qm", "one")
	second := filepath.Join(t.TempDir(), "second")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "second", second)
	writeFiles(t, second, map[string]string{"lib.go": "package demo\n\n// Greeting counts.\nfunc Greeting(name string) int { return len(name) }\n"})
	writeFiles(t, repo, map[string]string{"py/pkg/lib.py": "def greeting(name: str) -> int:\n    return len(name)\n"})
	runtime, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtime) })
	a, _ := attach(t, repo, runtime)
	b, _ := attach(t, second, runtime)

	type agent struct {
		d          *daemon
		own, other string
		want       map[string]int
	}
	agents := []agent{{a, repo, second, map[string]int{"use.go": 0, "py/pkg/use.py": 1}}, {b, second, repo, map[string]int{"use.go": 1, "py/pkg/use.py": 0}}}
	errs := make(chan string, 50*4)
	for round := range 50 {
		var wg sync.WaitGroup
		for _, ag := range agents {
			for file, want := range ag.want {
				wg.Go(func() {
					var res api.CheckResult
					if err := ag.d.call("lsp/check", map[string]any{"filePath": file}, &res); err != nil {
						errs <- fmt.Sprintf("round %d, %s %s: %v", round, ag.own, file, err)
						return
					}
					if text := fmt.Sprintf("%+v", res); !res.Checked || len(res.Diagnostics) != want || strings.Contains(text, ag.other) {
						errs <- fmt.Sprintf("round %d, %s %s: want %d findings: %s", round, ag.own, file, want, text)
					}
				})
			}
		}
		wg.Wait()
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if t.Failed() {
		return
	}
	for _, ag := range agents {
		var syms api.WorkspaceSymbolsResult
		ag.d.must("lsp/workspaceSymbols", map[string]any{"query": "Greeting"}, &syms)
		var refs api.LocationsResult
		ag.d.must("lsp/references", map[string]any{"file": "lib.go", "line": 4, "symbol": "Greeting"}, &refs)
		text := fmt.Sprintf("%+v %+v", syms, refs)
		if len(syms.Symbols) == 0 || len(refs.Locations) == 0 || strings.Contains(text, ag.other) {
			t.Errorf("%s: workspace symbols and references: %s", ag.own, text)
		}
		for _, s := range syms.Symbols {
			if filepath.IsAbs(s.File) {
				t.Errorf("%s: a workspace symbol outside the worktree: %+v", ag.own, s)
			}
		}
	}
	sa, sb := a.status(), b.status()
	for _, id := range []string{"gopls", "pyright"} {
		if sa[id].ServerPID == 0 || sa[id].ServerPID != sb[id].ServerPID {
			t.Errorf("%s: processes %d and %d, want one for both worktrees", id, sa[id].ServerPID, sb[id].ServerPID)
		}
	}

	gitIn(t, repo, "worktree", "remove", "--force", second)
	removed := time.Now()
	deadline := time.Now().Add(servertest.Scale(30 * time.Second))
	for {
		var res api.CheckResult
		if err := b.call("lsp/check", map[string]any{"filePath": "use.go"}, &res); err != nil {
			break // the daemon dropped the removed worktree
		}
		if time.Now().After(deadline) {
			t.Fatal("the removed worktree is still served")
		}
		time.Sleep(50 * time.Millisecond) // the removal is the daemon's finding, on its own clock
	}
	t.Logf("the removed worktree was dropped %d ms after git worktree remove", time.Since(removed).Milliseconds())
	for file, want := range agents[0].want {
		var res api.CheckResult
		a.must("lsp/check", map[string]any{"filePath": file}, &res)
		if !res.Checked || len(res.Diagnostics) != want {
			t.Errorf("the first worktree after the second's removal, %s: %+v", file, res)
		}
	}
	if st := a.status(); st["gopls"].ServerPID != sa["gopls"].ServerPID || st["pyright"].ServerPID != sa["pyright"].ServerPID {
		t.Errorf("the first worktree's servers restarted at the second's removal: %+v, were %+v", st, sa)
	}
}

// TestWorktreeBudgetLive: a shared daemon whose maxMemoryMB is below what
// its servers need, with agents in two worktrees of a Go + TypeScript
// repository: the least recently used idle server is stopped, lspkit
// status says why, and the next check of a file of it answers as before,
// saying it started cold.
func TestWorktreeBudgetLive(t *testing.T) {
	t.Parallel()
	servertest.Binary(t, "gopls")
	servertest.Binary(t, "typescript-language-server")
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := goTSRepo(t)
	// 1 MiB: below any server; it is measured every 10 s.
	writeFiles(t, repo, map[string]string{"lspkit.json": servertest.LiveConfig(`,"maxMemoryMB":1`)})
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-qm", "one")
	second := filepath.Join(t.TempDir(), "second")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "second", second)
	runtime, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtime) })
	a, _ := attach(t, repo, runtime)
	b, _ := attach(t, second, runtime)
	want := map[string]int{"use.go": 1, "web/src/use.ts": 1}
	check := func(d *daemon, file string) api.CheckResult {
		var res api.CheckResult
		d.must("lsp/check", map[string]any{"filePath": file}, &res)
		if !res.Checked || len(res.Diagnostics) != want[file] {
			t.Fatalf("check %s: %+v", file, res)
		}
		return res
	}
	for _, d := range []*daemon{a, b} {
		for file := range want {
			check(d, file)
		}
	}
	// The budget stops idle servers until the total is under it.
	deadline := time.Now().Add(servertest.Scale(60 * time.Second))
	var stopped api.ServerStatus
	var in *daemon
	for in == nil {
		for _, d := range []*daemon{a, b} {
			for _, st := range d.status() {
				if st.Status == api.StatusIdle && strings.Contains(st.Reason, "maxMemoryMB 1") {
					stopped, in = st, d
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no server stopped for the budget: %+v, %+v", a.status(), b.status())
		}
		time.Sleep(100 * time.Millisecond) // the budget measures on its own clock
	}
	t.Logf("stopped: %s in %s: %s", stopped.ID, stopped.Root, stopped.Reason)
	file := map[string]string{"gopls": "use.go", "typescript": "web/src/use.ts"}[stopped.ID]
	res := check(in, file)
	var cold string
	for _, s := range res.Servers {
		if s.ID == stopped.ID {
			cold = s.Cold
		}
	}
	if !strings.Contains(cold, "maxMemoryMB") {
		t.Errorf("the check after the budget stopped %s says cold %q; servers %+v", stopped.ID, cold, res.Servers)
	}
}
