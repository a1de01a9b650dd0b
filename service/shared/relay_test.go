package shared

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lspkit/lspkit/transport"
)

// TestRelayRequestAsDaemonDies: a request the relay is writing when its
// daemon dies never reached that daemon — its write fails — so it goes
// to the next daemon and gets exactly one answer, that daemon's; it does
// not also fail as one the dead daemon left unanswered. (Seen on a loaded
// machine: the reader found the daemon gone while the next request was
// being written, failed it, and the retry answered it a second time.)
func TestRelayRequestAsDaemonDies(t *testing.T) {
	dead, deadPeer := net.Pipe() // the first daemon: never reads, then dies
	live, livePeer := net.Pipe() // the second: answers every request
	var mu sync.Mutex
	attaches := 0
	r := &Relay{Surface: SurfaceRPC, Attach: func(context.Context) (*Conn, error) {
		mu.Lock()
		defer mu.Unlock()
		attaches++
		if attaches == 1 {
			return &Conn{Conn: dead, r: bufio.NewReader(dead), PID: 1}, nil
		}
		return &Conn{Conn: live, r: bufio.NewReader(live), PID: 2}, nil
	}}
	go func() { // the second daemon
		rd, w := transport.NewReader(livePeer, transport.ReaderOptions{}), transport.NewWriter(livePeer)
		for {
			frame, err := rd.ReadFrame()
			if err != nil {
				return
			}
			var e transport.Envelope
			if e.ScanExact(frame) == nil && e.Kind == transport.KindRequest {
				_, id := idOf(&e)
				w.WriteFrame([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":"from the second daemon"}`))
			}
		}
	}()
	in, clientW := io.Pipe()
	clientR, out := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background(), in, out) }()

	// The request's write blocks (the first daemon does not read); the
	// daemon then dies with it half written.
	go transport.NewWriter(clientW).WriteFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"lsp/status","params":{}}`))
	time.AfterFunc(50*time.Millisecond, func() { deadPeer.Close() }) // any moment: every order must give one answer

	rd := transport.NewReader(clientR, transport.ReaderOptions{})
	frame, err := rd.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(frame); !strings.Contains(got, "from the second daemon") {
		t.Fatalf("the request's answer: %s", got)
	}
	// The client hangs up; once the relay is done, nothing else may have
	// come for the request.
	extra := make(chan string, 1)
	go func() {
		if f, err := rd.ReadFrame(); err == nil {
			extra <- string(f)
		}
		close(extra)
	}()
	clientW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out.Close()
	if f, ok := <-extra; ok {
		t.Fatalf("a second answer to the same request: %s", f)
	}
}
