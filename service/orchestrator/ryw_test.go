package orchestrator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
)

// TestRequestNeverOvertakesChanges: the ordering rule of read your writes.
// The fake server learns files only from watched-file events, reading them
// when it handles the event, and says in each hover what it knows; a file
// nobody opened is rewritten, created and deleted, and the hover asked at
// once knows the change, every time (1,000 rounds, under -race in the test
// command).
func TestRequestNeverOvertakesChanges(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"main.fk": "hello\n", "dep.fk": "v0\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")),
		map[string]lsptest.Behavior{"fake": {Watch: []string{"**/*.fk"}, Remember: true}})
	hover := func() string {
		t.Helper()
		res, err := hover(t.Context(), f.Orchestrator, api.PositionParams{File: "main.fk", Line: 1, Character: 1})
		if err != nil || res.Content == nil {
			t.Fatalf("hover: %+v, %v", res, err)
		}
		_, known, _ := strings.Cut(*res.Content, "known: ")
		return known
	}
	hover() // starts the server
	f.awaitWatching(t)
	dep, extra := filepath.Join(f.root, "dep.fk"), filepath.Join(f.root, "extra.fk")
	for i := range 1000 {
		if err := os.WriteFile(dep, fmt.Appendf(nil, "v%d\n", i+1), 0o644); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("dep.fk=v%d", i+1)
		switch i % 3 {
		case 1: // a new file too
			if err := os.WriteFile(extra, fmt.Appendf(nil, "e%d\n", i), 0o644); err != nil {
				t.Fatal(err)
			}
			want += fmt.Sprintf(" extra.fk=e%d", i)
		case 2: // and gone again
			if err := os.Remove(extra); err != nil {
				t.Fatal(err)
			}
		}
		if got := hover(); !strings.HasPrefix(got, want) || i%3 != 1 && strings.Contains(got, "extra.fk") {
			t.Fatalf("round %d: the server answered knowing %q; want %q: the request overtook the change", i, got, want)
		}
	}
}

