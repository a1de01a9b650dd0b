package client_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/lsptest"
)

// TestDiagnoseKnown: a document diagnosed again with nothing sent to the
// server since it settled is answered from that settled answer, without a
// new version; anything sent to the server in between — another document,
// a setting, a folder — has it re-validated (a new version), as
// before.
func TestDiagnoseKnown(t *testing.T) {
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"fake": {Folders: true}}}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Start(ctx, client.Config{Name: "fake", Command: client.Command{Path: "fake", Args: []string{"fake"}}, Root: dir, Launch: l.Launch})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown(context.Background())
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	diagnose := func(path, text string) client.Answer {
		t.Helper()
		ans, err := c.Diagnose(ctx, path, "plaintext", text)
		if err != nil || ans.Settle != client.Settled {
			t.Fatalf("diagnose %s: %+v %v", filepath.Base(path), ans, err)
		}
		return ans
	}
	first := diagnose(a, "ERROR one\n")
	if len(first.Diagnostics) != 1 {
		t.Fatalf("first: %+v", first.Diagnostics)
	}
	again := diagnose(a, "ERROR one\n")
	if again.Version != first.Version || len(again.Diagnostics) != 1 || client.MessageText(again.Diagnostics[0]) != client.MessageText(first.Diagnostics[0]) {
		t.Fatalf("nothing changed, yet not the known answer: version %d then %d, %+v", first.Version, again.Version, again.Diagnostics)
	}
	version := again.Version
	for _, step := range []struct {
		name   string
		change func()
	}{
		{"another document opened", func() { diagnose(b, "fine\n") }},
		{"another document closed", func() {
			if err := c.CloseDocument(ctx, b); err != nil {
				t.Fatal(err)
			}
		}},
		{"settings changed", func() {
			if err := c.SetCompileCommands(ctx, map[string]client.CompileCommand{b: {WorkingDirectory: dir, CompilationCommand: []string{"cc", b}}}); err != nil {
				t.Fatal(err)
			}
		}},
		{"a folder added", func() {
			if err := c.AddFolder(ctx, t.TempDir()); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		step.change()
		ans := diagnose(a, "ERROR one\n")
		if ans.Version == version {
			t.Fatalf("after %s: the known answer was given (version %d), not re-validated", step.name, version)
		}
		version = ans.Version
		if ans := diagnose(a, "ERROR one\n"); ans.Version != version {
			t.Fatalf("after %s and a re-validation: version %d, want the known %d", step.name, ans.Version, version)
		}
	}
}
