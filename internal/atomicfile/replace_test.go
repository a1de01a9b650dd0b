package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

func temp(t *testing.T, path, data string) string {
	t.Helper()
	tmp, err := WriteTemp(path, []byte(data), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return tmp
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReplaceIf: replaced when the file is what the new content was made
// from; refused, the file as it was and no temporary file left, when it
// is not (or when a new file has appeared meanwhile).
func TestReplaceIf(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.go")
	if err := os.WriteFile(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceIf(temp(t, path, "two"), path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "two" {
		t.Fatalf("after a replacement: %q", got)
	}
	err := ReplaceIf(temp(t, path, "three"), path, []byte("one"))
	if !errors.Is(err, ErrChanged) || read(t, path) != "two" {
		t.Fatalf("a replacement made from an older text: %v, the file %q", err, read(t, path))
	}
	fresh := filepath.Join(dir, "new.go")
	if err := ReplaceIf(temp(t, fresh, "made"), fresh, nil); err != nil || read(t, fresh) != "made" {
		t.Fatalf("a new file: %v", err)
	}
	err = ReplaceIf(temp(t, fresh, "again"), fresh, nil)
	if !errors.Is(err, ErrChanged) || read(t, fresh) != "made" {
		t.Fatalf("a new file that exists: %v, %q", err, read(t, fresh))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("left in the directory: %v", entries)
	}
}

// TestReplaceIfRacingWriter: another program writes the file (as editors
// and agents do: a new file renamed over it) after a replacement was
// made from the text before it — every other round between the two, the
// others at the same time as the replacement — 50 times: the replacement
// is never what is left, since the writer's write is newer than what it
// was made from.
func TestReplaceIfRacingWriter(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux swaps two names in one step; elsewhere the comparison leaves a window")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a.go")
	if err := os.WriteFile(path, []byte("start"), 0o644); err != nil {
		t.Fatal(err)
	}
	applied := 0
	for round := range 50 {
		before := []byte(read(t, path))
		writer := fmt.Sprintf("writer %d", round)
		ours := temp(t, path, fmt.Sprintf("ours %d", round))
		write := func() {
			if err := Write(path, []byte(writer), 0o644); err != nil {
				t.Error(err)
			}
		}
		var wg sync.WaitGroup
		if round%2 == 0 {
			write()
		} else {
			wg.Go(write)
		}
		err := ReplaceIf(ours, path, before)
		wg.Wait()
		if err == nil {
			applied++
		} else if !errors.Is(err, ErrChanged) {
			t.Fatal(err)
		}
		if got := read(t, path); got != writer {
			t.Fatalf("round %d: the file holds %q, not the writer's newer %q (replacement: %v)", round, got, writer, err)
		}
	}
	t.Logf("%d of 50 replacements went first and were written over by the writer; the others were refused", applied)
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left in the directory: %v", entries)
	}
}
