package shared

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// endpointFor is a fresh endpoint: its runtime directory under a temporary
// %LocalAppData%, its pipe named from a key no other test uses.
func endpointFor(t *testing.T) Endpoint {
	t.Helper()
	t.Setenv("LocalAppData", t.TempDir())
	e, err := For("v1", t.Name(), fmt.Sprint(time.Now().UnixNano()))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestPipeListenOnce: the lock admits one daemon; many clients at once are
// each served on an instance of their own, both ways, with deadlines the
// runtime's poller keeps; after Close nobody is serving, and the next
// daemon serves.
func TestPipeListenOnce(t *testing.T) {
	e := endpointFor(t)
	if !strings.HasPrefix(e.Socket(), `\\.\pipe\lspkit-`) {
		t.Fatalf("socket %s", e.Socket())
	}
	l, err := Listen(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(e, nil); !errors.Is(err, ErrRunning) {
		t.Fatalf("a second daemon: %v", err)
	}
	// The daemon echoes each line back, upper-cased.
	var served sync.WaitGroup
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			served.Add(1)
			go func() {
				defer served.Done()
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					c.Write([]byte(strings.ToUpper(line)))
				}
			}()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const clients = 8
	errs := make(chan error, clients)
	for i := range clients {
		go func() {
			errs <- func() error {
				c, err := dial(ctx, e.Socket())
				if err != nil {
					return fmt.Errorf("client %d: dial: %w", i, err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(20 * time.Second))
				r := bufio.NewReader(c)
				for j := range 20 {
					want := fmt.Sprintf("client %d line %d %s\n", i, j, strings.Repeat("x", 100*j))
					if _, err := c.Write([]byte(want)); err != nil {
						return fmt.Errorf("client %d: write: %w", i, err)
					}
					got, err := r.ReadString('\n')
					if err != nil || got != strings.ToUpper(want) {
						return fmt.Errorf("client %d: read %q, %v", i, got, err)
					}
				}
				// Nothing more comes: the read deadline ends the wait.
				c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				if _, err := r.ReadByte(); !errors.Is(err, os.ErrDeadlineExceeded) {
					return fmt.Errorf("client %d: a read past its deadline: %v", i, err)
				}
				return nil
			}()
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	l.Close()
	served.Wait()
	if _, err := Dial(ctx, e, AttachOptions{Surface: SurfaceRPC, Version: "v1"}); !errors.Is(err, errNotServing) {
		t.Fatalf("dial after Close: %v", err)
	}
	l, err = Listen(e, nil)
	if err != nil {
		t.Fatalf("the next daemon: %v", err)
	}
	l.Close()
}

// TestPipeACL: the pipe's DACL is protected (nothing inherited) and admits
// the user alone.
func TestPipeACL(t *testing.T) {
	e := endpointFor(t)
	l, err := Listen(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	h := l.ln.(*pipeListener).next
	sd, err := windows.GetSecurityInfo(h, windows.SE_KERNEL_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatalf("the pipe's security: %v", err)
	}
	control, _, err := sd.Control()
	if err != nil {
		t.Fatal(err)
	}
	if control&windows.SE_DACL_PROTECTED == 0 {
		t.Errorf("the DACL is not protected: control %#x", control)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		t.Fatalf("DACL: %v, %v", dacl, err)
	}
	me, err := userSID()
	if err != nil {
		t.Fatal(err)
	}
	if dacl.AceCount != 1 {
		t.Fatalf("%d ACEs, want 1 (%s)", dacl.AceCount, sd)
	}
	var ace *windows.ACCESS_ALLOWED_ACE
	if err := windows.GetAce(dacl, 0, &ace); err != nil {
		t.Fatal(err)
	}
	sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
	if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || !sid.Equals(me) {
		t.Fatalf("the ACE: type %d for %s, want allowed for %s", ace.Header.AceType, sid, me)
	}
}

// TestPipeTakenFirst: a pipe of the endpoint's name that another process
// made first is never joined: Listen fails, saying so, and lets the lock
// go.
func TestPipeTakenFirst(t *testing.T) {
	e := endpointFor(t)
	name, _ := windows.UTF16PtrFromString(e.Socket())
	squatter, err := windows.CreateNamedPipe(name, windows.PIPE_ACCESS_DUPLEX, windows.PIPE_TYPE_BYTE, windows.PIPE_UNLIMITED_INSTANCES, 4096, 4096, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := Listen(e, nil); err == nil {
		l.Close()
		windows.CloseHandle(squatter)
		t.Fatal("listened on a pipe another process made first")
	} else if !strings.Contains(err.Error(), "create named pipe") {
		t.Errorf("the error: %v", err)
	}
	windows.CloseHandle(squatter)
	l, err := Listen(e, nil)
	if err != nil {
		t.Fatalf("after the squatter left: %v", err)
	}
	l.Close()
}

// TestPipePeerIsUs: a client of this user is accepted (its process token
// read through the pipe) and its hello answered.
func TestPipePeerIsUs(t *testing.T) {
	e := endpointFor(t)
	l, err := Listen(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			err = samePeer(c)
			c.Close()
		}
		accepted <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := dial(ctx, e.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := <-accepted; err != nil {
		t.Fatalf("this user's client: %v", err)
	}
}
