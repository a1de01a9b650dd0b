package features

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
)

// TestApplyEditsFake: edits checked before they are written — an edit
// that brings a new error is refused with it, the files untouched; one
// that fixes an error is written and says what it fixed; a stale base
// refuses the whole set; "always" writes and reports; changes by range
// and new files; bad requests are errors that say why.
func TestApplyEditsFake(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{"a.fk": "fine\n", "b.fk": "x ERROR\n", "c.fk": "hello world\nbye\n"},
		lsptest.Config("", `"fake": `+lsptest.ServerEntry("plain")), map[string]lsptest.Behavior{"plain": {Actions: true}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	apply := func(p api.ApplyEditsParams) api.ApplyEditsResult {
		t.Helper()
		res, err := f.ApplyEdits(ctx, p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		return res
	}
	text := func(s string) *string { return &s }

	// A new error: refused, nothing written.
	res := apply(api.ApplyEditsParams{Edits: []api.FileEdit{{File: "a.fk", Text: text("now ERROR\n")}, {File: "c.fk", Text: text("changed\n")}}})
	if res.Applied || len(res.Introduced) != 1 || res.Introduced[0].File != "a.fk" || !strings.Contains(res.Reason, "1 new error; nothing was written") ||
		f.read(t, "a.fk") != "fine\n" || f.read(t, "c.fk") != "hello world\nbye\n" {
		t.Fatalf("an edit with a new error: %+v; a.fk %q", res, f.read(t, "a.fk"))
	}
	if res.Hashes["a.fk"] != hashOf("fine\n") {
		t.Errorf("hashes of what was not written: %v", res.Hashes)
	}

	// A fix: written, and said.
	res = apply(api.ApplyEditsParams{Edits: []api.FileEdit{{File: "b.fk", Text: text("x fine\n"), Base: hashOf("x ERROR\n")}}})
	if !res.Applied || len(res.Fixed) != 1 || len(res.Introduced) != 0 || f.read(t, "b.fk") != "x fine\n" || res.Hashes["b.fk"] != hashOf("x fine\n") {
		t.Fatalf("a fix: %+v", res)
	}

	// The same base again: the file changed since.
	res = apply(api.ApplyEditsParams{Edits: []api.FileEdit{{File: "c.fk", Text: text("other\n")}, {File: "b.fk", Text: text("again\n"), Base: hashOf("x ERROR\n")}}})
	if res.Applied || !strings.Contains(res.Reason, "b.fk changed since the edit was made from it") || f.read(t, "b.fk") != "x fine\n" || f.read(t, "c.fk") != "hello world\nbye\n" {
		t.Fatalf("a stale base: %+v", res)
	}

	// Changes by range, and a new file.
	res = apply(api.ApplyEditsParams{Edits: []api.FileEdit{
		{File: "c.fk", Changes: []api.TextChange{{Range: api.Range{StartLine: 1, StartChar: 7, EndLine: 1, EndChar: 12}, NewText: "there"}, {Range: api.Range{StartLine: 3, StartChar: 1, EndLine: 3, EndChar: 1}, NewText: "end\n"}}},
		{File: "sub/d.fk", Text: text("new\n")},
	}})
	if !res.Applied || f.read(t, "c.fk") != "hello there\nbye\nend\n" || f.read(t, "sub/d.fk") != "new\n" || strings.Join(res.Files, ",") != "c.fk,sub/d.fk" {
		t.Fatalf("changes and a new file: %+v; c.fk %q", res, f.read(t, "c.fk"))
	}

	// "always" writes a new error, and reports it.
	res = apply(api.ApplyEditsParams{When: api.WhenAlways, Edits: []api.FileEdit{{File: "a.fk", Text: text("ERROR\n")}}})
	if !res.Applied || len(res.Introduced) != 1 || f.read(t, "a.fk") != "ERROR\n" {
		t.Fatalf("always: %+v", res)
	}

	// A preview: a fix-all shown, not written, then written by its id —
	// checked, based on the text it was made from.
	shown, err := f.FixAll(ctx, api.FixAllParams{File: "a.fk"})
	if err != nil || shown.Applied || shown.Preview == "" || f.read(t, "a.fk") != "ERROR\n" {
		t.Fatalf("fix-all preview: %+v %v", shown, err)
	}
	res = apply(api.ApplyEditsParams{Preview: shown.Preview})
	if !res.Applied || len(res.Fixed) != 1 || f.read(t, "a.fk") != "FIXED\n" {
		t.Fatalf("the preview applied: %+v; a.fk %q", res, f.read(t, "a.fk"))
	}
	// Again: the file is no longer what the preview was made from.
	res = apply(api.ApplyEditsParams{Preview: shown.Preview})
	if res.Applied || !strings.Contains(res.Reason, "a.fk changed since the edit was made from it") {
		t.Fatalf("a preview applied twice: %+v", res)
	}
	// A preview of a file changed since, by another program: refused.
	if err := os.WriteFile(filepath.Join(f.root, "a.fk"), []byte("ERROR again\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shown, err = f.FixAll(ctx, api.FixAllParams{File: "a.fk"})
	if err != nil || shown.Preview == "" {
		t.Fatalf("fix-all preview: %+v %v", shown, err)
	}
	if err := os.WriteFile(filepath.Join(f.root, "a.fk"), []byte("ERROR, written meanwhile\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = apply(api.ApplyEditsParams{Preview: shown.Preview, When: api.WhenAlways})
	if res.Applied || !strings.Contains(res.Reason, "a.fk changed since") || f.read(t, "a.fk") != "ERROR, written meanwhile\n" {
		t.Fatalf("a stale preview: %+v; a.fk %q", res, f.read(t, "a.fk"))
	}

	for _, tc := range []struct {
		p    api.ApplyEditsParams
		want string
	}{
		{api.ApplyEditsParams{}, "edits: none given"},
		{api.ApplyEditsParams{Preview: "p999"}, `no preview "p999"`},
		{api.ApplyEditsParams{Preview: "p1", Edits: []api.FileEdit{{File: "a.fk", Text: text("")}}}, "edits or a preview, one of them"},
		{api.ApplyEditsParams{When: "sometimes", Edits: []api.FileEdit{{File: "a.fk", Text: text("")}}}, `when: "sometimes"`},
		{api.ApplyEditsParams{Edits: []api.FileEdit{{File: "a.fk"}}}, "give text or changes"},
		{api.ApplyEditsParams{Edits: []api.FileEdit{{File: "a.fk", Text: text("1")}, {File: "./a.fk", Text: text("2")}}}, "edited twice"},
		{api.ApplyEditsParams{Edits: []api.FileEdit{{File: "../out.fk", Text: text("x")}}}, "outside"},
		{api.ApplyEditsParams{Edits: []api.FileEdit{{File: "gone.fk", Changes: []api.TextChange{{Range: api.Range{StartLine: 1, StartChar: 1, EndLine: 1, EndChar: 1}}}}}}, "gone.fk"},
		{api.ApplyEditsParams{Edits: []api.FileEdit{{File: "a.fk", Changes: []api.TextChange{{Range: api.Range{StartLine: 9, StartChar: 1, EndLine: 9, EndChar: 1}}}}}}, "line 9 is past the end of the file (its last line is 2)"},
		{api.ApplyEditsParams{Edits: []api.FileEdit{{File: "a.fk", Text: text("x"), Base: "md5:00"}}}, `base "md5:00"`},
	} {
		if _, err := f.ApplyEdits(ctx, tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error saying %q", tc.p, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(f.root); len(entries) != 4 { // a b c, sub
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the root holds %v: a temporary file left?", names)
	}
}

// TestApplyEditsOldErrors: on a project with errors of its own — a
// dependent with an error before any edit, as click's examples have — an
// edit that breaks nothing is written, whether or not its dependents were
// checked before; one that breaks the dependents is refused with exactly
// what it broke, not their old errors; an edit moving an old error's line
// does not make it new.
func TestApplyEditsOldErrors(t *testing.T) {
	t.Parallel()
	f := newFake(t, map[string]string{
		"lib.fk": "def F 1\n",
		"a.fk":   "import lib\ncall F 1\n",
		"b.fk":   "import lib\ncall F 1\nERROR of b's own\n",
	}, lsptest.Config("", `"fake": `+lsptest.ImportingEntry("linked")), map[string]lsptest.Behavior{"linked": {Linked: true}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	text := func(s string) *string { return &s }
	apply := func(p api.ApplyEditsParams) api.ApplyEditsResult {
		t.Helper()
		res, err := f.ApplyEdits(ctx, p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		return res
	}
	messages := func(diags []api.Diagnostic) string {
		var out []string
		for _, d := range diags {
			out = append(out, fmt.Sprintf("%s:%d %s", d.File, d.Line, d.Message))
		}
		sort.Strings(out)
		return strings.Join(out, "; ")
	}

	// Harmless, with the dependents never checked before.
	res := apply(api.ApplyEditsParams{Edits: []api.FileEdit{{File: "lib.fk", Text: text("def F 1\n# a note\n")}}})
	if !res.Applied || len(res.Introduced) != 0 || res.Reason != "" || f.read(t, "lib.fk") != "def F 1\n# a note\n" {
		t.Fatalf("a harmless edit: %+v", res)
	}
	// Breaking: refused with the two calls, not b.fk's old error.
	res = apply(api.ApplyEditsParams{Edits: []api.FileEdit{{File: "lib.fk", Text: text("def F 2\n")}}})
	if want := "a.fk:2 F takes 2 arguments, not 1; b.fk:2 F takes 2 arguments, not 1"; res.Applied || messages(res.Introduced) != want || f.read(t, "lib.fk") != "def F 1\n# a note\n" {
		t.Fatalf("a breaking edit: %+v, want refused with %s", res, want)
	}
	// b.fk's old error moved down a line, with a new one above it.
	res = apply(api.ApplyEditsParams{Edits: []api.FileEdit{{File: "b.fk", Text: text("import lib\ncall F 1\n\nERROR of b's own\n")}}})
	if !res.Applied || len(res.Introduced) != 0 || len(res.Fixed) != 0 {
		t.Fatalf("an old error moved: %+v", res)
	}
	res = apply(api.ApplyEditsParams{Edits: []api.FileEdit{{File: "b.fk", Text: text("ERROR new\nimport lib\ncall F 1\n\nERROR of b's own\n")}}})
	if want := "b.fk:1 ERROR new"; res.Applied || messages(res.Introduced) != want {
		t.Fatalf("a new error above an old one: %+v, want refused with %s", res, want)
	}
}
