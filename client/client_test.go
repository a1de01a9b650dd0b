package client

import (
	"context"
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
	t.Parallel()
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
		return len(c.Registrations(protocol.DidChangeConfigurationNotification.Method())) > 0 && len(c.Registrations(protocol.DidChangeWatchedFilesNotification.Method())) > 0
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
	t.Parallel()
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
