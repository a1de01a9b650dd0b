package procshare_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/client/procshare"
	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/protocol"
)

// start starts a client of the fake server behavior in root through pool.
func start(t *testing.T, pool *procshare.Pool, behavior, root string) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Start(ctx, client.Config{
		Name:          "fake",
		Command:       client.Command{Path: "fake", Args: []string{behavior}, Dir: root},
		Root:          root,
		Launch:        pool.Launch,
		NoFileWatcher: true,
	})
	if err != nil {
		t.Fatalf("start in %s: %v", root, err)
	}
	return c
}

// worktrees makes n roots, each with one .fk file of one class named after
// the root.
func worktrees(t *testing.T, names ...string) []string {
	t.Helper()
	base := t.TempDir()
	var roots []string
	for _, n := range names {
		dir := filepath.Join(base, n)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "a.fk"), []byte("class Shared"+n+" {\n}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, dir)
	}
	return roots
}

func diagnose(t *testing.T, c *client.Client, path, text string) client.Answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := c.Diagnose(ctx, path, "fake", text)
	if err != nil {
		t.Fatalf("diagnose %s: %v", path, err)
	}
	return a
}

// TestShared: clients of two roots share one process of a server that
// takes folders; each sees only its own files' findings and symbols; the
// first one leaving keeps the process for the other, with its folder and
// documents removed; the last one leaving ends it.
func TestShared(t *testing.T) {
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"folders": {Folders: true, Symbols: true}}}
	pool := procshare.New(l.Launch, nil)
	roots := worktrees(t, "one", "two")
	a := start(t, pool, "folders", roots[0])
	b := start(t, pool, "folders", roots[1])
	if n := l.Launched("folders"); n != 1 {
		t.Fatalf("%d processes started for two roots, want 1", n)
	}
	if p, m := pool.Processes(); p != 1 || m != 2 {
		t.Fatalf("pool: %d processes, %d members; want 1, 2", p, m)
	}

	// Findings: each client's own file, and only its.
	fa, fb := filepath.Join(roots[0], "a.fk"), filepath.Join(roots[1], "a.fk")
	ans := diagnose(t, a, fa, "ERROR in one\n")
	if got := serverFolders(t, a, fa); got != "one,two" {
		t.Fatalf("the server's folders: %q", got)
	}
	if ans.Settle != client.Settled || len(ans.Diagnostics) != 1 {
		t.Fatalf("one: %+v", ans)
	}
	ans = diagnose(t, b, fb, "fine\n")
	if ans.Settle != client.Settled || len(ans.Diagnostics) != 0 {
		t.Fatalf("two: %+v", ans)
	}
	uriA, _ := protocol.FileURI(fa)
	uriB, _ := protocol.FileURI(fb)
	if d := b.AllDiagnostics(); len(d[uriA]) != 0 {
		t.Fatalf("two holds one's findings: %v", d)
	}
	if d := a.AllDiagnostics(); len(d[uriB]) != 0 || len(d[uriA]) != 1 {
		t.Fatalf("one's findings: %v", d)
	}

	// Symbols: the server answers with every folder's; each client is
	// given its own.
	ctx := context.Background()
	for i, c := range []*client.Client{a, b} {
		syms, err := c.WorkspaceSymbols(ctx, "Shared")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range syms {
			names = append(names, s.Name)
		}
		want := []string{"Shared" + []string{"one", "two"}[i]}
		if !cmp.Equal(names, want) {
			t.Errorf("%s: workspace symbols %v, want %v", roots[i], names, want)
		}
	}

	// One leaves: the other keeps the process, which no longer has the
	// first one's folder or documents.
	if err := a.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown one: %v", err)
	}
	if l.Alive() != 1 {
		t.Fatal("the process ended with its first client")
	}
	ans = diagnose(t, b, fb, "ERROR now\n")
	if got := serverFolders(t, b, fb); got != "two" {
		t.Fatalf("after one left, the server's folders: %q", got)
	}
	if open := l.Open(); !slices.Equal(open, []protocol.DocumentURI{uriB}) {
		t.Fatalf("after one left, open on the server: %v", open)
	}
	if ans.Settle != client.Settled || len(ans.Diagnostics) != 1 {
		t.Fatalf("two after one left: %+v", ans)
	}

	// A third comes while the second runs: it joins.
	c3 := start(t, pool, "folders", filepath.Join(filepath.Dir(roots[0]), "one"))
	if n := l.Launched("folders"); n != 1 {
		t.Fatalf("%d processes after a third client, want 1", n)
	}
	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c3.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	<-waitGone(l)
	if p, _ := pool.Processes(); p != 0 {
		t.Fatalf("%d processes left in the pool", p)
	}
}

