package features

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/internal/atomicfile"
)

// TestWriteFilesAtomic: an edit of several files is written as one step —
// a file changed on disk since the edit was made stops it before anything
// is replaced, and a replacement that fails puts back the files already
// replaced; either way every file is as it was, no temporary file is left,
// and the error names the file.
func TestWriteFilesAtomic(t *testing.T) {
	dir := t.TempDir()
	var files []fileEdit
	for _, name := range []string{"a.go", "b.go", "c.go"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("old "+name), 0o640); err != nil {
			t.Fatal(err)
		}
		files = append(files, fileEdit{path: path, rel: name, old: "old " + name, new: "new " + name, edits: 1})
	}
	unchanged := func(t *testing.T) {
		t.Helper()
		for _, f := range files {
			data, err := os.ReadFile(f.path)
			if err != nil || string(data) != f.old {
				t.Errorf("%s: %q %v, want it as it was", f.rel, data, err)
			}
		}
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if want := []string{"a.go", "b.go", "c.go"}; !slices.Equal(names, want) {
			t.Errorf("the directory holds %v, want %v", names, want)
		}
	}

	t.Run("changed on disk", func(t *testing.T) {
		files := slices.Clone(files)
		files[1].old = "what the server saw"
		err := replaceFiles(files, "the fixes", nil)
		if err == nil || !strings.Contains(err.Error(), "b.go on disk is not the text") || !strings.Contains(err.Error(), "nothing was written") {
			t.Fatalf("err = %v", err)
		}
		unchanged(t)
	})

	t.Run("a replacement fails", func(t *testing.T) {
		renames := 0
		failing := func(tmp, path string, old []byte) error {
			renames++
			if filepath.Base(path) == "c.go" {
				os.Remove(tmp)
				return errors.New("disk full")
			}
			return atomicfile.ReplaceIf(tmp, path, old)
		}
		err := replaceFiles(files, "the fixes", failing)
		if err == nil || !strings.Contains(err.Error(), "replace c.go: disk full") || !strings.Contains(err.Error(), "put back") {
			t.Fatalf("err = %v", err)
		}
		if renames != 5 { // a, b, c (fails), then a and b put back
			t.Errorf("%d renames, want 5", renames)
		}
		unchanged(t)
		for _, f := range files {
			if runtime.GOOS == "windows" {
				break // no Unix permission bits to keep
			}
			if info, err := os.Stat(f.path); err != nil || info.Mode().Perm() != 0o640 {
				t.Errorf("%s: mode %v %v, want 0640 kept", f.rel, info.Mode(), err)
			}
		}
	})

	t.Run("written", func(t *testing.T) {
		if err := replaceFiles(files, "the fixes", nil); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if data, _ := os.ReadFile(f.path); string(data) != f.new {
				t.Errorf("%s: %q, want %q", f.rel, data, f.new)
			}
		}
	})
}
