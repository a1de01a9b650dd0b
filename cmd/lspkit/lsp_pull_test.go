//go:build linux

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
)

// TestLSPPullOnlyLive: a client of `lspkit lsp` that asks for diagnostics
// by pull and cannot be told to pull again (Qwen Code's capabilities: no
// refreshSupport) gets, on a cold server, the error by its first pull —
// without waiting for a publish — and no finding by the pull after the
// fix; for gopls and pyright. The first pull's time on a cold daemon and
// server is logged, from didOpen and from the spawn.
func TestLSPPullOnlyLive(t *testing.T) {
	lspLive(t)
	for _, tc := range []struct {
		server, binary, file, languageID, broken, fixed, want string
		files                                                 map[string]string
	}{{
		server: "gopls", binary: "gopls", file: "main.go", languageID: "go",
		files:  map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n"},
		broken: "package main\n\nfunc main() {\n\tvar s string = 42\n\tprintln(s)\n}\n",
		fixed:  "package main\n\nfunc main() {\n\tvar s string = \"42\"\n\tprintln(s)\n}\n",
		want:   "cannot use 42",
	}, {
		server: "pyright", binary: "pyright-langserver", file: "main.py", languageID: "python",
		files:  map[string]string{"pyproject.toml": "[project]\nname = \"demo\"\n"},
		broken: "def f() -> int:\n    return \"x\"\n",
		fixed:  "def f() -> int:\n    return 1\n",
		want:   "is not assignable to return type",
	}} {
		t.Run(tc.server, func(t *testing.T) {
			servertest.Binary(t, tc.binary)
			root := t.TempDir()
			tc.files[tc.file] = tc.broken
			tc.files["lspkit.json"] = `{"lsp": {"autoInstall": false}}`
			writeFiles(t, root, tc.files)
			t.Cleanup(func() { noProcessesIn(t, root) })
			spawned := time.Now()
			c := startLSP(t, root, nil, "--server", tc.server)
			ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(3*time.Minute))
			defer cancel()
			caps := map[string]any{"textDocument": map[string]any{"diagnostic": map[string]any{"dynamicRegistration": false}}}
			if _, err := c.call(ctx, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps}); err != nil {
				t.Fatal(err)
			}
			c.conn.Notify(ctx, protocol.InitializedNotification.Method(), map[string]any{})
			uri, _ := protocol.FileURI(filepath.Join(root, tc.file))
			pull := func() []string {
				t.Helper()
				res, err := c.call(ctx, protocol.DocumentDiagnosticRequest.Method(), map[string]any{"textDocument": map[string]any{"uri": uri}})
				var r struct {
					Kind  string `json:"kind"`
					Items []struct {
						Message string `json:"message"`
					} `json:"items"`
				}
				if err != nil || json.Unmarshal(res, &r) != nil || r.Kind != "full" {
					t.Fatalf("textDocument/diagnostic: %v %s, want a full report", err, res)
				}
				var msgs []string
				for _, it := range r.Items {
					msgs = append(msgs, it.Message)
				}
				return msgs
			}
			start := time.Now()
			c.conn.Notify(ctx, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": tc.languageID, "version": 1, "text": tc.broken}})
			first := pull()
			took, fromSpawn := time.Since(start), time.Since(spawned)
			if len(first) != 1 || !strings.Contains(first[0], tc.want) {
				t.Fatalf("the first pull: %q, want the one error %q", first, tc.want)
			}
			c.conn.Notify(ctx, protocol.DidChangeTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
				"contentChanges": []any{map[string]any{"text": tc.fixed}}})
			if after := pull(); len(after) != 0 {
				t.Fatalf("the pull after the fix: %q, want none", after)
			}
			t.Logf("%s: the first pull on a cold daemon and server answered %s after didOpen, %s after lspkit lsp was spawned", tc.server, took.Round(time.Millisecond), fromSpawn.Round(time.Millisecond))
			if _, err := c.call(ctx, protocol.ShutdownRequest.Method(), nil); err != nil {
				t.Fatal(fmt.Errorf("shutdown: %w", err))
			}
			c.conn.Notify(ctx, protocol.ExitNotification.Method(), nil)
			if err := c.cmd.Wait(); err != nil {
				t.Errorf("lspkit lsp after shutdown and exit: %v", err)
			}
		})
	}
}
