//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/transport"
)

// lspClient is an LSP client of one `lspkit lsp` process.
type lspClient struct {
	cmd  *exec.Cmd
	conn *transport.Conn

	mu     sync.Mutex
	diags  []protocol.PublishDiagnosticsParams
	signal chan struct{}
}

func startLSP(t *testing.T, root string, env []string, args ...string) *lspClient {
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
