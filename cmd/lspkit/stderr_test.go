//go:build linux

package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// unreadDaemon runs `lspkit serve` with debug logging and its stderr on a
// pipe: read and dropped when read, else never read at all (LLxprt Code's
// client never reads it), as a host that spawns it would.
func unreadDaemon(tb testing.TB, root string, read bool, env ...string) *transport.Conn {
	tb.Helper()
	errR, errW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(lspkitBin, "serve", "--root", root)
	cmd.Env = append(append(os.Environ(), "LSPKIT_LOG=debug"), env...)
	cmd.Stderr = errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	errW.Close()
	if read {
		go io.Copy(io.Discard, errR)
	}
	ready := make(chan struct{}, 1)
	conn := transport.NewConn(pipes{stdout, stdin}, transport.Options{Handler: transport.HandlerFunc(func(_ context.Context, req *transport.Request) (any, error) {
		if req.Method == api.MethodReady {
			ready <- struct{}{}
		}
		return nil, nil
	})})
	tb.Cleanup(func() {
		// The daemon first (a stalled one stops reading its stdin, and the
		// connection's writer with it), then the connection.
		defer conn.Close()
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(servertest.Scale(30 * time.Second)):
			tb.Errorf("the daemon did not exit after its stdin closed (stderr never read: %v)", !read)
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		errR.Close()
	})
	select {
	case <-ready:
	case <-time.After(servertest.Scale(10 * time.Second)):
		tb.Fatal("no lsp/ready")
	}
	return conn
}

// TestStderrNeverRead: a host that never reads the daemon's stderr gets
// every answer: 10,000 requests, each logged at debug level (far more than
// a pipe holds), all answered, and the daemon exits when its stdin ends.
// Written straight to stderr, the log filled the pipe and the daemon
// stalled on its next line.
func TestStderrNeverRead(t *testing.T) {
	t.Parallel()
	conn := unreadDaemon(t, t.TempDir(), false)
	const requests, workers = 10000, 32
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < requests; i += workers {
				var epoch uint64
				if err := conn.Call(ctx, api.MethodGetDiagnosticEpoch, nil, &epoch); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("with stderr never read: %v", err)
	}
}

// BenchmarkStderrUnread: warm gopls checks through a daemon logging at
// debug level, its stderr read against never read. Target: within 5%.
func BenchmarkStderrUnread(b *testing.B) {
	texts := []string{"package demo\n\nvar X int = \"s\"\n", "package demo\n\nvar X int = 1\n"}
	conns := map[bool]*transport.Conn{}
	for _, read := range []bool{true, false} {
		root := b.TempDir()
		writeFiles(b, root, map[string]string{"go.mod": goMod, "a.go": texts[0], "lspkit.json": noInstall("")})
		conns[read] = unreadDaemon(b, root, read)
	}
	check := func(conn *transport.Conn, text string) time.Duration {
		var res api.CheckResult
		start := time.Now()
		if err := conn.Call(context.Background(), api.MethodCheck, map[string]any{"filePath": "a.go", "text": text}, &res); err != nil || !res.Checked {
			b.Fatalf("check: %+v %v", res, err)
		}
		return time.Since(start)
	}
	for _, conn := range conns {
		check(conn, texts[0]) // the first touch
	}
	var read, unread []time.Duration
	i := 0
	for b.Loop() {
		i++
		read = append(read, check(conns[true], texts[i%2]))
		unread = append(unread, check(conns[false], texts[i%2]))
	}
	b.ReportMetric(medianMS(read), "read-ms")
	b.ReportMetric(medianMS(unread), "unread-ms")
	b.ReportMetric(medianMS(unread)/medianMS(read), "unread/read")
}
