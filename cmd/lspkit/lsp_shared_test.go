//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// lspLive skips the test unless LSPKIT_LSP_LIVE=1 (.ci/run's lspkit lsp
// step runs these beside the test command's budget).
func lspLive(t *testing.T) {
	t.Helper()
	if os.Getenv("LSPKIT_LSP_LIVE") == "" {
		t.Skip("LSPKIT_LSP_LIVE=1 runs it (.ci/run's lspkit lsp step)")
	}
}

// lspClient is an LSP client of one `lspkit lsp` process.
type lspClient struct {
	cmd  *exec.Cmd
	conn *transport.Conn

	mu     sync.Mutex
	diags  []protocol.PublishDiagnosticsParams
	signal chan struct{}
}

func startLSP(t testing.TB, root string, env []string, args ...string) *lspClient {
	t.Helper()
	cmd := exec.Command(lspkitBin, append([]string{"lsp", "--root", root}, args...)...)
	cmd.Dir = t.TempDir() // the processes in root are the shared daemon's
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &lspClient{cmd: cmd, signal: make(chan struct{}, 1)}
	c.conn = transport.NewConn(pipes{r: out, w: in}, transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == protocol.PublishDiagnosticsNotification.Method() {
			var p protocol.PublishDiagnosticsParams
			if json.Unmarshal(req.Params, &p) == nil {
				c.mu.Lock()
				c.diags = append(c.diags, p)
				c.mu.Unlock()
				select {
				case c.signal <- struct{}{}:
				default:
				}
			}
		}
		return nil, nil
	})})
	t.Cleanup(func() {
		c.conn.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return c
}

func (c *lspClient) call(ctx context.Context, method string, params any) (jsontext.Value, error) {
	var out jsontext.Value
	err := c.conn.Call(ctx, method, params, &out)
	return out, err
}

// published waits for a publish with version v and returns its messages.
func (c *lspClient) published(ctx context.Context, v int32) ([]string, error) {
	for {
		c.mu.Lock()
		for _, p := range c.diags {
			if p.Version != nil && *p.Version == v {
				var msgs []string
				for _, d := range p.Diagnostics {
					m, _ := d.Message.AsString()
					msgs = append(msgs, m)
				}
				c.mu.Unlock()
				return msgs, nil
			}
		}
		c.mu.Unlock()
		select {
		case <-c.signal:
		case <-ctx.Done():
			return nil, fmt.Errorf("no publish of version %d: %w", v, ctx.Err())
		}
	}
}

// TestLSPSharedLive: four `lspkit lsp --shared` clients of one Go module
// share one shared daemon and one gopls; each has main.go open with its
// own unsaved text, and each is answered from its own: its findings name
// its own constant, none of the others'. Each leaves with shutdown and
// exit (status 0); the daemon and gopls stay for the next until stopped,
// and then nothing is left.
func TestLSPSharedLive(t *testing.T) {
	t.Parallel()
	lspLive(t)
	servertest.Binary(t, "gopls")
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n",
		"lspkit.json": `{"lsp": {"autoInstall": false}}`})
	runtime, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopShared(t, root)
		noProcessesIn(t, root)
		os.RemoveAll(runtime)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	uri, _ := protocol.FileURI(root + "/main.go")
	const n = 4
	clients := make([]*lspClient, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		clients[i] = startLSP(t, root, []string{"LSPKIT_RUNTIME_DIR=" + runtime}, "--shared", "--server", "gopls")
		wg.Go(func() {
			c := clients[i]
			if _, err := c.call(ctx, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
				errs[i] = err
				return
			}
			c.conn.Notify(ctx, protocol.InitializedNotification.Method(), map[string]any{})
			text := fmt.Sprintf("package main\n\nfunc main() {\n\tvar x int = \"client%d\"\n\tprintln(x)\n}\n", i)
			c.conn.Notify(ctx, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": text}})
			msgs, err := c.published(ctx, 1)
			if err != nil {
				errs[i] = err
				return
			}
			if len(msgs) != 1 || !strings.Contains(msgs[0], fmt.Sprintf(`"client%d"`, i)) {
				errs[i] = fmt.Errorf("findings %q, want one naming its own \"client%d\"", msgs, i)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("client %d: %v", i, err)
		}
	}
	// The daemons the other clients started find the first serving and
	// exit at once (a race-detector build takes its time over exiting).
	deadline := time.Now().Add(30 * time.Second)
	for len(sharedDaemons(root)) > 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polling the process table: no event exists for another process's exit
	}
	if d := sharedDaemons(root); len(d) != 1 {
		t.Errorf("shared daemons: %v, want one\n%s", d, readLog(runtime))
	}
	if g := serverProcesses(root, "gopls"); len(g) != 1 {
		t.Errorf("gopls processes: %v, want one for the four clients", g)
	}
	for i, c := range clients {
		if _, err := c.call(ctx, protocol.ShutdownRequest.Method(), nil); err != nil {
			t.Errorf("client %d: shutdown: %v", i, err)
		}
		c.conn.Notify(ctx, protocol.ExitNotification.Method(), nil)
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("client %d: lspkit lsp --shared after shutdown and exit: %v, want status 0", i, err)
		}
	}
}

