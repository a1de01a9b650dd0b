// The end-to-end tests drive the built binary and read /proc: Linux only
// (the other systems are covered by cross-compiled builds and vets).

//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/mcpserver"
	"github.com/lspkit/lspkit/transport"
)

// mcpFixture is a Go module for the MCP tests.
func mcpFixture(t *testing.T, config string) string {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":      goMod,
		"lib.go":      "package demo\n\n// Greeting says hello.\nfunc Greeting(name string) string { return \"hello, \" + name }\n",
		"use.go":      "package demo\n\nfunc Use() string { return Greeting(\"x\") }\n",
		"notes.xyz":   "not code\n",
		"lspkit.json": config,
	})
	return root
}

// call calls a tool; the structured output is decoded into out.
func call(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPFDs: `lspkit serve --mcp-fds 3,4`: the control channel on stdio and
// MCP on fds 3 and 4 share one orchestrator and one gopls.
func TestMCPFDs(t *testing.T) {
	t.Parallel()
	serversEnv(t)
	root := mcpFixture(t, noInstall(`,"mcpStructuredContent":true`))
	mcpIn, toDaemon, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromDaemon, mcpOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(lspkitBin, "serve", "--root", root, "--mcp-fds", "3,4")
	cmd.ExtraFiles = []*os.File{mcpIn, mcpOut}
	// No Pdeathsig: it fires when the thread that forked the daemon
	// exits, and this test binary starts servers from goroutines locked
	// to their threads (client.StartProcess), which end with them — a
	// daemon started here on such a thread died mid-test (EOF). The
	// daemon ends with its stdin, which ends with this process.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	mcpIn.Close()
	mcpOut.Close()
	ready := make(chan struct{}, 1)
	conn := transport.NewConn(pipes{stdout, stdin}, transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == "lsp/ready" {
			ready <- struct{}{}
		}
		return nil, nil
	})})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("daemon stderr:\n%s", stderr.String())
		}
		conn.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	select {
	case <-ready:
	case <-time.After(servertest.Scale(10 * time.Second)):
		t.Fatal("no lsp/ready")
	}
	d := &daemon{t: t, conn: conn, stderr: stderr}
	var diags []api.Diagnostic
	d.must("lsp/checkFile", map[string]any{"filePath": "use.go"}, &diags)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "lspkit-test", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: fromDaemon, Writer: toDaemon}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	var hover mcpserver.HoverOutput
	res := call(t, session, "lsp_hover", map[string]any{"file": "use.go", "line": 3, "symbol": "Greeting"}, &hover)
	if res.IsError || hover.Content == nil || !strings.Contains(*hover.Content, "func Greeting") {
		t.Fatalf("hover: %q", textOf(res))
	}
	var sts []api.ServerStatus
	d.must("lsp/status", nil, &sts)
	var pids []int
	for _, s := range sts {
		if s.ID == "gopls" {
			pids = append(pids, s.ServerPID)
		}
	}
	var st mcpserver.StatusOutput
	call(t, session, "lsp_status", nil, &st)
	var mcpPids []int
	for _, s := range st.Servers {
		if s.ID == "gopls" {
			mcpPids = append(mcpPids, s.ServerPID)
		}
	}
	if len(pids) != 1 || pids[0] <= 0 || !slices.Equal(pids, mcpPids) {
		t.Fatalf("gopls pids: control %v, mcp %v", pids, mcpPids)
	}
	n := 0
	for _, pid := range processesIn(root) {
		if exe, _ := os.Readlink("/proc/" + pid + "/exe"); filepath.Base(exe) == "gopls" {
			n++
			if pid != fmt.Sprint(pids[0]) {
				t.Errorf("another gopls: %s", pid)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d gopls processes", n)
	}
}

// pipes joins a child's stdout and stdin into one stream.
type pipes struct {
	r interface{ Read([]byte) (int, error) }
	w interface {
		Write([]byte) (int, error)
		Close() error
	}
}

func (p pipes) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error                { return p.w.Close() }

// TestMCPReadOnly: `lspkit mcp --read-only`, on a daemon of its own and
// through the shared daemon, offers only the tools that write nothing
// (for hosts that run MCP tools without asking: opencode).
func TestMCPReadOnly(t *testing.T) {
	t.Parallel()
	root := mcpFixture(t, noInstall(""))
	runtime, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range sharedDaemons(root) {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		noProcessesIn(t, root)
		os.RemoveAll(runtime)
	})
	for _, args := range [][]string{{"mcp", "--read-only"}, {"mcp", "--shared", "--read-only"}} {
		cmd := exec.Command(lspkitBin, append(args, "--root", root)...)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "LSPKIT_RUNTIME_DIR="+runtime)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		s, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		tools, err := s.ListTools(ctx, nil)
		s.Close()
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
			if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
				t.Errorf("%v: %s writes", args, tool.Name)
			}
		}
		if len(names) != 21 {
			t.Errorf("%v: %d tools %v, want the 21 that write nothing", args, len(names), names)
		}
	}
}
