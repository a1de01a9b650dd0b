//go:build unix

package fdpair

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// socketPair is one of a host's extra pipes as Node makes them: a Unix
// socket pair, the host's end and lspkit's end (through File).
func socketPair(t *testing.T, name string) (host, ours *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours, err = File(fds[1], name)
	if err != nil {
		t.Fatal(err)
	}
	host = os.NewFile(uintptr(fds[0]), "host-"+name)
	t.Cleanup(func() { host.Close(); ours.Close() })
	return host, ours
}

// exchange writes a line to the stream through in and reads the pair's
// answer through out.
func exchange(t *testing.T, p *Pair, in, out *os.File) {
	t.Helper()
	if _, err := in.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(p, buf); err != nil || string(buf) != "ping\n" {
		t.Fatalf("read %q %v", buf, err)
	}
	if _, err := p.Write([]byte("pong\n")); err != nil {
		t.Fatal(err)
	}
	out.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(out, buf); err != nil || string(buf) != "pong\n" {
		t.Fatalf("answer %q %v", buf, err)
	}
}

// TestEitherWay: over socket pairs, a host that writes to the first
// descriptor is answered on the second, and one that writes to the second
// (LLxprt Code's client: writes 4, reads 3, given as 3,4) on the first.
func TestEitherWay(t *testing.T) {
	for _, hostWritesSecond := range []bool{false, true} {
		hostR, oursR := socketPair(t, "r")
		hostW, oursW := socketPair(t, "w")
		p := Open(oursR, oursW, nil)
		if hostWritesSecond {
			exchange(t, p, hostW, hostR)
		} else {
			exchange(t, p, hostR, hostW)
		}
		p.Close()
	}
}

// TestDocumentedPipes: plain pipes as documented (the host writes R,
// reads W): reading W fails at once and changes nothing.
func TestDocumentedPipes(t *testing.T) {
	var in, out [2]int
	if err := syscall.Pipe(in[:]); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Pipe(out[:]); err != nil {
		t.Fatal(err)
	}
	hostIn, hostOut := os.NewFile(uintptr(in[1]), "host-in"), os.NewFile(uintptr(out[0]), "host-out")
	defer hostOut.Close()
	rf, err := File(in[0], "r")
	if err != nil {
		t.Fatal(err)
	}
	wf, err := File(out[1], "w")
	if err != nil {
		t.Fatal(err)
	}
	p := Open(rf, wf, nil)
	defer p.Close()
	exchange(t, p, hostIn, hostOut)
	hostIn.Close()
	if n, err := p.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("after the host closed its side: %d %v", n, err)
	}
}

// TestNothingLeftUnread: bytes the host writes that are not the stream's
// input (to the answer descriptor, or after the stream ended) are read
// before the descriptors close, so the host's sockets end with EOF, not a
// reset. Without the pair reading them, the same bytes reset the host's
// socket (the test's control).
func TestNothingLeftUnread(t *testing.T) {
	hostR, oursR := socketPair(t, "r")
	hostW, oursW := socketPair(t, "w")
	p := Open(oursR, oursW, nil)
	exchange(t, p, hostW, hostR)
	if _, err := hostR.Write([]byte("stray bytes on the answer descriptor\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := hostW.Write([]byte("a request after the end\n")); err != nil {
		t.Fatal(err)
	}
	p.Close()
	for _, f := range []*os.File{hostR, hostW} {
		f.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := f.Read(make([]byte, 64)); n != 0 || err != io.EOF {
			t.Errorf("%s after close: %d %v, want EOF", f.Name(), n, err)
		}
	}
	if p.Discarded() == 0 {
		t.Error("no bytes counted as dropped")
	}
	// The control: a descriptor closed with those bytes unread.
	host, ours := socketPair(t, "control")
	if _, err := host.Write([]byte("unread\n")); err != nil {
		t.Fatal(err)
	}
	ours.Close()
	host.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := host.Read(make([]byte, 64)); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("control: %v, want ECONNRESET", err)
	}
}

// TestWriteWaitsForTheHost: an answer before the host has written has no
// descriptor yet; it waits, and Close ends the wait.
func TestWriteWaitsForTheHost(t *testing.T) {
	_, oursR := socketPair(t, "r")
	_, oursW := socketPair(t, "w")
	p := Open(oursR, oursW, nil)
	done := make(chan error, 1)
	go func() {
		_, err := p.Write([]byte("early\n"))
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("write returned before the host spoke: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	p.Close()
	if err := <-done; !errors.Is(err, os.ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
	if _, err := p.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read after close: %v", err)
	}
}