// BenchmarkLSPSharedMemory: the resident memory of lspkit lsp and its
// servers (gopls, typescript-language-server and tsserver) for one editor
// session of a Go + TypeScript project, against four sessions with
// --shared (four relays, one shared daemon, one set of servers); each
// session opens a Go and a TypeScript file and waits for their findings.
// Medians of the rounds (-benchtime Nx); the least of ten samples 200 ms
// apart in each round, as BenchmarkSharedMemory does.
func BenchmarkLSPSharedMemory(b *testing.B) {
	servertest.Binary(b, "gopls")
	servertest.Binary(b, "typescript-language-server")
	files := map[string]string{
		"go.mod": "module example.com/demo\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() { var x int = \"s\"; println(x) }\n",
		"package.json": `{"name": "demo", "private": true}`, "tsconfig.json": `{"compilerOptions": {"strict": true}}`,
		"main.ts": "export const n: number = \"s\";\n", "lspkit.json": `{"lsp": {"autoInstall": false}}`,
	}
	measure := func(n int, shared bool) float64 {
		root := b.TempDir()
		writeFiles(b, root, files)
		runtime, err := os.MkdirTemp("", "rt")
		if err != nil {
			b.Fatal(err)
		}
		defer os.RemoveAll(runtime)
		args := []string{"--server", "gopls", "--server", "typescript"}
		if shared {
			args = append(args, "--shared")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		clients := make([]*lspClient, n)
		var wg sync.WaitGroup
		for i := range clients {
			clients[i] = startLSP(b, root, []string{"LSPKIT_RUNTIME_DIR=" + runtime, "LSPKIT_LOG=error"}, args...)
			wg.Go(func() {
				c := clients[i]
				if _, err := c.call(ctx, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
					b.Error(err)
					return
				}
				c.conn.Notify(ctx, protocol.InitializedNotification.Method(), map[string]any{})
				for v, f := range []string{"main.go", "main.ts"} {
					uri, _ := protocol.FileURI(filepath.Join(root, f))
					lang := map[string]string{"main.go": "go", "main.ts": "typescript"}[f]
					c.conn.Notify(ctx, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": lang, "version": 10 + v, "text": files[f]}})
					if _, err := c.published(ctx, int32(10+v)); err != nil {
						b.Error(err)
					}
				}
			})
		}
		wg.Wait()
		var pids []int
		for _, c := range clients {
			pids = append(pids, c.cmd.Process.Pid)
		}
		pids = append(pids, sharedDaemons(root)...)
		mib, byName := treeMiB(pids...)
		for range 9 {
			time.Sleep(200 * time.Millisecond) // sampling memory over time: nothing to wait for
			if m, by := treeMiB(pids...); m < mib {
				mib, byName = m, by
			}
		}
		b.Logf("%d sessions (shared %v): %.0f MiB: %v", n, shared, mib, byName)
		for _, c := range clients {
			c.conn.Close()
			c.cmd.Process.Kill()
			c.cmd.Wait()
		}
		for _, pid := range sharedDaemons(root) {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		return mib
	}
	var one, four []float64
	for b.Loop() {
		one = append(one, measure(1, false))
		four = append(four, measure(4, true))
	}
	median := func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(median(one), "one-MiB")
	b.ReportMetric(median(four), "four-shared-MiB")
	b.ReportMetric(median(four)/median(one), "ratio")
}

// TestLSPClientGone: a client that leaves without shutdown — its end of
// stdin closed, or lspkit lsp killed with it — leaves no server running:
// lspkit exits 1 (no shutdown) and stops gopls, or the orphan guard ends
// gopls with it.
func TestLSPClientGone(t *testing.T) {
	t.Parallel()
	lspLive(t)
	servertest.Binary(t, "gopls")
	for _, how := range []string{"stdin closed", "killed"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeFiles(t, root, map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() { var x int = \"s\"; println(x) }\n",
				"lspkit.json": `{"lsp": {"autoInstall": false}}`})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c := startLSP(t, root, nil, "--server", "gopls")
			if _, err := c.call(ctx, protocol.InitializeRequest.Method(), map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}); err != nil {
				t.Fatal(err)
			}
			uri, _ := protocol.FileURI(filepath.Join(root, "main.go"))
			c.conn.Notify(ctx, protocol.DidOpenTextDocumentNotification.Method(), map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": "package main\n\nfunc main() { var x int = \"s\"; println(x) }\n"}})
			if _, err := c.published(ctx, 1); err != nil {
				t.Fatal(err)
			}
			if len(serverProcesses(root, "gopls")) != 1 {
				t.Fatalf("gopls is not running in the root")
			}
			if how == "killed" {
				c.cmd.Process.Kill()
				c.cmd.Wait()
			} else {
				c.conn.Close() // the client's ends of stdin and stdout
				err := c.cmd.Wait()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
					t.Errorf("lspkit lsp after its client left without shutdown: %v, want exit status 1", err)
				}
			}
			noProcessesIn(t, root)
		})
	}
}
