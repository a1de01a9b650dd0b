package client_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/lsptest"
)

// TestDiagnoseKnown: a document diagnosed again with nothing sent to the
// server since it settled is answered from that settled answer, without a
// new version; anything sent to the server in between — another document,
// a setting, a folder — has it re-validated (a new version), as before;
// also where a command says the findings are in (gopls's diagnose_files,
// which can answer an unchanged document from an older state).
func TestDiagnoseKnown(t *testing.T) {
	for _, settle := range []client.SettlePolicy{{}, {Command: "fake.settle"}} {
		t.Run("command="+settle.Command, func(t *testing.T) { testDiagnoseKnown(t, settle) })
	}
}

func testDiagnoseKnown(t *testing.T, settle client.SettlePolicy) {
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"fake": {Folders: true}}}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Start(ctx, client.Config{Name: "fake", Command: client.Command{Path: "fake", Args: []string{"fake"}}, Root: dir, Launch: l.Launch, Settle: settle})
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

// TestPullDuringWork: a server that answers pulls and leaves work-done
// progress running (pyright's "1 file to analyze" after a dependent was
// opened and closed) settles by its pull answer when its policy says a
// pull answer is complete during work; without that policy the check
// waits for the work, and runs out. The same for a server that publishes
// (clangd's background index, at work after a what-if's compile commands
// changed) and its publish.
func TestPullDuringWork(t *testing.T) {
	for _, c := range []struct {
		pull, during bool
	}{{true, true}, {true, false}, {false, true}, {false, false}} {
		t.Run(fmt.Sprintf("pull=%v,duringWork=%v", c.pull, c.during), func(t *testing.T) {
			testDuringWork(t, c.pull, c.during)
		})
	}
}

func testDuringWork(t *testing.T, pull, during bool) {
	policy := client.SettlePolicy{PullDuringWork: during && pull, PublishDuringWork: during && !pull}
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"fake": {Pull: pull, Loading: "1 file to analyze"}}}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	working := make(chan struct{})
	var once sync.Once
	c, err := client.Start(ctx, client.Config{Name: "fake", Command: client.Command{Path: "fake", Args: []string{"fake"}}, Root: dir, Launch: l.Launch,
		Settle: policy,
		OnEvent: func(e client.Event) {
			if e.Progress != nil {
				once.Do(func() { close(working) })
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown(context.Background())
	select {
	case <-working:
	case <-ctx.Done():
		t.Fatal("the server's work never began")
	}
	// Without the policy the wait must run out: a short one, as
	// its end is the point.
	wait := ctx
	if !during {
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
	}
	ans, err := c.Diagnose(wait, filepath.Join(dir, "a.txt"), "plaintext", "ERROR here\n")
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case during && (ans.Settle != client.Settled || len(ans.Diagnostics) != 1):
		t.Fatalf("with the policy: %v, %d findings; want settled by the server's answer, 1", ans.Settle, len(ans.Diagnostics))
	case !during && ans.Settle != client.TimedOut:
		t.Fatalf("without the policy: %v; want timed out waiting for the work", ans.Settle)
	}
}

// TestSaveRebuildsAll: a saved text is checked with a didSave after it,
// except on a server whose save rebuilds every open document (clangd),
// where only Save, asked for that rebuild, sends one.
func TestSaveRebuildsAll(t *testing.T) {
	for _, rebuilds := range []bool{false, true} {
		t.Run(fmt.Sprint("saveRebuildsAll=", rebuilds), func(t *testing.T) {
			l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"fake": {}}}
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := client.Start(ctx, client.Config{Name: "fake", Command: client.Command{Path: "fake", Args: []string{"fake"}}, Root: dir, Launch: l.Launch,
				Settle: client.SettlePolicy{SaveRebuildsAll: rebuilds}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Shutdown(context.Background())
			a := filepath.Join(dir, "a.txt")
			ans, err := c.DiagnoseSaved(ctx, a, "plaintext", "ERROR one\n")
			if err != nil || ans.Settle != client.Settled || len(ans.Diagnostics) != 1 {
				t.Fatalf("diagnose: %+v %v", ans, err)
			}
			// The server takes messages in order: once it has answered
			// for b, it has had whatever followed a's text.
			b := filepath.Join(dir, "b.txt")
			settled := func(text string) {
				t.Helper()
				if ans, err := c.Diagnose(ctx, b, "plaintext", text); err != nil || ans.Settle != client.Settled {
					t.Fatalf("diagnose b: %+v %v", ans, err)
				}
			}
			settled("one\n")
			want := 1
			if rebuilds {
				want = 0
			}
			if _, saves := l.Documents(); saves != want {
				t.Fatalf("%d didSave after a saved text's check, want %d", saves, want)
			}
			if err := c.Save(ctx, a); err != nil {
				t.Fatal(err)
			}
			settled("two\n")
			if _, saves := l.Documents(); saves != want+1 {
				t.Fatalf("%d didSave after Save, want %d", saves, want+1)
			}
		})
	}
}

// TestLateClear: a server that names versions in its publishes (clangd)
// publishes an empty list without one when a document is closed; read only
// after the document was opened again, that clear is no answer for the new
// text: the check waits for the version's own publish, which comes later
// than a quiet window after the clear.
func TestLateClear(t *testing.T) {
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"fake": {LateClear: true, Delay: 400 * time.Millisecond}}}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Start(ctx, client.Config{Name: "fake", Command: client.Command{Path: "fake", Args: []string{"fake"}}, Root: dir, Launch: l.Launch})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown(context.Background())
	a := filepath.Join(dir, "a.txt")
	for i := range 2 {
		ans, err := c.Diagnose(ctx, a, "plaintext", "ERROR one\n")
		if err != nil || ans.Settle != client.Settled || len(ans.Diagnostics) != 1 {
			t.Fatalf("check %d: %+v %v, want settled with the one finding", i+1, ans, err)
		}
		if err := c.CloseDocument(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
}
