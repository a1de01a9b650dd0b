package lsptest

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
)

// Launcher starts fake servers in-process, as client.Launch: a command's
// first argument names its behavior. It counts the servers it started.
type Launcher struct {
	Behaviors map[string]Behavior

	mu       sync.Mutex
	launched map[string]int
	running  []*Proc
}

// Launch is a client.Launch.
func (l *Launcher) Launch(_ context.Context, cmd client.Command) (client.Proc, error) {
	if len(cmd.Args) == 0 {
		return nil, fmt.Errorf("lsptest: the command has no behavior argument")
	}
	b, ok := l.Behaviors[cmd.Args[0]]
	if !ok {
		return nil, fmt.Errorf("lsptest: no behavior %q", cmd.Args[0])
	}
	p := Start(b)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.launched == nil {
		l.launched = map[string]int{}
	}
	l.launched[cmd.Args[0]]++
	l.running = append(l.running, p)
	return p, nil
}

// Launched returns how many servers of a behavior were started.
func (l *Launcher) Launched(behavior string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.launched[behavior]
}

// Alive returns how many started servers have not exited.
func (l *Launcher) Alive() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, p := range l.running {
		select {
		case <-p.done:
		default:
			n++
		}
	}
	return n
}

// Documents returns how many documents the running fake servers have open,
// and how many saves they were sent in all.
func (l *Launcher) Documents() (open, saves int) {
	l.eachServer(func(p *Proc) {
		saves += p.srv.saves
		select {
		case <-p.done:
		default:
			open += len(p.srv.docs)
		}
	})
	return open, saves
}

// Open returns the documents the running fake servers have open, sorted.
func (l *Launcher) Open() []protocol.DocumentURI {
	var out []protocol.DocumentURI
	l.eachServer(func(p *Proc) {
		select {
		case <-p.done:
		default:
			for uri := range p.srv.docs {
				out = append(out, uri)
			}
		}
	})
	slices.Sort(out)
	return out
}

// OpenOnce returns the documents the fake servers hold once they have
// read the closes sent to them (notifications, taken in their own time):
// when n are open, or after 10 s.
func (l *Launcher) OpenOnce(n int) []protocol.DocumentURI {
	deadline := time.Now().Add(10 * time.Second)
	for {
		uris := l.Open()
		if len(uris) == n || time.Now().After(deadline) {
			return uris
		}
		<-time.After(10 * time.Millisecond)
	}
}

// eachServer calls fn for each fake server launched, under the launcher's
// lock and the server's.
func (l *Launcher) eachServer(fn func(p *Proc)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.running {
		if p.srv == nil {
			continue
		}
		p.srv.mu.Lock()
		fn(p)
		p.srv.mu.Unlock()
	}
}

// WatchedFiles returns how many workspace/didChangeWatchedFiles
// notifications the fake servers were sent in all, and how many file
// events they carried.
func (l *Launcher) WatchedFiles() (notifications, events int) {
	l.eachServer(func(p *Proc) {
		notifications += p.srv.watchNotes
		events += p.srv.watchEvents
	})
	return notifications, events
}

// Commands returns how many workspace/executeCommand requests the fake
// servers were sent in all.
func (l *Launcher) Commands() int {
	n := 0
	l.eachServer(func(p *Proc) { n += p.srv.commands })
	return n
}

// Proc is an in-process fake server behind client.Proc: its stream is a
// pair of pipes, its exit ends the server's connection.
type Proc struct {
	client    io.ReadWriteCloser
	serverEnd io.Closer
	srv       *server // nil for Serve's
	done      chan struct{}
	once      sync.Once
	status    client.ExitStatus
}

var _ client.Proc = (*Proc)(nil)

// Start starts a fake server with behavior b.
func Start(b Behavior) *Proc {
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	p := &Proc{
		client: pipeConn{toClientR, toServerW},
		done:   make(chan struct{}),
	}
	server := pipeConn{toServerR, toClientW}
	p.serverEnd = server
	p.srv = serve(b, server, toClientW, p.exit)
	go func() {
		<-p.srv.conn.Done()
		p.exit(0, "")
	}()
	return p
}

// exit ends the server with an exit code (or a signal, for code < 0) and
// a last stderr line.
func (p *Proc) exit(code int, stderr string) {
	p.once.Do(func() {
		p.status = client.ExitStatus{Code: code}
		if code < 0 {
			p.status.Signal = syscall.Signal(-code)
			p.status.Code = -1
		}
		if stderr != "" {
			p.status.Stderr = []string{stderr}
		}
		p.serverEnd.Close()
		close(p.done)
	})
}

// Stdio is the client's end of the server's stream.
func (p *Proc) Stdio() io.ReadWriteCloser { return p.client }

// Done is closed when the server has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exit says how it ended.
func (p *Proc) Exit() client.ExitStatus {
	<-p.done
	return p.status
}

// PID is 0: there is no process.
func (p *Proc) PID() int { return 0 }

// Stop ends the server as a terminate would, unless it has exited.
func (p *Proc) Stop(time.Duration) client.ExitStatus {
	p.exit(-int(syscall.SIGTERM), "")
	return p.Exit()
}

// Kill ends the server as a kill would.
func (p *Proc) Kill() { p.exit(-int(syscall.SIGKILL), "") }

// StderrTail returns the server's last stderr line, if it wrote one.
func (p *Proc) StderrTail() []string {
	select {
	case <-p.done:
		return p.status.Stderr
	default:
		return nil
	}
}

// pipeConn is one side of a pipe pair as a stream.
type pipeConn struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (c pipeConn) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c pipeConn) Write(b []byte) (int, error) { return c.w.Write(b) }
func (c pipeConn) Close() error {
	c.r.Close()
	return c.w.Close()
}

// Serve runs serve, any server that reads its input from in and writes its
// output to out until in ends, in-process behind a client.Proc (a replayed
// transcript, say). The server has exited when serve returns.
func Serve(serve func(in io.Reader, out io.Writer)) *Proc {
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	p := &Proc{client: pipeConn{toClientR, toServerW}, done: make(chan struct{})}
	p.serverEnd = pipeConn{toServerR, toClientW}
	go func() {
		serve(toServerR, toClientW)
		p.exit(0, "")
	}()
	return p
}
