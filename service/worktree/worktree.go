// Package worktree says which git repository a directory belongs to: the
// work tree that holds it and the common directory every worktree of the
// repository shares (git worktree add makes a work tree whose .git is a
// file naming its own git directory, which names the common one). The
// shared daemon serves all of a repository's worktrees (each still its own
// root) by this. It reads the files git writes; it runs no git.
package worktree

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A Tree is a git work tree: where it is, and the repository's common
// git directory.
type Tree struct {
	// Top is the work tree's top directory (absolute, symlinks resolved).
	Top string
	// GitDir is its own git directory: the repository's .git for the main
	// work tree, .git/worktrees/NAME for one git worktree add made.
	GitDir string
	// CommonDir is the git directory all of the repository's work trees
	// share (absolute, symlinks resolved).
	CommonDir string
}

// Linked reports whether t is a worktree git worktree add made (not the
// repository's main work tree).
func (t Tree) Linked() bool { return t.GitDir != t.CommonDir }

// Of returns the work tree holding dir (dir itself or its nearest
// ancestor with a .git), and ok false when there is none. An error says a
// .git was found that could not be read as git writes it.
func Of(dir string) (t Tree, ok bool, err error) {
	dir, err = filepath.Abs(dir)
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return Tree{}, false, fmt.Errorf("worktree: %w", err)
	}
	for top := dir; ; {
		t, ok, err := at(top)
		if ok || err != nil {
			return t, ok, err
		}
		parent := filepath.Dir(top)
		if parent == top {
			return Tree{}, false, nil
		}
		top = parent
	}
}

// at reads top/.git: a directory (the main work tree, or a repository of
// its own) or a file "gitdir: PATH" (a linked worktree, or a submodule).
func at(top string) (Tree, bool, error) {
	dotGit := filepath.Join(top, ".git")
	info, err := os.Stat(dotGit)
	if errors.Is(err, fs.ErrNotExist) {
		return Tree{}, false, nil
	}
	if err != nil {
		return Tree{}, false, fmt.Errorf("worktree: %w", err)
	}
	gitDir := dotGit
	if !info.IsDir() {
		data, err := os.ReadFile(dotGit)
		if err != nil {
			return Tree{}, false, fmt.Errorf("worktree: %w", err)
		}
		path, ok := bytes.CutPrefix(bytes.TrimSpace(data), []byte("gitdir:"))
		if !ok {
			return Tree{}, false, fmt.Errorf("worktree: %s is not a directory nor a \"gitdir:\" file", dotGit)
		}
		gitDir = string(bytes.TrimSpace(path))
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(top, gitDir)
		}
	}
	common := gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = string(bytes.TrimSpace(data))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Tree{}, false, fmt.Errorf("worktree: %w", err)
	}
	if gitDir, err = filepath.EvalSymlinks(gitDir); err == nil {
		common, err = filepath.EvalSymlinks(common)
	}
	if err != nil {
		return Tree{}, false, fmt.Errorf("worktree: %s names a git directory that is not there: %w", dotGit, err)
	}
	return Tree{Top: top, GitDir: gitDir, CommonDir: common}, true, nil
}
