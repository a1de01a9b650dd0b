package filewatch

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/atomicfile"
	"github.com/lspkit/lspkit/protocol"
)

func reg(id, options string) protocol.Registration {
	return protocol.Registration{ID: id, Method: protocol.DidChangeWatchedFilesNotification.Method(), RegisterOptions: []byte(options)}
}

func TestWatchPatterns(t *testing.T) {
	// The paths of the system the test runs on: on Windows a drive, and
	// an absolute glob and a base URI spelled as servers spell them there
	// (a lower-case drive; NTFS names compare without case).
	root, abs, absGlob := "/work/ws", "/abs", "/abs/**/[!x]*.py"
	if runtime.GOOS == "windows" {
		root, abs, absGlob = `C:\work\ws`, `C:\abs`, "c:/abs/**/[!x]*.py"
	}
	path := func(base, rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	uri := func(p string) string {
		u, err := protocol.FileURI(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(u)
	}
	// gopls's two registrations, a TypeScript-style URI base with a kind,
	// and one a server got wrong.
	regs := []protocol.Registration{
		reg("1", `{"watchers":[{"globPattern":"**/*.{mod,work}"}]}`),
		reg("2", `{"watchers":[{"globPattern":{"baseUri":{"uri":"`+uri(root)+`","name":"ws"},"pattern":"**/*.{go,mod,sum,work}"}}]}`),
		reg("3", `{"watchers":[{"globPattern":{"baseUri":"`+uri(path(root, "src"))+`","pattern":"lib?/[a-c]*.ts"},"kind":1},{"globPattern":"`+absGlob+`","kind":4}]}`),
		reg("4", `{"watchers":[{"globPattern":"a/[b"}]}`),
		reg("5", `{"watchers":[{"globPattern":7}]}`),
	}
	patterns, errs := Patterns(root, regs)
	if len(patterns) != 4 || len(errs) != 2 {
		t.Fatalf("patterns %+v, errors %v", patterns, errs)
	}
	for _, err := range errs {
		if !strings.Contains(err.Error(), "registration 4") && !strings.Contains(err.Error(), "registration 5") {
			t.Errorf("error does not name the registration: %v", err)
		}
	}
	cases := []struct {
		pattern int
		path    string
		kind    protocol.WatchKind
		want    bool
	}{
		{0, path(root, "go.mod"), protocol.WatchKindChange, true},
		{0, path(root, "a/b/go.work"), protocol.WatchKindDelete, true},
		{0, path(root, "go.sum"), protocol.WatchKindChange, false},
		{0, path(abs, "../elsewhere/go.mod"), protocol.WatchKindChange, false},
		{1, path(root, "pkg/x.go"), protocol.WatchKindCreate, true},
		{1, path(root, "x.go.txt"), protocol.WatchKindCreate, false},
		{2, path(root, "src/lib1/b.ts"), protocol.WatchKindCreate, true},
		{2, path(root, "src/lib1/b.ts"), protocol.WatchKindChange, false}, // kind
		{2, path(root, "src/lib12/b.ts"), protocol.WatchKindCreate, false},
		{2, path(root, "src/lib1/d.ts"), protocol.WatchKindCreate, false},
		{2, path(root, "lib1/b.ts"), protocol.WatchKindCreate, false}, // outside the base
		{3, path(abs, "deep/er/a.py"), protocol.WatchKindDelete, true},
		{3, path(abs, "x.py"), protocol.WatchKindDelete, false},
	}
	for _, tc := range cases {
		if got := patterns[tc.pattern].Matches(tc.path, tc.kind); got != tc.want {
			t.Errorf("%s matches %s (%v) = %v, want %v", patterns[tc.pattern].glob, tc.path, tc.kind, got, tc.want)
		}
	}
}

func TestBatch(t *testing.T) {
	var b batch
	a, c, d, e := protocol.DocumentURI("file:///a"), protocol.DocumentURI("file:///c"), protocol.DocumentURI("file:///d"), protocol.DocumentURI("file:///e")
	b.add(a, protocol.FileChangeTypeCreated)
	b.add(c, protocol.FileChangeTypeChanged)
	b.add(a, protocol.FileChangeTypeChanged) // still created
	b.add(d, protocol.FileChangeTypeCreated)
	b.add(d, protocol.FileChangeTypeDeleted) // never existed
	b.add(e, protocol.FileChangeTypeDeleted)
	b.add(e, protocol.FileChangeTypeCreated) // replaced: changed
	b.add(c, protocol.FileChangeTypeDeleted)
	want := []protocol.FileEvent{{URI: a, Type: protocol.FileChangeTypeCreated}, {URI: c, Type: protocol.FileChangeTypeDeleted}, {URI: e, Type: protocol.FileChangeTypeChanged}}
	if got := b.take(); !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got := b.take(); len(got) != 0 {
		t.Fatalf("second take: %+v", got)
	}
}

// watcherEvents collects what a file watcher sends, batch by batch.
type watcherEvents struct {
	t       *testing.T
	batches chan []protocol.FileEvent
}

// until reads batches until one holds an event for path and returns every
// event up to and including that batch, merged per file (a batch may close
// between two events of one file).
func (w *watcherEvents) until(ctx context.Context, path string) []protocol.FileEvent {
	w.t.Helper()
	uri, _ := protocol.FileURI(path)
	var merged batch
	var saw []protocol.FileEvent
	for {
		select {
		case b := <-w.batches:
			seen := map[protocol.DocumentURI]bool{}
			for _, e := range b {
				if seen[e.URI] {
					w.t.Fatalf("batch names %s twice: %+v", e.URI, b)
				}
				seen[e.URI] = true
				merged.add(e.URI, e.Type)
			}
			saw = append(saw, b...)
			if seen[uri] {
				return merged.take()
			}
		case <-ctx.Done():
			w.t.Fatalf("no event for %s; saw %+v", path, saw)
		}
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// create makes a file appear at path in one step (a rename from a staging
// directory), so the watcher sees one event for it.
func create(t *testing.T, staging, path, text string) {
	t.Helper()
	tmp := filepath.Join(staging, filepath.Base(path))
	write(t, tmp, text)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// modify overwrites the start of an existing file with one write (no
// truncation), so the watcher sees one event for it.
func modify(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
}

func event(t *testing.T, path string, ct protocol.FileChangeType) protocol.FileEvent {
	uri, err := protocol.FileURI(path)
	if err != nil {
		t.Fatal(err)
	}
	return protocol.FileEvent{URI: uri, Type: ct}
}

// TestFileWatcher drives a real fsnotify watcher over a temporary tree. Each
// step ends with a new marker file: events arrive in order, so once the
// marker's is in, every event of the step is in, and what must not be
// reported would have been.
func TestFileWatcher(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	root, staging := t.TempDir(), t.TempDir()
	write(t, filepath.Join(root, "old", "keep.go"), "package old\n")
	write(t, filepath.Join(root, ".git", "HEAD"), "ref\n")
	write(t, filepath.Join(root, "web", "node_modules", "pkg", "a.js"), "x\n")
	events := &watcherEvents{t: t, batches: make(chan []protocol.FileEvent, 100)}
	w, err := New(root, slog.New(slog.DiscardHandler), Options{}, func(b []protocol.FileEvent) { events.batches <- b })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	all := protocol.WatchKindCreate | protocol.WatchKindChange | protocol.WatchKindDelete
	w.SetPatterns(nil, []Pattern{
		{base: root, glob: "**/*.{go,mod}", kind: all},
		{base: filepath.Join(root, "docs"), glob: "*.md", kind: protocol.WatchKindCreate},
	})
	if err := w.WaitScanned(ctx); err != nil {
		t.Fatal(err)
	}
	step := 0
	expect := func(what string, want ...protocol.FileEvent) {
		t.Helper()
		step++
		marker := filepath.Join(root, fmt.Sprintf("marker%d.go", step))
		create(t, staging, marker, what)
		got := events.until(ctx, marker)
		want = append(want, event(t, marker, protocol.FileChangeTypeCreated))
		for _, e := range want {
			if !slices.Contains(got, e) {
				t.Errorf("%s: missing %+v in %+v", what, e, got)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: got %+v, want %+v", what, got, want)
		}
	}

	// Existing files are not announced; only changes are.
	expect("start")
	modify(t, filepath.Join(root, "old", "keep.go"), "package old // edited\n")
	expect("change", event(t, filepath.Join(root, "old", "keep.go"), protocol.FileChangeTypeChanged))

	// A new directory tree is watched as it appears, including files made
	// before its watch was in place.
	deep := filepath.Join(root, "new", "a", "b", "c.go")
	create(t, staging, deep, "package b\n")
	expect("new tree", event(t, deep, protocol.FileChangeTypeCreated))
	modify(t, deep, "package b // edited\n")
	expect("change in new tree", event(t, deep, protocol.FileChangeTypeChanged))

	// Unmatched names, unwanted kinds, .git and node_modules are not reported.
	create(t, staging, filepath.Join(root, "notes.txt"), "x\n")
	create(t, staging, filepath.Join(root, "web", "node_modules", "pkg", "b.go"), "package pkg\n")
	create(t, staging, filepath.Join(root, ".git", "x.go"), "package git\n")
	create(t, staging, filepath.Join(root, "docs", "a.md"), "# a\n")
	expect("filtered", event(t, filepath.Join(root, "docs", "a.md"), protocol.FileChangeTypeCreated))
	modify(t, filepath.Join(root, "docs", "a.md"), "# a edited\n") // the docs pattern wants creates only
	expect("kind filtered")

	// Deletes, and a renamed directory's new name; its old watches are dropped.
	if err := os.Remove(deep); err != nil {
		t.Fatal(err)
	}
	expect("delete", event(t, deep, protocol.FileChangeTypeDeleted))
	moved := filepath.Join(root, "moved")
	if err := os.Rename(filepath.Join(root, "old"), moved); err != nil {
		t.Fatal(err)
	}
	// The moved tree's files appear at their new names.
	expect("rename", event(t, filepath.Join(moved, "keep.go"), protocol.FileChangeTypeCreated))
	modify(t, filepath.Join(moved, "keep.go"), "package old // moved\n")
	expect("change after rename", event(t, filepath.Join(moved, "keep.go"), protocol.FileChangeTypeChanged))

	// A file replaced by a swap of two names (lspkit's checked writes, on
	// Linux): the name moves away just after the new file arrives under
	// it; it is not gone.
	swapped := filepath.Join(moved, "keep.go")
	tmp, err := atomicfile.WriteTemp(swapped, []byte("package old // swapped\n"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	was, err := os.ReadFile(swapped)
	if err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.ReplaceIf(tmp, swapped, was); err != nil {
		t.Fatal(err)
	}
	expect("swap", event(t, swapped, protocol.FileChangeTypeCreated))

	// A pattern naming node_modules makes it watched.
	w.SetPatterns(nil, []Pattern{
		{base: root, glob: "**/*.{go,mod}", kind: all},
		{base: root, glob: "**/node_modules/**/*.js", kind: all},
	})
	if err := w.WaitScanned(ctx); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(root, "web", "node_modules", "pkg", "a.js")
	modify(t, js, "y\n")
	expect("node_modules named", event(t, js, protocol.FileChangeTypeChanged))
}

// TestWatchScope: a directory is watched only when a pattern can match
// files in it or it leads to where one can.
func TestWatchScope(t *testing.T) {
	root := filepath.FromSlash("/ws")
	w := &Watcher{}
	all := protocol.WatchKindCreate
	w.scopes = []watchScope{
		scopeOf(Pattern{base: root, glob: "*.json", kind: all}),
		scopeOf(Pattern{base: root, glob: "src/**/*.ts", kind: all}),
		scopeOf(Pattern{base: root, glob: "lib/*/x.go", kind: all}),
	}
	for _, tc := range []struct {
		dir             string
		watch, descends bool
	}{
		{"", true, true},              // *.json, and the way to src and lib
		{"docs", false, false},        // nothing can match there
		{"src", true, true},           // src/**
		{"src/a/b/c", true, true},     // src/**
		{"lib", true, true},           // lib/*/x.go: lib leads to lib/*
		{"lib/a", true, false},        // lib/a/x.go can match; nothing below
		{"lib/a/b", false, false},     // too deep
		{"srcx", false, false},        // not src
		{"docs/src", false, false},    // src only at the root
		{"src/../docs", false, false}, // cleaned: docs
	} {
		watch, descend := w.needed(filepath.Join(root, filepath.FromSlash(tc.dir)))
		if watch != tc.watch || descend != tc.descends {
			t.Errorf("%q: watch %v descend %v, want %v %v", tc.dir, watch, descend, tc.watch, tc.descends)
		}
	}
	if got := watchLimit(fmt.Errorf("add: %w", syscall.ENOSPC)); !strings.Contains(got, "inotify watch limit") {
		t.Errorf("ENOSPC: %q", got)
	}
	if got := watchLimit(fmt.Errorf("add: %w", syscall.EMFILE)); !strings.Contains(got, "open-file limit") {
		t.Errorf("EMFILE: %q", got)
	}
}

// TestWatchBudget: beyond its budget the watcher polls the rest of the
// tree, says it is degraded, and still reports creates, changes and
// deletes there.
func TestWatchBudget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	root, staging := t.TempDir(), t.TempDir()
	for i := range 12 {
		write(t, filepath.Join(root, fmt.Sprintf("d%02d", i), "keep.go"), "package keep\n")
	}
	events := &watcherEvents{t: t, batches: make(chan []protocol.FileEvent, 100)}
	w, err := New(root, slog.New(slog.DiscardHandler), Options{Budget: 4, PollEvery: 20 * time.Millisecond}, func(b []protocol.FileEvent) { events.batches <- b })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	all := protocol.WatchKindCreate | protocol.WatchKindChange | protocol.WatchKindDelete
	w.SetPatterns(nil, []Pattern{{base: root, glob: "**/*.go", kind: all}})
	if err := w.WaitScanned(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(w.Watched()); n != 4 {
		t.Errorf("watching %d directories, budget 4", n)
	}
	if s := w.Status(); !strings.Contains(s, "degraded: the watch budget of 4 directories is spent") || !strings.Contains(s, "9 trees polled") {
		t.Errorf("status %q", s)
	}
	// d11 is polled (the walk is in name order: root, d00, d01, d02 are watched).
	polled := filepath.Join(root, "d11")
	created := filepath.Join(polled, "new.go")
	create(t, staging, created, "package keep\n")
	if got := events.until(ctx, created); !slices.Contains(got, event(t, created, protocol.FileChangeTypeCreated)) {
		t.Errorf("create: %+v", got)
	}
	changed := filepath.Join(polled, "keep.go")
	write(t, changed, "package keep // a longer text\n")
	if got := events.until(ctx, changed); !slices.Contains(got, event(t, changed, protocol.FileChangeTypeChanged)) {
		t.Errorf("change: %+v", got)
	}
	if err := os.Remove(created); err != nil {
		t.Fatal(err)
	}
	if got := events.until(ctx, created); !slices.Contains(got, event(t, created, protocol.FileChangeTypeDeleted)) {
		t.Errorf("delete: %+v", got)
	}
}
