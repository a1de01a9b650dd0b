package shared

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// errLocked says another process holds the lock.
var errLocked = errors.New("locked")

// lockFile takes f's exclusive lock without waiting; the system lets it go
// when the process ends, however it ends.
func lockFile(f *os.File) error {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errLocked
	}
	return err
}

// userSID is the SID of the user this process runs as.
var userSID = sync.OnceValues(func() (*windows.SID, error) {
	t, err := windows.OpenCurrentProcessToken()
	if err != nil {
		return nil, err
	}
	defer t.Close()
	u, err := t.GetTokenUser()
	if err != nil {
		return nil, err
	}
	return u.User.Sid.Copy()
})

// socketPath is the endpoint's named pipe: its name carries a hash of the
// user's SID, so that each user's daemons have names of their own.
func socketPath(e Endpoint) string {
	user := "unknown"
	if sid, err := userSID(); err == nil {
		h := sha256.Sum256([]byte(sid.String()))
		user = hex.EncodeToString(h[:6])
	}
	return `\\.\pipe\lspkit-` + user + "-" + e.Name
}

// pipeBuffer is each direction's buffer of a pipe instance.
const pipeBuffer = 64 << 10

// pipeListener accepts connections on a named pipe: one instance waits
// for the next client at a time.
type pipeListener struct {
	name string
	sa   *windows.SecurityAttributes

	mu     sync.Mutex
	next   windows.Handle // the instance waiting for a client
	first  bool           // next is the pipe's first instance
	ol     *windows.Overlapped
	closed bool
}

// listen creates the named pipe path, its ACL admitting only this user,
// as its name's first instance: a pipe of that name made by anyone else
// first is an error, never joined.
func listen(path string) (net.Listener, error) {
	sid, err := userSID()
	if err != nil {
		return nil, fmt.Errorf("the user's SID: %w", err)
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;GA;;;" + sid.String() + ")")
	if err != nil {
		return nil, fmt.Errorf("the pipe's ACL: %w", err)
	}
	l := &pipeListener{name: path, first: true, sa: &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}}
	if err := l.instance(); err != nil {
		return nil, err
	}
	return l, nil
}

// instance creates the next pipe instance.
func (l *pipeListener) instance() error {
	name, err := windows.UTF16PtrFromString(l.name)
	if err != nil {
		return err
	}
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if l.first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	h, err := windows.CreateNamedPipe(name, flags, windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		windows.PIPE_UNLIMITED_INSTANCES, pipeBuffer, pipeBuffer, 0, l.sa)
	if err != nil {
		return fmt.Errorf("create named pipe %s: %w", l.name, err)
	}
	if l.first {
		// FILE_FLAG_FIRST_PIPE_INSTANCE refuses a name taken; a system
		// that ignores the flag (Wine) is caught by the count of
		// instances: ours must be the only one.
		var n uint32
		if err := windows.GetNamedPipeHandleState(h, nil, &n, nil, nil, nil, 0); err != nil || n != 1 {
			windows.CloseHandle(h)
			if err == nil {
				err = fmt.Errorf("%d instances: another process made it first", n)
			}
			return fmt.Errorf("create named pipe %s: %w", l.name, err)
		}
	}
	l.next, l.first = h, false
	return nil
}

// Accept waits for a client on the waiting instance, makes the next one
// and returns the connection.
func (l *pipeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, net.ErrClosed
	}
	h := l.next
	event, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		l.mu.Unlock()
		return nil, err
	}
	defer windows.CloseHandle(event)
	ol := &windows.Overlapped{HEvent: event}
	l.ol = ol
	l.mu.Unlock()
	err = windows.ConnectNamedPipe(h, ol)
	switch {
	case errors.Is(err, windows.ERROR_IO_PENDING):
		var n uint32
		err = windows.GetOverlappedResult(h, ol, &n, true)
	case errors.Is(err, windows.ERROR_PIPE_CONNECTED):
		err = nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ol = nil
	if l.closed {
		return nil, net.ErrClosed
	}
	if err != nil {
		windows.DisconnectNamedPipe(h)
		return nil, fmt.Errorf("connect named pipe: %w", err)
	}
	if err := l.instance(); err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return newPipeConn(h, l.name), nil
}

// Close stops accepting: the waiting instance's wait is cancelled and the
// instance closed.
func (l *pipeListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.ol != nil {
		windows.CancelIoEx(l.next, l.ol)
	}
	return windows.CloseHandle(l.next)
}

// Addr is the pipe's name.
func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.name) }

// pipeAddr is a named pipe's name as a net.Addr.
type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

// pipeConn is one end of a named pipe instance: an overlapped handle the
// runtime's poller serves, deadlines included.
type pipeConn struct {
	*os.File
	h    windows.Handle
	addr pipeAddr
}

func newPipeConn(h windows.Handle, name string) *pipeConn {
	return &pipeConn{File: os.NewFile(uintptr(h), name), h: h, addr: pipeAddr(name)}
}

func (c *pipeConn) LocalAddr() net.Addr  { return c.addr }
func (c *pipeConn) RemoteAddr() net.Addr { return c.addr }

// dial opens the named pipe path, waiting while every instance is busy.
func dial(ctx context.Context, path string) (net.Conn, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	for {
		h, err := windows.CreateFile(name, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING, windows.FILE_FLAG_OVERLAPPED|windows.SECURITY_SQOS_PRESENT|windows.SECURITY_IDENTIFICATION, 0)
		if err == nil {
			return newPipeConn(h, path), nil
		}
		if !errors.Is(err, windows.ERROR_PIPE_BUSY) {
			return nil, err
		}
		// Every instance is taken: the daemon makes the next at once.
		t := time.NewTimer(time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// samePeer checks that the client at c's other end runs as this user:
// its process's token user is ours (the pipe's ACL admits no one else).
func samePeer(c net.Conn) error {
	pc, ok := c.(*pipeConn)
	if !ok {
		return fmt.Errorf("not a named pipe: %T", c)
	}
	var pid uint32
	if err := windows.GetNamedPipeClientProcessId(pc.h, &pid); err != nil {
		return fmt.Errorf("the client's process: %w", err)
	}
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return fmt.Errorf("the client's process %d: %w", pid, err)
	}
	defer windows.CloseHandle(p)
	var t windows.Token
	if err := windows.OpenProcessToken(p, windows.TOKEN_QUERY, &t); err != nil {
		return fmt.Errorf("the client's process %d: token: %w", pid, err)
	}
	defer t.Close()
	u, err := t.GetTokenUser()
	if err != nil {
		return fmt.Errorf("the client's process %d: user: %w", pid, err)
	}
	me, err := userSID()
	if err != nil {
		return err
	}
	if !u.User.Sid.Equals(me) {
		return fmt.Errorf("the client's process %d runs as %s, not %s", pid, u.User.Sid, me)
	}
	return nil
}

// removeStale has nothing to do: a named pipe ends with its last handle.
func removeStale(string) error { return nil }
