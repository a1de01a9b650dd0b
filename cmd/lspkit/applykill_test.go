// Linux only, as the other end-to-end tests.

//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/lspkit/lspkit/service/api"
)

// TestApplyEditsKilled: the daemon killed (SIGKILL) in the middle of
// lsp/applyEdits — before any file is replaced, after each number of files
// replaced, and after all — leaves every file wholly as it was or wholly
// as the edit made it, never torn; a daemon started after on the same tree
// applies the same edits. Each round kills at its own point: the daemon
// is killed as soon as the files on disk show it got there (the edits
// give each file a new size), not after a guessed time.
func TestApplyEditsKilled(t *testing.T) {
	const files = 4
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"lspkit.json": noInstall("")})
	name := func(i int) string { return fmt.Sprintf("f%d.txt", i) }
	// Large enough that writing them takes a while; below the check's file
	// limit. No server checks .txt: "always" writes them, noting so.
	oldText := func(i int) string { return strings.Repeat(fmt.Sprintf("old text of file %d\n", i), 20000) }
	newText := func(i int) string { return strings.Repeat(fmt.Sprintf("new text of file %d, longer\n", i), 20000) }
	rounds := files + 2 // one per kill point
	for round := range rounds {
		for i := range files {
			if err := os.WriteFile(filepath.Join(root, name(i)), []byte(oldText(i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d := startDaemon(t, root)
		var edits []api.FileEdit
		for i := range files {
			text := newText(i)
			edits = append(edits, api.FileEdit{File: name(i), Text: &text})
		}
		// Kill point: -1 at the first temporary file, k ≥ 0 once k files
		// have their new size.
		kill := round%(files+2) - 1
		done := make(chan error, 1)
		go func() {
			var res api.ApplyEditsResult
			done <- d.call("lsp/applyEdits", api.ApplyEditsParams{Edits: edits, When: api.WhenAlways}, &res)
		}()
		killed := false
	watch:
		for {
			select {
			case <-done:
				break watch // applied before the kill point was seen
			default:
			}
			if reached(t, root, files, name, len(newText(0)), kill) {
				d.proc.Kill()
				killed = true
				<-done
				break
			}
			runtime.Gosched()
		}
		if killed {
			<-d.proc.Done()
			if es := d.proc.Exit(); es.Signal != syscall.SIGKILL {
				t.Fatalf("round %d: the daemon was not killed: %s", round, es)
			}
		}
		newCount := 0
		for i := range files {
			data, err := os.ReadFile(filepath.Join(root, name(i)))
			if err != nil {
				t.Fatalf("round %d (kill point %d): %v", round, kill, err)
			}
			switch string(data) {
			case oldText(i):
			case newText(i):
				newCount++
			default:
				t.Fatalf("round %d (kill point %d): %s is torn: %d bytes, neither its old text (%d) nor its new (%d)", round, kill, name(i), len(data), len(oldText(i)), len(newText(i)))
			}
		}
		t.Logf("round %d: kill point %d, killed %v: %d of %d files new", round, kill, killed, newCount, files)
		removeTemps(t, root)
	}
	// After all that, a daemon applies the edits whole.
	d := startDaemon(t, root)
	var edits []api.FileEdit
	for i := range files {
		text := newText(i) + "again\n"
		edits = append(edits, api.FileEdit{File: name(i), Text: &text})
	}
	var res api.ApplyEditsResult
	d.must("lsp/applyEdits", api.ApplyEditsParams{Edits: edits, When: api.WhenAlways}, &res)
	if !res.Applied {
		t.Fatalf("not applied after the kills: %+v", res)
	}
}

// reached reports whether the apply under way in root got to kill point
// k: -1, a temporary file of the write exists; k ≥ 0, k files have the
// new size.
func reached(t *testing.T, root string, files int, name func(int) string, newSize, k int) bool {
	t.Helper()
	if k < 0 {
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.Contains(e.Name(), ".lspkit-") {
				return true
			}
		}
		return false
	}
	n := 0
	for i := range files {
		if info, err := os.Stat(filepath.Join(root, name(i))); err == nil && info.Size() == int64(newSize) {
			n++
		}
	}
	return n >= k
}

// removeTemps removes what a killed write left: its temporary files beside
// the files (each holds a whole text, old or new, never the file).
func removeTemps(t *testing.T, root string) {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".lspkit-") {
			os.Remove(filepath.Join(root, e.Name()))
		}
	}
}
