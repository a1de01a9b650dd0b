package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// git runs git in dir.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestWorktrees: a repository, two worktrees git worktree add made (one
// beside it, one inside another directory), and directories under each:
// all name the same common directory; each its own top; the main work
// tree is not linked, the others are; a directory in no repository has
// no tree.
func TestWorktrees(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(base, "repo")
	if err := os.MkdirAll(filepath.Join(repo, "pkg", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, "pkg", "sub", "a.go"), []byte("package sub\n"), 0o644)
	git(t, repo, "init", "-q")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-qm", "one")
	git(t, repo, "worktree", "add", "-q", "-b", "two", filepath.Join(base, "two"))
	git(t, repo, "worktree", "add", "-q", "-b", "three", filepath.Join(base, "elsewhere", "three"))

	common := filepath.Join(repo, ".git")
	for _, c := range []struct {
		dir, top string
		linked   bool
	}{
		{repo, repo, false},
		{filepath.Join(repo, "pkg", "sub"), repo, false},
		{filepath.Join(base, "two"), filepath.Join(base, "two"), true},
		{filepath.Join(base, "two", "pkg", "sub"), filepath.Join(base, "two"), true},
		{filepath.Join(base, "elsewhere", "three", "pkg"), filepath.Join(base, "elsewhere", "three"), true},
	} {
		tree, ok, err := Of(c.dir)
		if err != nil || !ok || tree.Top != c.top || tree.CommonDir != common || tree.Linked() != c.linked {
			t.Errorf("Of(%s) = %+v, %v, %v; want top %s, common %s, linked %v", c.dir, tree, ok, err, c.top, common, c.linked)
		}
	}
	if tree, ok, err := Of(filepath.Join(base, "elsewhere")); ok || err != nil {
		t.Errorf("a directory in no repository: %+v %v %v", tree, ok, err)
	}

	// A .git file that names nothing, or is not git's, is an error.
	bad := filepath.Join(base, "bad")
	os.MkdirAll(bad, 0o755)
	for _, text := range []string{"gitdir: /nonexistent/lspkit/worktree\n", "something else\n"} {
		os.WriteFile(filepath.Join(bad, ".git"), []byte(text), 0o644)
		if tree, ok, err := Of(bad); err == nil {
			t.Errorf(".git saying %q: %+v %v, want an error", text, tree, ok)
		}
	}
}
