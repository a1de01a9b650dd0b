package client

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
)

// startClient starts a client for the test and shuts it down when the test
// ends (Shutdown is idempotent, so tests may also shut it down themselves).
func startClient(ctx context.Context, t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	return c
}

// waitFor waits, on Changed events up to ctx's deadline, until cond holds.
func waitFor(ctx context.Context, t *testing.T, c *Client, what string, cond func() bool) {
	t.Helper()
	for {
		changed := c.Changed()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func goModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n", "demo.go": "package demo\n\nfunc Answer() int { return 42 }\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestClientGopls(t *testing.T) {
	gopls := servertest.Binary(t, "gopls")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := startClient(ctx, t, Config{
		Name:     "gopls",
		Command:  Command{Path: gopls, Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}},
		Root:     goModule(t),
		Settings: jsontext.Value(`{"gopls":{"ui.semanticTokens":true}}`),
	})
	st := c.Status()
	if st.State != StateActive || st.PID <= 0 {
		t.Fatalf("status %+v", st)
	}
	if _, ok := c.ServerCapabilities().HoverProvider.AsBoolean(); !ok {
		t.Fatal("no hover capability recorded")
	}
	// gopls registers for configuration changes and watched files (this
	// client offers dynamic registration for both), and indexes the module.
	waitFor(ctx, t, c, "didChangeConfiguration and didChangeWatchedFiles registrations", func() bool {
		return len(c.Registrations("workspace/didChangeConfiguration")) > 0 && len(c.Registrations(protocol.MethodWorkspaceDidChangeWatchedFiles)) > 0
	})
	waitFor(ctx, t, c, "indexing to finish", func() bool { return !c.Busy() })
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	st = c.Status()
	if st.State != StateStopped || !strings.Contains(st.Reason, "exit status 0") {
		t.Fatalf("after shutdown: %+v", st)
	}
	servertest.Gone(t, st.PID)
	if err := c.Shutdown(ctx); err != nil { // idempotent
		t.Fatal(err)
	}
}

// TestClientTypeScript7: TypeScript 7's native server exits with status 1
// even after shutdown and exit; a shutdown we asked for is stopped, not broken.
func TestClientTypeScript7(t *testing.T) {
	tsc := servertest.Binary(t, "tsc7")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.ts"), []byte("export const x: number = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := startClient(ctx, t, Config{Name: "typescript7", Command: Command{Path: tsc, Args: []string{"--lsp", "--stdio"}}, Root: dir})
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if st := c.Status(); st.State != StateStopped {
		t.Fatalf("after shutdown: %+v", st)
	}
	servertest.Gone(t, c.Status().PID)
}

// TestClientCrash: a server that dies in the middle of a request fails that
// request at once and leaves the client broken, with its exit status and
// last stderr line as the reason.
func TestClientCrash(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := startClient(ctx, t, Config{Name: "fake", Command: Command{Path: os.Args[0], Env: []string{"LSPKIT_FAKE=lsp-crash"}}, Root: t.TempDir()})
	if _, _, err := c.Hover(ctx, "file:///x.go", protocol.Position{}); err == nil || ctx.Err() != nil {
		t.Fatalf("hover on a crashing server: %v (ctx %v)", err, ctx.Err())
	}
	waitFor(ctx, t, c, "the crash to be noticed", func() bool { return c.Status().State == StateBroken })
	if r := c.Status().Reason; !strings.Contains(r, "exit status 7") || !strings.Contains(r, "fatal: the fake server gives up") {
		t.Fatalf("reason %q", r)
	}
}

// TestClientInitializeHang: a server that never answers initialize costs
// the caller's deadline, no more, and leaves no process.
func TestClientInitializeHang(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Start(ctx, Config{Name: "fake", Command: Command{Path: os.Args[0], Env: []string{"LSPKIT_FAKE=lsp-hang"}}, Root: t.TempDir(), StopGrace: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "initialize") || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("got %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("Start took %v", took)
	}
}

func TestSettingsSection(t *testing.T) {
	settings := jsontext.Value(`{"gopls":{"staticcheck":true},"python":{"analysis":{"typeCheckingMode":"strict"}},"css":null,"editor.tabSize":4}`)
	for section, want := range map[string]string{
		"":                                 string(settings),
		"gopls":                            `{"staticcheck":true}`,
		"python.analysis":                  `{"typeCheckingMode":"strict"}`,
		"python.analysis.typeCheckingMode": `"strict"`,
		"css":                              `{}`,
		"missing":                          `{}`,
		"gopls.staticcheck.deeper":         `{}`,
	} {
		if got := string(settingsSection(settings, section)); got != want {
			t.Errorf("section %q: got %s, want %s", section, got, want)
		}
	}
	if got := string(settingsSection(nil, "anything")); got != "{}" {
		t.Errorf("no settings: %s", got)
	}
}

// TestClientFaults: servers that break the framing end Start within its
// deadline with an error saying what was wrong, and leave no process.
func TestClientFaults(t *testing.T) {
	for mode, want := range map[string]string{
		"lsp-garbage": `malformed header line "this is not a header"`,
		"lsp-huge":    "Content-Length 2147483648 exceeds the 67108864-byte limit",
	} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := Start(ctx, Config{Name: "fake", Command: Command{Path: os.Args[0], Env: []string{"LSPKIT_FAKE=" + mode}}, Root: t.TempDir(), StopGrace: 200 * time.Millisecond})
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v, want an error containing %q", err, want)
			}
			if ctx.Err() != nil {
				t.Fatal("Start ran into its deadline instead of failing on the bad frame")
			}
		})
	}
}

// TestClientShutdownGrandchild: a child the server leaves behind does not
// survive Shutdown, even though it ignores SIGTERM.
func TestClientShutdownGrandchild(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := startClient(ctx, t, Config{Name: "fake", Command: Command{Path: os.Args[0], Env: []string{"LSPKIT_FAKE=lsp-grandchild"}}, Root: t.TempDir(), StopGrace: 300 * time.Millisecond})
	// The fake names its child on stderr, which a goroutine copies into
	// the ring: wait for the line.
	var child int
	for deadline := time.Now().Add(5 * time.Second); child == 0 && time.Now().Before(deadline); {
		for _, line := range c.proc.StderrTail() {
			if _, err := fmt.Sscanf(line, "child %d", &child); err == nil {
				break
			}
		}
		if child == 0 {
			time.Sleep(10 * time.Millisecond) // polling the ring; the copy has no event
		}
	}
	if child == 0 || !servertest.Alive(child) {
		t.Fatalf("no grandchild (stderr %q)", c.proc.StderrTail())
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	servertest.Gone(t, c.Status().PID)
	servertest.Gone(t, child)
}