// TestDegradedWatchingSaysSo: beyond the watch budget the tree is polled;
// answers say that files not open in a server may be behind by a poll
// interval, and the documents servers hold still follow the disk (stat
// before answering).
func TestDegradedWatchingSaysSo(t *testing.T) {
	files := map[string]string{"a.fk": "fine\n"}
	for i := range 5 {
		files[fmt.Sprintf("d%d/b.fk", i)] = "x\n"
	}
	f := newFake(t, files, lsptest.Config(`,"watchBudget":3`, `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"})
	if !res.Checked || len(res.Diagnostics) != 0 || !strings.Contains(res.Note, "file watching is degraded") || !strings.Contains(res.Note, "may be behind by up to") {
		t.Fatalf("check in a degraded tree: %+v", res)
	}
	// a.fk is held by the server; another process breaks it, and the
	// hover that follows answers from the new text.
	if err := os.WriteFile(filepath.Join(f.root, "a.fk"), []byte("now ERROR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := hover(t.Context(), f.Orchestrator, api.PositionParams{File: "a.fk", Line: 1, Character: 1})
	if err != nil || h.Content == nil || !strings.Contains(*h.Content, "now ERROR") || !strings.Contains(h.Note, "file watching is degraded") {
		t.Fatalf("hover after a.fk changed on disk: %+v, %v", h, err)
	}
}

// TestBurstIsOneBatch: a branch switch's worth of changed files (1,000),
// written before a request, reaches a watching server in one
// workspace/didChangeWatchedFiles notification (or a few, when the writing
// spans more than one of the watcher's gathering windows), not 1,000.
func TestBurstIsOneBatch(t *testing.T) {
	files := map[string]string{"main.fk": "hello\n"}
	for i := range 1000 {
		files[fmt.Sprintf("d%d/f%d.fk", i%10, i)] = "v0\n"
	}
	f := newFake(t, files, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {Watch: []string{"**/*.fk"}}})
	if _, err := hover(t.Context(), f.Orchestrator, api.PositionParams{File: "main.fk", Line: 1, Character: 1}); err != nil {
		t.Fatal(err)
	}
	f.awaitWatching(t)
	before, _ := f.launcher.WatchedFiles()
	start := time.Now()
	for i := range 1000 {
		if err := os.WriteFile(filepath.Join(f.root, fmt.Sprintf("d%d/f%d.fk", i%10, i)), []byte("v1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := hover(t.Context(), f.Orchestrator, api.PositionParams{File: "main.fk", Line: 1, Character: 1}); err != nil {
		t.Fatal(err)
	}
	writing := time.Since(start)
	// One batch per gathering window of the watcher (50 ms) that the
	// writing spans (a few under load), and one for the end.
	notes, events := f.launcher.WatchedFiles()
	if notes-before > max(5, int(writing/(50*time.Millisecond))+2) || events < 1000 {
		t.Fatalf("1,000 changed files reached the server as %d notifications with %d events; want one batch (a few at most) with all 1,000", notes-before, events)
	}
	t.Logf("1,000 changes written in %v: %d notification(s), %d events", writing, notes-before, events)
}

// BenchmarkBarrier: what the read-your-writes barrier costs a request when
// nothing changed (the watcher is asked to read what the kernel queued,
// and answers), in a tree of 1,000 files in 100 directories. Target:
// ≤ 0.2 ms.
func BenchmarkBarrier(b *testing.B) {
	root := b.TempDir()
	for i := range 1000 {
		path := filepath.Join(root, fmt.Sprintf("d%d/f%d.fk", i%100, i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	o := liveIn(b, root, "")
	ctx := b.Context()
	if note := o.barrier(ctx); note != "" { // the first waits for the watcher's scan
		b.Fatal(note)
	}
	for b.Loop() {
		if note := o.barrier(ctx); note != "" {
			b.Fatal(note)
		}
	}
}

// awaitWatching waits until the fake server's watchers are registered
// (it registers them after initialized, in the background).
func (f *fake) awaitWatching(t *testing.T) {
	t.Helper()
	deadline := time.After(servertest.Scale(10 * time.Second))
	for f.status("fake").Watching == "" {
		select {
		case <-deadline:
			t.Fatal("the fake never registered its watchers")
		case <-time.After(5 * time.Millisecond): // polling status, with a deadline
		}
	}
}

// TestUnreadableChangeSaysSo: a file the server holds changes on disk and
// can no longer be sent (here: grown past maxFileBytes); the answer says
// the server has its previous text, instead of answering from it silently.
func TestUnreadableChangeSaysSo(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "fine\n", "b.fk": "fine\n"}, lsptest.Config(`,"maxFileBytes":100`, `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {}})
	f.check(t, api.CheckParams{FilePath: "a.fk"})
	if err := os.WriteFile(filepath.Join(f.root, "a.fk"), []byte(strings.Repeat("ERROR\n", 40)), 0o644); err != nil {
		t.Fatal(err)
	}
	res := f.check(t, api.CheckParams{FilePath: "b.fk"})
	if !strings.Contains(res.Note, "a.fk changed on disk but could not be read") || !strings.Contains(res.Note, "fake has its previous text") {
		t.Fatalf("check after a.fk grew past the limit: %+v", res)
	}
}

// TestRefreshAfterRestore: a what-if's restore has read its file's disk
// text when the feature that made the what-if writes the what-if's text
// to the file and refreshes (lsp/applyEdits). The refresh waits for the
// restore to send what it read, then gives the server the file written:
// the hover after it answers from that text. Without the wait, the
// refresh found the server's text (the what-if's) the same as the file's,
// the restore then sent the old text, and it stayed.
func TestRefreshAfterRestore(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "old text\n"}, lsptest.Config("", `"fake": `+lsptest.ServerEntry("fake")), map[string]lsptest.Behavior{"fake": {}})
	path := filepath.Join(f.root, "a.fk")
	written, refreshed, waiting := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var restored, waited sync.Once
	f.holdWaits = func() {
		select {
		case <-written: // the refresh, or the hover after it
			waited.Do(func() { close(waiting) })
		default:
		}
	}
	f.restoreRead = func(string) {
		restored.Do(func() {
			if err := os.WriteFile(path, []byte("new text\n"), 0o644); err != nil {
				t.Error(err)
			}
			close(written)
			select {
			case <-refreshed:
			case <-waiting:
			}
		})
	}
	f.check(t, api.CheckParams{FilePath: "a.fk"})
	text := "new text\n"
	f.check(t, api.CheckParams{FilePath: "a.fk", Text: &text, Impact: true})
	<-written
	go func() {
		defer close(refreshed)
		f.Refresh(t.Context())
	}()
	<-refreshed
	h, err := hover(t.Context(), f.Orchestrator, api.PositionParams{File: "a.fk", Line: 1, Character: 1})
	if err != nil || h.Content == nil || !strings.Contains(*h.Content, "new text") {
		t.Fatalf("hover after the write and its refresh: %+v, %v; want it answered from the file written", h, err)
	}
}
