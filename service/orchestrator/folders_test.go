package orchestrator

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
)

// foldersConfig is a fake server whose roots are the directories holding
// a "mark" file, served as roots says.
func foldersConfig(roots string) string {
	return lsptest.Config("", `"fake": `+strings.TrimSuffix(lsptest.ServerEntry("fake"), "}")+`, "rootMarkers": ["mark"], "roots": "`+roots+`"}`)
}

// TestRootsAsFolders: a server that takes workspace folder changes serves
// every root from one process: the second root becomes a workspace folder
// of the running server (its hover lists the folders), status lists both
// roots, and answers are as from a process per root.
func TestRootsAsFolders(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a/mark": "", "a/x.fk": "ERROR a\n", "b/mark": "", "b/y.fk": "ERROR b\n"}
	f := newFake(t, files, foldersConfig("folders"), map[string]lsptest.Behavior{"fake": {Folders: true}})
	for _, file := range []string{"a/x.fk", "b/y.fk"} {
		if res := f.check(t, api.CheckParams{FilePath: file}); !res.Checked || len(res.Diagnostics) != 1 || res.Diagnostics[0].File != file {
			t.Fatalf("check %s: %+v", file, res)
		}
	}
	if n := f.launcher.Launched("fake"); n != 1 {
		t.Fatalf("%d processes for two roots; want 1", n)
	}
	res, err := hover(t.Context(), f.Orchestrator, api.PositionParams{File: "b/y.fk", Line: 1, Character: 1})
	if err != nil || res.Content == nil || !strings.HasSuffix(*res.Content, "folders: a,b") {
		t.Fatalf("hover: %v, %v", res.Content, err)
	}
	st := f.status("fake")
	if st.Root != filepath.Join(f.root, "a") || len(st.Roots) != 2 || st.Roots[1] != filepath.Join(f.root, "b") {
		t.Fatalf("status: %+v", st)
	}
	n := 0
	for _, st := range f.Status() {
		if st.ID == "fake" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d status entries for one process", n)
	}
}

// TestRootsFoldersRefused: a server declared to take folders whose
// capabilities say otherwise gets a process per root after all.
func TestRootsFoldersRefused(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a/mark": "", "a/x.fk": "ERROR a\n", "b/mark": "", "b/y.fk": "ERROR b\n"}
	f := newFake(t, files, foldersConfig("folders"), map[string]lsptest.Behavior{"fake": {}})
	for _, file := range []string{"a/x.fk", "b/y.fk", "a/x.fk"} {
		if res := f.check(t, api.CheckParams{FilePath: file}); !res.Checked || len(res.Diagnostics) != 1 {
			t.Fatalf("check %s: %+v", file, res)
		}
	}
	if n := f.launcher.Launched("fake"); n != 2 {
		t.Fatalf("%d processes; want one per root", n)
	}
}

// TestRootsOutermost: a server whose roots are the outermost serves a
// nested project from the outer root's process.
func TestRootsOutermost(t *testing.T) {
	t.Parallel()
	files := map[string]string{"mark": "", "x.fk": "ERROR top\n", "pkg/a/mark": "", "pkg/a/y.fk": "ERROR a\n"}
	f := newFake(t, files, foldersConfig("outermost"), map[string]lsptest.Behavior{"fake": {}})
	for _, file := range []string{"pkg/a/y.fk", "x.fk"} {
		if res := f.check(t, api.CheckParams{FilePath: file}); !res.Checked || len(res.Diagnostics) != 1 {
			t.Fatalf("check %s: %+v", file, res)
		}
	}
	if n := f.launcher.Launched("fake"); n != 1 {
		t.Fatalf("%d processes; want 1", n)
	}
	if st := f.status("fake"); st.Root != f.root {
		t.Fatalf("status: %+v", st)
	}
}
