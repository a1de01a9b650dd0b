package client_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/protocol"
)

// behaviors are the fake servers these tests run as processes: the test
// binary re-executed with LSPKIT_FAKE naming one.
var behaviors = map[string]lsptest.Behavior{
	"lsp-crash":   {CrashOn: protocol.HoverRequest.Method()},
	"lsp-noexit":  {IgnoreExit: true},
	"lsp-hang":    {HangOn: protocol.InitializeRequest.Method()},
	"lsp-garbage": {RawOn: protocol.InitializeRequest.Method(), Raw: "this is not a header\r\n\r\n{}"},
	"lsp-huge":    {RawOn: protocol.InitializeRequest.Method(), Raw: "Content-Length: 2147483648\r\n\r\n{"},
	"lsp-grandchild": {Before: func() {
		child := exec.Command(os.Args[0]) // its output goes nowhere
		child.Env = append(os.Environ(), "LSPKIT_FAKE=stubborn")
		if err := child.Start(); err != nil {
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "child %d\n", child.Process.Pid)
	}},
}

// TestMain runs the test binary as a fake server or process when
// LSPKIT_FAKE says so: an LSP behavior, or one of the process modes the
// process tests use.
func TestMain(m *testing.M) {
	lsptest.Main(behaviors)
	switch os.Getenv("LSPKIT_FAKE") {
	case "":
		os.Exit(m.Run())
	case "crash":
		for i := 1; i <= 60; i++ {
			fmt.Fprintf(os.Stderr, "fake: line %d\n", i)
		}
		fmt.Fprint(os.Stderr, "fake: panic: no newline at the end")
		os.Exit(3)
	case "stubborn": // ignores SIGTERM
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		block()
	case "grandchild": // leaves a child that ignores SIGTERM
		child := exec.Command(os.Args[0]) // its output goes nowhere
		child.Env = append(os.Environ(), "LSPKIT_FAKE=stubborn")
		if err := child.Start(); err != nil {
			os.Exit(2)
		}
		fmt.Println(child.Process.Pid)
		block()
	case "parent": // starts a server, then waits to be killed
		p, err := client.StartProcess(client.Command{Path: os.Args[0], Env: []string{"LSPKIT_FAKE=stubborn"}})
		if err != nil {
			os.Exit(2)
		}
		// Wait for the server's "ready", so it has written all it will
		// write: once this parent is killed, a write would end it by SIGPIPE.
		buf := make([]byte, 6)
		if _, err := p.Stdio().Read(buf); err != nil {
			os.Exit(2)
		}
		fmt.Println(p.PID())
		block()
	}
	os.Exit(99)
}

// block never returns. (A bare select{} would end the fake: with no other
// goroutine, the runtime reports a deadlock and exits.)
func block() {
	for {
		time.Sleep(time.Hour)
	}
}

func fakeConfig(t *testing.T, mode string) client.Config {
	return client.Config{Name: "fake", Command: client.Command{Path: os.Args[0], Env: []string{"LSPKIT_FAKE=" + mode}}, Root: t.TempDir(), StopGrace: 300 * time.Millisecond}
}

func start(ctx context.Context, t *testing.T, cfg client.Config) *client.Client {
	t.Helper()
	c, err := client.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	return c
}

// TestClientCrash: a server that dies in the middle of a request fails that
// request at once and leaves the client broken, with its exit status and
// last stderr line as the reason.
func TestClientCrash(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := start(ctx, t, fakeConfig(t, "lsp-crash"))
	if _, _, err := c.Hover(ctx, "file:///x.go", protocol.Position{}); err == nil || ctx.Err() != nil {
		t.Fatalf("hover on a crashing server: %v (ctx %v)", err, ctx.Err())
	}
	for c.Status().State != client.StateBroken {
		select {
		case <-c.Changed():
		case <-ctx.Done():
			t.Fatal("the crash was not noticed")
		}
	}
	if r := c.Status().Reason; !strings.Contains(r, "exit status 3") || !strings.Contains(r, "fake: crashing on textDocument/hover") {
		t.Fatalf("reason %q", r)
	}
}

// TestWaitSettledServerGone: a wait for diagnostics ends when the server
// dies.
func TestWaitSettledServerGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := start(ctx, t, fakeConfig(t, "lsp-crash"))
	go c.Hover(ctx, "file:///x.go", protocol.Position{}) // the fake dies on it
	if s := c.WaitSettled(ctx, "file:///nowhere.go", 1); s != client.ServerGone {
		t.Fatalf("got %v", s)
	}
}

// TestClientInitializeHang: a server that never answers initialize costs
// the caller's deadline, no more, and leaves no process.
func TestClientInitializeHang(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := client.Start(ctx, fakeConfig(t, "lsp-hang"))
	if err == nil || !strings.Contains(err.Error(), "initialize") || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("got %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("Start took %v", took)
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
			_, err := client.Start(ctx, fakeConfig(t, mode))
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
	c := start(ctx, t, fakeConfig(t, "lsp-grandchild"))
	// The fake names its child on stderr, which a goroutine copies into
	// the ring: wait for the line.
	var child int
	for deadline := time.Now().Add(5 * time.Second); child == 0 && time.Now().Before(deadline); {
		for _, line := range c.StderrTail() {
			if _, err := fmt.Sscanf(line, "child %d", &child); err == nil {
				break
			}
		}
		if child == 0 {
			time.Sleep(10 * time.Millisecond) // polling the ring; the copy has no event
		}
	}
	if child == 0 || !servertest.Alive(child) {
		t.Fatalf("no grandchild (stderr %q)", c.StderrTail())
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	servertest.Gone(t, c.Status().PID)
	servertest.Gone(t, child)
}

// TestShutdownServerIgnoresExit: a server that ignores the exit
// notification (buf) exits on its own when its input ends after exit — not
// terminated after the grace.
func TestShutdownServerIgnoresExit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := fakeConfig(t, "lsp-noexit")
	cfg.StopGrace = time.Hour // the test's deadline ends first if the input stays open
	c := start(ctx, t, cfg)
	if err := c.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if st := c.Status(); st.State != client.StateStopped || st.Reason != "exit status 0" {
		t.Fatalf("status %+v, want stopped with exit status 0", st)
	}
}

// TestShutdownServerExitsEarly: a server that exits as soon as it answered
// shutdown (before exit arrives) is shut down cleanly.
func TestShutdownServerExitsEarly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Start(ctx, client.Config{Name: "fake", Root: t.TempDir(), Launch: func(context.Context, client.Command) (client.Proc, error) {
		return lsptest.Start(lsptest.Behavior{ExitOnShutdown: true}), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if st := c.Status(); st.State != client.StateStopped {
		t.Fatalf("status %+v", st)
	}
}
