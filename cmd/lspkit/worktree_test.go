//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestSharedWorktrees: agents in two worktrees of one repository
// (git worktree add) share one shared daemon, each worktree its own root
// with its own server: the same file, broken in one and fixed in the
// other, checked from both at once for 50 rounds, is each worktree's own
// every time, and no answer names the other worktree. lspkit status in
// either names the other. Then `git worktree remove` of the second, while
// the first goes on checking: its server stops within a few seconds, the
// first is not disturbed, and its client is told why it is no longer
// served.
func TestSharedWorktrees(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo, runtime := sharedFixture(t, "shared-plain", 300)
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
	if sa, sb := a.status()["fake"], b.status()["fake"]; sa.Root != repo || sb.Root != second || sa.ServerPID == 0 || sa.ServerPID == sb.ServerPID {
		t.Fatalf("each worktree's server: %+v and %+v, want one each, in its worktree", sa, sb)
	}
	var hover api.HoverResult
	b.must("lsp/hover", map[string]any{"file": "a.fk", "line": 1, "character": 1}, &hover)
	if hover.Content == nil || !strings.Contains(*hover.Content, "fixed here") {
		t.Fatalf("the second worktree's hover: %v", hover.Content)
	}
	if out := statusIn(t, second, runtime); !strings.Contains(out, fmt.Sprintf("shared daemon: pid %d since ", pid)) ||
		!strings.Contains(out, "it serves "+repo+" too (other worktrees of the repository)") || strings.Count(out, "\nfake ") != 1 {
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
	gone(t, serverB, servertest.Scale(10*time.Second))
	t.Logf("the removed worktree's server exited %d ms after git worktree remove", time.Since(removed).Milliseconds())
	var res api.CheckResult
	a.must("lsp/check", map[string]any{"filePath": "a.fk"}, &res)
	if !res.Checked || len(res.Diagnostics) != 1 || a.status()["fake"].ServerPID == serverB {
		t.Fatalf("the first worktree after the second's removal: %+v", res)
	}
	if err := b.call("lsp/check", map[string]any{"filePath": "a.fk"}, &res); err == nil || !strings.Contains(err.Error(), "not a directory on disk") {
		t.Fatalf("a check in the removed worktree: %+v, %v; want an error saying it is gone", res, err)
	}
}