// serverFolders asks the fake server, through c, which folders it has
// (its hover says so): an answer, so every notification sent before it
// was taken.
func serverFolders(t *testing.T, c *client.Client, path string) string {
	t.Helper()
	uri, _ := protocol.FileURI(path)
	text, _, err := c.Hover(context.Background(), uri, protocol.Position{})
	if err != nil {
		t.Fatal(err)
	}
	_, folders, _ := strings.Cut(text, "folders: ")
	return folders
}

// waitGone is closed once the launcher's servers have all exited.
func waitGone(l *lsptest.Launcher) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for l.Alive() > 0 {
			time.Sleep(5 * time.Millisecond) // the fake's exit has no event of its own to wait on
		}
		close(done)
	}()
	return done
}

// TestNotShared: a server that does not take folder changes gets a
// process per root.
func TestNotShared(t *testing.T) {
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"plain": {}}}
	pool := procshare.New(l.Launch, nil)
	roots := worktrees(t, "one", "two")
	a := start(t, pool, "plain", roots[0])
	b := start(t, pool, "plain", roots[1])
	if n := l.Launched("plain"); n != 2 {
		t.Fatalf("%d processes for two roots of a server without folders, want 2", n)
	}
	ctx := context.Background()
	for _, c := range []*client.Client{a, b} {
		if err := c.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	<-waitGone(l)
}

// TestSharedCrash: the shared process dying ends every client's server,
// as a crash; the next start is one process again.
func TestSharedCrash(t *testing.T) {
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"crash": {Folders: true, CrashOn: "textDocument/hover"}}}
	pool := procshare.New(l.Launch, nil)
	roots := worktrees(t, "one", "two")
	a := start(t, pool, "crash", roots[0])
	b := start(t, pool, "crash", roots[1])
	uri, _ := protocol.FileURI(filepath.Join(roots[0], "a.fk"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	diagnose(t, a, filepath.Join(roots[0], "a.fk"), "x\n")
	_, _, err := a.Hover(ctx, uri, protocol.Position{})
	if err == nil {
		t.Fatal("hover on a crashing server answered")
	}
	for _, c := range []*client.Client{a, b} {
		select {
		case <-c.Exited():
		case <-ctx.Done():
			t.Fatal("a client outlived its shared process")
		}
	}
	start(t, pool, "crash", roots[0]).Kill()
	if n := l.Launched("crash"); n != 2 {
		t.Fatalf("%d processes started, want 2 (one, then one after the crash)", n)
	}
}

// TestSharedGarbage: a shared process that writes what is no frame is
// stopped, and every client's server ends with it (none waits forever
// for an answer).
func TestSharedGarbage(t *testing.T) {
	l := &lsptest.Launcher{Behaviors: map[string]lsptest.Behavior{"garbage": {Folders: true, RawOn: "textDocument/hover", Raw: "Content-Length: x\r\n\r\nnot json"}}}
	pool := procshare.New(l.Launch, nil)
	roots := worktrees(t, "one", "two")
	a := start(t, pool, "garbage", roots[0])
	b := start(t, pool, "garbage", roots[1])
	path := filepath.Join(roots[0], "a.fk")
	diagnose(t, a, path, "x\n")
	uri, _ := protocol.FileURI(path)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, _, err := a.Hover(ctx, uri, protocol.Position{}); err == nil {
		t.Fatal("hover answered by a server that wrote garbage")
	}
	for _, c := range []*client.Client{a, b} {
		select {
		case <-c.Exited():
		case <-ctx.Done():
			t.Fatal("a client's server outlived the garbage")
		}
	}
	<-waitGone(l)
}
