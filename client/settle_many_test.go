package client_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/lsptest"
)

// TestDiagnoseMany: a server whose settle command takes "${uris}" is
// asked once for many documents, each answered with its own findings for
// exactly its text; asked again with nothing sent in between, from the
// answers it settled on, without the command; a document changed since is
// asked again. A settle command for one document cannot answer for many.
func TestDiagnoseMany(t *testing.T) {
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"fake": {Folders: true}}}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := func(args string) *client.Client {
		c, err := client.Start(ctx, client.Config{Name: "fake", Command: client.Command{Path: "fake", Args: []string{"fake"}}, Root: dir, Launch: l.Launch,
			Settle: client.SettlePolicy{Command: "fake.settle", Arguments: []byte(args)}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Shutdown(context.Background()) })
		return c
	}
	c := start(`[{"Files": "${uris}"}]`)
	if !c.CanDiagnoseMany() {
		t.Fatal("CanDiagnoseMany: false for ${uris}")
	}
	texts := []client.Text{
		{Path: filepath.Join(dir, "a.txt"), LanguageID: "plaintext", Text: "ERROR one\n"},
		{Path: filepath.Join(dir, "b.txt"), LanguageID: "plaintext", Text: "fine\n"},
		{Path: filepath.Join(dir, "c.txt"), LanguageID: "plaintext", Text: "ERROR x\nERROR y\n", Saved: true},
	}
	check := func(want ...int) {
		t.Helper()
		answers, err := c.DiagnoseMany(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range answers {
			if a.Settle != client.Settled || len(a.Diagnostics) != want[i] || filepath.Base(string(a.URI)) != filepath.Base(texts[i].Path) {
				t.Fatalf("answer %d: %+v, want %d findings", i, a, want[i])
			}
		}
	}
	check(1, 0, 2)
	if n := l.Commands(); n != 1 {
		t.Fatalf("commands after the first: %d, want 1", n)
	}
	check(1, 0, 2)
	if n := l.Commands(); n != 1 {
		t.Fatalf("commands after asking again with nothing sent: %d, want 1", n)
	}
	texts[1].Text = "ERROR now\n"
	check(1, 1, 2)
	if n := l.Commands(); n != 2 {
		t.Fatalf("commands after a change: %d, want 2", n)
	}
	if _, err := c.DiagnoseMany(ctx, append(texts, texts[0])); err == nil {
		t.Fatal("a document given twice: no error")
	}
	if one := start(`[{"Files": ["${uri}"]}]`); one.CanDiagnoseMany() {
		t.Fatal("CanDiagnoseMany: true for ${uri}")
	} else if _, err := one.DiagnoseMany(ctx, texts); err == nil {
		t.Fatal("DiagnoseMany on a one-document signal: no error")
	}
}
