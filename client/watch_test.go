package client

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
)

func reg(id, options string) protocol.Registration {
	return protocol.Registration{ID: id, Method: protocol.DidChangeWatchedFilesNotification.Method(), RegisterOptions: []byte(options)}
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

// TestWatchUnregister: the last watched-files unregistration closes the watcher.
func TestWatchUnregister(t *testing.T) {
	root := t.TempDir()
	c := newClient(Config{Root: root})
	c.register(func(regs map[string]protocol.Registration) {
		regs["w"] = reg("w", `{"watchers":[{"globPattern":"**/*.go"}]}`)
	})
	w := c.watcher
	if w != nil {
		w.WaitScanned(t.Context())
	}
	if w == nil || len(w.Watched()) != 1 {
		t.Fatalf("registration did not start a watcher over the root: %+v", w)
	}
	c.register(func(regs map[string]protocol.Registration) { delete(regs, "w") })
	if c.watcher != nil {
		t.Fatal("watcher still set after the unregistration")
	}
	c.watchClosing.Wait()
	if n := len(w.Watched()); n != 0 {
		t.Fatalf("%d directories still watched", n)
	}
}

// TestWatchedFilesGopls: a file created on disk, not through the client,
// defines what an open file lacks; gopls hears of it through the watcher and
// the open file's error clears without reopening it.
func TestWatchedFilesGopls(t *testing.T) {
	t.Parallel()
	gopls := servertest.Binary(t, "gopls")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := goModule(t)
	c := startClient(ctx, t, Config{Name: "gopls", Command: Command{Path: gopls, Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}}, Root: dir})
	waitFor(ctx, t, c, "gopls to register watched files", func() bool {
		return len(c.Registrations(protocol.DidChangeWatchedFilesNotification.Method())) > 0
	})
	uri, v, err := c.Sync(ctx, filepath.Join(dir, "use.go"), "go", "package demo\n\nfunc Use() int { return Helper() }\n")
	if err != nil {
		t.Fatal(err)
	}
	if s := c.WaitSettled(ctx, uri, v); s != Settled {
		t.Fatalf("open: %v", s)
	}
	if d := errorsOf(c.Diagnostics(uri)); len(d) != 1 || !strings.Contains(MessageText(d[0]), "Helper") {
		t.Fatalf("want the undefined Helper error: %+v", d)
	}
	write(t, filepath.Join(dir, "helper.go"), "package demo\n\nfunc Helper() int { return 1 }\n")
	waitFor(ctx, t, c, "the error to clear", func() bool { return len(c.Diagnostics(uri)) == 0 })
}

// TestNoFileWatcherGopls: without the capability gopls registers no
// watchers, and no watcher runs.
func TestNoFileWatcherGopls(t *testing.T) {
	t.Parallel()
	gopls := servertest.Binary(t, "gopls")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := goModule(t)
	c := startClient(ctx, t, Config{Name: "gopls", Command: Command{Path: gopls}, Root: dir, NoFileWatcher: true})
	uri, v, err := c.Sync(ctx, filepath.Join(dir, "use.go"), "go", "package demo\n\nfunc Use() int { return Answer() }\n")
	if err != nil {
		t.Fatal(err)
	}
	if s := c.WaitSettled(ctx, uri, v); s != Settled {
		t.Fatal(s)
	}
	c.watchMu.Lock()
	w := c.watcher
	c.watchMu.Unlock()
	if n := len(c.Registrations(protocol.DidChangeWatchedFilesNotification.Method())); n != 0 || w != nil {
		t.Fatalf("%d watched-files registrations, watcher %v", n, w)
	}
}

// TestWatchOnlyRoot: a pattern based outside the root (pyright registers the
// Python standard library) adds no watches there.
func TestWatchOnlyRoot(t *testing.T) {
	root, lib := t.TempDir(), t.TempDir()
	write(t, filepath.Join(lib, "a", "b", "x.py"), "x = 1\n")
	libURI, _ := protocol.FileURI(lib)
	c := newClient(Config{Root: root})
	c.register(func(regs map[string]protocol.Registration) {
		regs["w"] = reg("w", fmt.Sprintf(`{"watchers":[{"globPattern":"**"},{"globPattern":{"baseUri":%q,"pattern":"**"}}]}`, libURI))
	})
	defer c.watcher.Close()
	c.watcher.WaitScanned(t.Context())
	if got := c.watcher.Watched(); len(got) != 1 || got[0] != root {
		t.Fatalf("watching %v, want only %s", got, root)
	}
}
