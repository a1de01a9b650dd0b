package orchestrator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
)

// TestRequestNeverOvertakesChanges: the ordering rule of read your writes.
// The fake server learns files only from watched-file events, reading them
// when it handles the event, and says in each hover what it knows; a file
// nobody opened is rewritten, created and deleted, and the hover asked at
// once knows the change, every time (1,000 rounds, under -race in the test
// command).
func TestRequestNeverOvertakesChanges(t *testing.T) {
	f := newFake(t, map[string]string{"main.fk": "hello\n", "dep.fk": "v0\n"}, lspConfig("", `"fake": `+fakeServer("fake")),
		map[string]lsptest.Behavior{"fake": {Watch: []string{"**/*.fk"}, Remember: true}})
	hover := func() string {
		t.Helper()
		res, err := f.Hover(t.Context(), api.PositionParams{File: "main.fk", Line: 1, Character: 1})
		if err != nil || res.Content == nil {
			t.Fatalf("hover: %+v, %v", res, err)
		}
		_, known, _ := strings.Cut(*res.Content, "known: ")
		return known
	}
	hover() // starts the server
	deadline := time.After(10 * time.Second)
	for f.status("fake").Watching == "" {
		select {
		case <-deadline:
			t.Fatal("the fake never registered its watchers")
		case <-time.After(5 * time.Millisecond): // polling status, with a deadline
		}
	}
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
	f := newFake(t, files, lspConfig(`,"watchBudget":3`, `"fake": `+fakeServer("fake")), map[string]lsptest.Behavior{"fake": {}})
	res := f.check(t, api.CheckParams{FilePath: "a.fk"})
	if !res.Checked || len(res.Diagnostics) != 0 || !strings.Contains(res.Note, "file watching is degraded") || !strings.Contains(res.Note, "may be behind by up to") {
		t.Fatalf("check in a degraded tree: %+v", res)
	}
	// a.fk is held by the server; another process breaks it, and the
	// hover that follows answers from the new text.
	if err := os.WriteFile(filepath.Join(f.root, "a.fk"), []byte("now ERROR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := f.Hover(t.Context(), api.PositionParams{File: "a.fk", Line: 1, Character: 1})
	if err != nil || h.Content == nil || !strings.Contains(*h.Content, "now ERROR") || !strings.Contains(h.Note, "file watching is degraded") {
		t.Fatalf("hover after a.fk changed on disk: %+v, %v", h, err)
	}
}

// TestReportCarriesNote: a report in a degraded tree says so in its text
// and its note, even with nothing found.
func TestReportCarriesNote(t *testing.T) {
	files := map[string]string{"a.fk": "fine\n"}
	for i := range 5 {
		files[fmt.Sprintf("d%d/b.fk", i)] = "x\n"
	}
	f := newFake(t, files, lspConfig(`,"watchBudget":3`, `"fake": `+fakeServer("fake")), map[string]lsptest.Behavior{"fake": {}})
	res, err := f.Report(t.Context(), api.ReportParams{FilePath: "a.fk", Mode: "edit"})
	if err != nil || !res.Checked || !strings.Contains(res.Note, "file watching is degraded") || !strings.HasPrefix(res.Text, "LSP note: file watching is degraded") {
		t.Fatalf("report: %+v, %v", res, err)
	}
}
