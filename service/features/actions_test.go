package features

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// actionsFake is a fake whose server offers the fixes of
// lsptest.Behavior.Actions for .fk files.
func actionsFake(t *testing.T, files map[string]string) *fake {
	return newFake(t, files, lsptest.Config("", `"fake": `+lsptest.ServerEntry("actions")), map[string]lsptest.Behavior{"actions": {Actions: true}})
}

func (f *fake) read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// actionFor lists the actions for the first finding of file, as a fresh
// check returns it, and returns the id of the one titled title.
func (f *fake) actionFor(t *testing.T, file, title string) (string, api.CodeAction) {
	t.Helper()
	res := f.check(t, api.CheckParams{FilePath: file})
	if len(res.Diagnostics) == 0 {
		t.Fatalf("no finding in %s: %+v", file, res)
	}
	acts, err := f.CodeActions(context.Background(), api.CodeActionsParams{Diagnostic: &res.Diagnostics[0]})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts.Actions {
		if a.Title == title {
			return a.ID, a
		}
	}
	t.Fatalf("no action %q: %+v", title, acts)
	return "", api.CodeAction{}
}

// TestApplyCodeActionFake: an action that edits two files is previewed
// without writing; a change to the other file after the listing makes the
// action stale, named; listed again it applies to both files atomically
// and they are checked. An action that runs a command is not run by a
// preview (which says so) and, applied, its edits (sent back with
// workspace/applyEdit) are written and checked. An unknown id is refused.
func TestApplyCodeActionFake(t *testing.T) {
	t.Parallel()
	f := actionsFake(t, map[string]string{"a.fk": "x ERROR\n", "b.fk": "y ERROR\n", "other.fk": "start\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	id, a := f.actionFor(t, "a.fk", "Fix ERROR")
	if a.Server != "fake" || a.Kind != "quickfix" || !a.Preferred || len(a.Diagnostics) != 1 || a.Diagnostics[0].Line != 1 {
		t.Fatalf("the action: %+v", a)
	}
	preview, err := f.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: id})
	if err != nil || preview.Applied || preview.Files != 2 || !strings.Contains(preview.Diff, "+x fixed") || !strings.Contains(preview.Diff, "+fixed a.fk line 1") {
		t.Fatalf("preview: %+v %v", preview, err)
	}
	if f.read(t, "a.fk") != "x ERROR\n" || f.read(t, "other.fk") != "start\n" {
		t.Fatal("the preview wrote")
	}
	// Another program changes the other file: the action is stale.
	if err := os.WriteFile(filepath.Join(f.root, "other.fk"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = f.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: id, Apply: true})
	if !isInvalidParams(err) || !strings.Contains(err.Error(), "stale: other.fk") {
		t.Fatalf("a stale action: %v", err)
	}
	if f.read(t, "a.fk") != "x ERROR\n" || f.read(t, "other.fk") != "changed\n" {
		t.Fatal("a stale action wrote")
	}
	id, _ = f.actionFor(t, "a.fk", "Fix ERROR")
	res, err := f.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: id, Apply: true})
	if err != nil || !res.Applied || res.Files != 2 || len(res.Diagnostics["a.fk"]) != 0 {
		t.Fatalf("apply: %+v %v", res, err)
	}
	if a, o := f.read(t, "a.fk"), f.read(t, "other.fk"); a != "x fixed\n" || o != "changed\nfixed a.fk line 1\n" {
		t.Fatalf("after the apply: a.fk %q, other.fk %q", a, o)
	}

	// The command action.
	id, a = f.actionFor(t, "b.fk", "Fix ERROR by command")
	if a.Command != "fake.fix" {
		t.Fatalf("the command action: %+v", a)
	}
	preview, err = f.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: id})
	if err != nil || preview.Applied || preview.Diff != "" || !strings.Contains(preview.Note, "nothing was run") || f.launcher.Commands() != 0 {
		t.Fatalf("command preview: %+v %v (%d commands run)", preview, err, f.launcher.Commands())
	}
	res, err = f.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: id, Apply: true})
	if err != nil || !res.Applied || res.Files != 2 || f.launcher.Commands() != 1 || len(res.Diagnostics["b.fk"]) != 0 {
		t.Fatalf("command apply: %+v %v", res, err)
	}
	if b, o := f.read(t, "b.fk"), f.read(t, "other.fk"); b != "y fixed\n" || o != "changed\nfixed a.fk line 1\nfixed b.fk line 1\n" {
		t.Fatalf("after the command: b.fk %q, other.fk %q", b, o)
	}

	if _, err := f.ApplyCodeAction(ctx, api.ApplyCodeActionParams{ID: "a999"}); !isInvalidParams(err) || !strings.Contains(err.Error(), "no code action") {
		t.Fatalf("an unknown id: %v", err)
	}
}

// isInvalidParams reports whether err is the JSON-RPC invalid params
// error.
func isInvalidParams(err error) bool {
	var e *transport.Error
	return errors.As(err, &e) && e.Code == transport.CodeInvalidParams
}

// TestFixAllFake: fix-all combines the server's source.fixAll with the
// preferred quick fix of each finding; a quick fix whose edits overlap the
// fix-all's is left out and named; applied, the file checks clean and
// nothing remains.
func TestFixAllFake(t *testing.T) {
	t.Parallel()
	f := actionsFake(t, map[string]string{"a.fk": "x ERROR\ny ERROR\n", "other.fk": ""})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	preview, err := f.FixAll(ctx, api.FixAllParams{File: "a.fk"})
	if err != nil || preview.Applied || len(preview.Remaining) != 2 || !strings.Contains(preview.Note, `fake's "Fix ERROR" left out: its edits of a.fk overlap`) || !strings.Contains(preview.Note, "1 fix combined") {
		t.Fatalf("preview: %+v %v", preview, err)
	}
	res, err := f.FixAll(ctx, api.FixAllParams{File: "a.fk", Apply: true})
	if err != nil || !res.Applied || !res.Checked || len(res.Remaining) != 0 {
		t.Fatalf("apply: %+v %v", res, err)
	}
	if a, o := f.read(t, "a.fk"), f.read(t, "other.fk"); a != "x FIXED\ny FIXED\n" || o != "" {
		t.Fatalf("after fix-all: a.fk %q, other.fk %q", a, o)
	}
}
