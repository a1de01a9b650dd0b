package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/registry"
)

// lspkitBinary builds lspkit once for the tests that run it as a server.
var lspkitBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "lspkit-conform")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "lspkit")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/lspkit/lspkit/cmd/lspkit").CombinedOutput()
	if err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

// TestConformLSPProxy scores `lspkit lsp` fronting gopls, typescript,
// pyright, clangd, and typescript with eslint on one file type, with the
// conform session each bare server gets on the same workspace: lspkit lsp
// has no violation the bare server's own card does not have.
// LSPKIT_LSP_LIVE=1 (.ci/run) runs it.
func TestConformLSPProxy(t *testing.T) {
	t.Parallel()
	if os.Getenv("LSPKIT_LSP_LIVE") == "" {
		t.Skip("LSPKIT_LSP_LIVE=1 runs it (.ci/run's lspkit lsp step)")
	}
	bin, err := lspkitBinary()
	if err != nil {
		t.Fatalf("building lspkit: %v", err)
	}
	specs, err := registry.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	store := registry.NewStore(registry.DefaultDir(), nil)
	v := protocol.NewValidator()
	for _, servers := range [][]string{{"gopls"}, {"typescript"}, {"pyright"}, {"clangd"}, {"typescript", "eslint"}} {
		name := strings.Join(servers, "+")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, id := range servers {
				servertest.Binary(t, specs[id].Command)
			}
			spec := specs[servers[0]]
			root := t.TempDir()
			if resolved, err := filepath.EvalSymlinks(root); err == nil {
				root = resolved
			}
			file, ok, err := WriteWorkspace(root, spec.Language)
			if err != nil || !ok {
				t.Fatalf("no workspace for %s: %v", spec.Language, err)
			}
			if err := os.WriteFile(filepath.Join(root, "lspkit.json"), []byte(`{"lsp": {"autoInstall": false}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(10*time.Minute))
			defer cancel()
			session := func(cmd client.Command, initOpts, settings []byte) *Card {
				card, err := RunSession(ctx, v, SessionOptions{
					Command: cmd, Root: root, File: file, LanguageID: spec.LanguageID(file), Name: name,
					Timeout: servertest.Scale(2 * time.Minute), InitializationOptions: initOpts, Settings: settings, Lspkit: "(this commit)",
				})
				if err != nil {
					t.Fatal(err)
				}
				return card
			}
			path, _ := store.Find(spec)
			bare := session(client.Command{Path: path, Args: spec.Args, Dir: root, Env: store.OnPath(nil)},
				store.Expand(spec.InitializationOptions), store.Expand(spec.Settings))
			args := []string{"lsp", "--root", root}
			for _, id := range servers {
				args = append(args, "--server", id)
			}
			proxied := session(client.Command{Path: bin, Args: args, Dir: root}, nil, nil)
			failed := map[string]bool{}
			for _, r := range bare.Rows {
				failed[r.Check] = r.Verdict == VerdictFail
			}
			passed := map[string]bool{}
			for _, r := range bare.Rows {
				passed[r.Check] = r.Verdict == VerdictPass
			}
			for _, r := range proxied.Rows {
				if passed[r.Check] && r.Verdict != VerdictPass {
					t.Logf("%s: %q passes alone, through lspkit lsp %s: %v", name, r.Check, r.Verdict, r.Evidence)
				}
				if r.Verdict == VerdictFail && !failed[r.Check] {
					t.Errorf("lspkit lsp --server %s fails %q, which %s alone passes: %v", strings.Join(servers, " --server "), r.Check, servers[0], r.Evidence)
				}
			}
			if proxied.Stopped != "" {
				t.Errorf("the session through lspkit lsp stopped: %s", proxied.Stopped)
			}
			t.Logf("%s alone: %d/%d pass; through lspkit lsp: %d/%d pass", name, bare.Passed(), len(bare.Rows), proxied.Passed(), len(proxied.Rows))
		})
	}
}
