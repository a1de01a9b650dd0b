//go:build unix

package shared

import (
	"bufio"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runtimeFor points the runtime directory at a fresh directory short
// enough for a socket address.
func runtimeFor(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	dir = filepath.Join(dir, "lspkit")
	t.Setenv("LSPKIT_RUNTIME_DIR", dir)
	return dir
}

// TestEndpointWhateverTheEnvironment: the rendezvous does not move with
// the variables hosts drop or change (Codex passes neither XDG_RUNTIME_DIR
// nor the user's TMPDIR): every client of the user finds the same daemon.
func TestEndpointWhateverTheEnvironment(t *testing.T) {
	t.Setenv("LSPKIT_RUNTIME_DIR", "")
	var dirs []string
	for _, env := range [][2]string{{"", ""}, {t.TempDir(), ""}, {"", t.TempDir()}, {t.TempDir(), t.TempDir()}} {
		t.Setenv("XDG_RUNTIME_DIR", env[0])
		t.Setenv("TMPDIR", env[1])
		e, err := For("v1", "/repo")
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, e.Dir+" "+e.Name)
	}
	want := filepath.Join("/tmp", "lspkit-"+strconv.Itoa(os.Getuid()))
	for _, d := range dirs {
		if d != dirs[0] || !strings.HasPrefix(d, want+" ") {
			t.Fatalf("endpoints moved with the environment: %q (want all in %s)", dirs, want)
		}
	}
}

// TestEndpoint: one name per key, in a 0700 directory of the user's.
func TestEndpoint(t *testing.T) {
	rt := runtimeFor(t)
	a, err := For("v1", "/repo", "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := For("v1", "/repo", "")
	c, _ := For("v1", "/repo2", "")
	d, _ := For("v1", "/re", "po2") // the parts are kept apart
	if a != b || a.Name == c.Name || c.Name == d.Name {
		t.Fatalf("endpoints: %+v %+v %+v %+v", a, b, c, d)
	}
	if a.Dir != rt {
		t.Fatalf("directory %s", a.Dir)
	}
	info, err := os.Stat(a.Dir)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode: %v, %v", info.Mode(), err)
	}
	// Opened to others: closed again.
	os.Chmod(a.Dir, 0o777)
	if _, err := For("v1", "/repo"); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(a.Dir); info.Mode().Perm() != 0o700 {
		t.Fatalf("directory left %v", info.Mode())
	}
}

// TestRuntimeDirRefused: a symlink in the directory's place is refused.
func TestRuntimeDirRefused(t *testing.T) {
	rt := runtimeFor(t)
	if err := os.Symlink(t.TempDir(), rt); err != nil {
		t.Fatal(err)
	}
	if _, err := For("v1", "/repo"); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a symlinked runtime directory: %v", err)
	}
}

// TestListenOnce: the lock admits one daemon; a second is told another
// serves; after the first closes, the next one serves, and a socket file
// a dead daemon left is replaced.
func TestListenOnce(t *testing.T) {
	runtimeFor(t)
	e, err := For("v1", "/repo")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(e.Socket()); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v, %v", info.Mode(), err)
	}
	if _, err := Listen(e, nil); !errors.Is(err, ErrRunning) {
		t.Fatalf("a second daemon: %v", err)
	}
	l.Close()
	if _, err := os.Stat(e.Socket()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket after Close: %v", err)
	}
	// A dead daemon's socket: a file nobody listens on.
	stale, err := net.Listen("unix", e.Socket())
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	if _, err := net.Dial("unix", e.Socket()); err == nil {
		t.Fatal("the stale socket answers")
	}
	l, err = Listen(e, nil)
	if err != nil {
		t.Fatalf("over a stale socket: %v", err)
	}
	defer l.Close()
	done := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
		}
		done <- err
	}()
	c, err := net.Dial("unix", e.Socket())
	if err != nil {
		t.Fatalf("dial the new socket: %v", err)
	}
	c.Close()
	if err := <-done; err != nil {
		t.Fatalf("accept: %v", err)
	}
}

// TestOtherUserRefused: a process of another user that reaches the socket
// (its directory opened for the test) is refused: its connection closed
// without a word, and logged. Needs root, to run the client as nobody.
func TestOtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	if os.Getenv("LSPKIT_DIAL") != "" {
		return
	}
	rt := runtimeFor(t)
	e, err := For("v1", "/repo")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, p := range []string{filepath.Dir(rt), e.Dir} {
		os.Chmod(p, 0o755)
	}
	os.Chmod(e.Socket(), 0o666)
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
			err = errors.New("accepted")
		}
		accepted <- err
	}()
	// The client: nc-like, as nobody; it prints what the daemon said.
	exe, _ := os.Executable()
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(filepath.Dir(rt), "client") // where nobody can run it
	if err := os.WriteFile(client, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(client, "-test.run=^TestDialHelper$", "-test.v")
	cmd.Dir = filepath.Dir(rt)
	cmd.Env = append(os.Environ(), "LSPKIT_DIAL="+e.Socket())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the client as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "DIAL: closed") {
		t.Fatalf("the client as nobody was answered: %s", out)
	}
	l.Close() // Accept returns only on close: the connection was refused
	if err := <-accepted; err == nil || err.Error() == "accepted" {
		t.Fatalf("accept: %v", err)
	}
}

// TestDialHelper is TestOtherUserRefused's client, run as another user.
func TestDialHelper(t *testing.T) {
	path := os.Getenv("LSPKIT_DIAL")
	if path == "" {
		t.Skip("run by TestOtherUserRefused")
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("DIAL: %v", err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte(`{"lspkit":"attach","surface":"rpc","version":"v1"}` + "\n"))
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil {
		t.Logf("DIAL: closed (%v)", err)
	} else {
		t.Logf("DIAL: answered %q", line)
	}
}
