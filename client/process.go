package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// Command says how to start a language server.
type Command struct {
	Path string   // the executable, looked up in PATH when it has no slash
	Args []string // arguments after the executable
	Dir  string   // working directory: the workspace root
	Env  []string // extra KEY=VALUE entries on top of the daemon's environment
	// Guard, when set, is the command of an orphan guard (the lspkit
	// binary's "guard" mode: see GuardMain) to start the server through:
	// the guard kills the server's whole process group, children and
	// grandchildren included, when the daemon dies, even by SIGKILL.
	Guard []string
	// Stderr, when set, also receives what the process writes to stderr
	// (the last lines are kept either way: StderrTail).
	Stderr io.Writer
	// Breakaway lets the process start processes that outlive it (a
	// relay starting the shared daemon): on Windows its Job Object lets
	// a child that asks leave the job; elsewhere a child that starts its
	// own session already does.
	Breakaway bool
}

// Proc is a running language server as a Client uses it: its stream and
// its life. *Process is the real one; tests run servers in-process
// (internal/lsptest) behind the same interface.
type Proc interface {
	// Stdio is the server's input and output as one stream; closing it
	// closes both directions.
	Stdio() io.ReadWriteCloser
	// Done is closed when the server has exited.
	Done() <-chan struct{}
	// Exit describes how it ended; it waits for Done.
	Exit() ExitStatus
	// PID is its process id (0 for an in-process server).
	PID() int
	// Stop ends it (terminate, then kill after grace) and waits.
	Stop(grace time.Duration) ExitStatus
	// Kill ends it at once without waiting.
	Kill()
	// StderrTail returns its last stderr lines.
	StderrTail() []string
}

// Launch starts a server for a Command: StartProcess, or a test's
// in-process server.
type Launch func(ctx context.Context, cmd Command) (Proc, error)

// LaunchProcess is the Launch that starts a real process.
func LaunchProcess(_ context.Context, cmd Command) (Proc, error) { return StartProcess(cmd) }

var _ Proc = (*Process)(nil)

// stderrLines is how many of a server's last stderr lines a Process keeps.
const stderrLines = 50

// stderrHead is how many of a server's first stderr lines a Process keeps
// besides its last ones: a program that cannot start says why first and
// may then write more than stderrLines (a backtrace).
const stderrHead = 8

// A Process is a running language server. It runs in its own process group
// and is sent SIGKILL by the kernel if the thread that started it dies, so
// a crash of the daemon does not leave it behind.
type Process struct {
	cmd    *exec.Cmd
	ctl    processControl // its process group (job), per system
	pid    int            // the server's process id (the guard's child when guarded)
	life   *os.File       // with a guard: the pipe whose end tells it the daemon is gone
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *ring
	done   chan struct{} // closed when the process has been reaped
	state  *os.ProcessState
	err    error // from Wait
}

// WaitDelay is how long a server's exit is waited past its own for the
// processes it left holding its output.
const WaitDelay = 500 * time.Millisecond

// StartProcess starts the server. Its stdin and stdout are the LSP stream
// ([Process.Stdio]); its stderr is kept in a ring ([Process.StderrTail]).
func StartProcess(c Command) (*Process, error) {
	path, err := exec.LookPath(c.Path)
	if err != nil {
		return nil, fmt.Errorf("client: start %s: %w", c.Path, err)
	}
	cmd := exec.Command(path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	p := &Process{cmd: cmd, stderr: newRing(stderrLines), done: make(chan struct{})}
	guarded := len(c.Guard) > 0 && guardSupported
	// Its own process group (a job on Windows), so a stop reaches its
	// children; on Linux unguarded, it dies with the thread that started it.
	p.ctl.prepare(cmd, guarded, c.Breakaway)
	var pids *os.File // with a guard: where it says its server's pid
	if guarded {
		guard, err := exec.LookPath(c.Guard[0])
		if err != nil {
			return nil, fmt.Errorf("client: start %s: guard: %w", c.Path, err)
		}
		cmd.Path, cmd.Args = guard, append(append(slices.Clone(c.Guard), "--", path), c.Args...)
		lifeR, lifeW, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("client: start %s: guard: %w", c.Path, err)
		}
		pidR, pidW, err := os.Pipe()
		if err != nil {
			lifeR.Close()
			lifeW.Close()
			return nil, fmt.Errorf("client: start %s: guard: %w", c.Path, err)
		}
		cmd.ExtraFiles = []*os.File{lifeR, pidW}
		p.life, pids = lifeW, pidR
		defer lifeR.Close()
		defer pidW.Close()
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("client: start %s: %w", c.Path, err)
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, fmt.Errorf("client: start %s: %w", c.Path, err)
	}
	cmd.Stderr = p.stderr
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(p.stderr, c.Stderr)
	}
	// A grandchild that inherited stderr (gopls's telemetry helper) keeps
	// the pipe open after the server exits: Wait stops copying it after
	// WaitDelay instead of waiting for the grandchild.
	cmd.WaitDelay = WaitDelay
	// Pdeathsig fires when the OS thread that forked the child exits, and
	// the Go runtime may retire threads. So the child is started from a
	// goroutine locked to its thread, which then waits for the child: the
	// thread lives exactly as long as the server.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.err = cmd.Wait()
		p.state = cmd.ProcessState
		p.ctl.sweep(cmd.Process.Pid) // no child of the server outlives it
		close(p.done)
	}()
	if err := <-started; err != nil {
		if p.life != nil {
			p.life.Close()
			pids.Close()
		}
		return nil, fmt.Errorf("client: start %s: %w", c.Path, err)
	}
	p.pid = cmd.Process.Pid
	p.ctl.started(cmd.Process)
	if pids != nil {
		p.pid = guardedPID(pids, p.pid)
		go func() {
			<-p.done
			p.life.Close() // the guard is gone; nothing left to guard
		}()
	}
	return p, nil
}

// guardedPID reads the server's pid from its guard, or returns the
// guard's own if it says nothing (it failed to start the server).
func guardedPID(pids *os.File, guard int) int {
	defer pids.Close()
	var pid int
	if _, err := fmt.Fscan(pids, &pid); err != nil || pid <= 0 {
		return guard
	}
	return pid
}

// PID returns the server's process id.
func (p *Process) PID() int { return p.pid }

// ResidentBytes returns the resident memory of the process and its helpers
// (its process group, or its Job Object on Windows) and whether it could
// be measured.
func (p *Process) ResidentBytes() (uint64, bool) { return p.ctl.resident(p.pid) }

// Stdio returns the server's stdin and stdout as one stream. Closing it
// closes both pipes.
func (p *Process) Stdio() io.ReadWriteCloser { return stdio{p.stdout, p.stdin} }

// Done is closed when the server has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exit describes how the server ended; call it after Done is closed.
func (p *Process) Exit() ExitStatus {
	<-p.done
	es := ExitStatus{Code: -1, Stderr: p.stderr.lines(), StderrHead: p.stderr.first()}
	if p.state != nil {
		es.Code = p.state.ExitCode()
		if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			es.Signal = ws.Signal()
		}
	} else if p.err != nil {
		es.Err = p.err
	}
	return es
}

// StderrTail returns the last lines the server wrote to stderr.
func (p *Process) StderrTail() []string { return p.stderr.lines() }

// Stop ends the server's whole process group: terminate (SIGTERM), then
// kill (SIGKILL) if the server has not exited within grace. It returns when the server has been
// reaped; its children are gone or signalled by then too.
func (p *Process) Stop(grace time.Duration) ExitStatus {
	select {
	case <-p.done:
	default:
		p.ctl.terminate()
		select {
		case <-p.done:
		case <-time.After(grace):
			p.ctl.kill()
			<-p.done
		}
	}
	// The server is gone; anything left in its group (a child it did not
	// take down with it) is killed too.
	p.ctl.kill()
	return p.Exit()
}

// Kill kills the server's whole process group (job) and returns at once,
// without waiting for it to be reaped: for a caller about to exit, which
// has nothing to wait for.
func (p *Process) Kill() { p.ctl.kill() }

// ExitStatus is how a server process ended.
type ExitStatus struct {
	Code   int            // exit code, or -1 when killed by a signal
	Signal syscall.Signal // the signal that killed it, or 0
	Stderr []string       // its last stderr lines
	// StderrHead is its first stderr lines, where more than Stderr
	// holds were written (else Stderr starts with them).
	StderrHead []string
	Err        error // a failure to wait for it, if any
}

// Summary is how the server ended in one line for a person: the exit and
// the line of its stderr that says why (see TellingLine), never the
// whole of it — that is in String, for the log.
func (e ExitStatus) Summary() string {
	s := e.ending()
	if line := TellingLine(e.Lines()); line != "" {
		s += ": " + line
	}
	return s
}

// Lines is what the server wrote to stderr as far as it was kept: the
// first lines, then the last.
func (e ExitStatus) Lines() []string {
	if len(e.StderrHead) == 0 {
		return e.Stderr
	}
	return append(slices.Clip(e.StderrHead), e.Stderr...)
}

// maxTelling bounds the line Summary quotes.
const maxTelling = 240

// TellingLine picks from a program's stderr the one line that says what
// went wrong: the first that reads as an error ("error: …", "fatal: …",
// "panic: …", "TypeError: …", "ModuleNotFoundError: …"), else the first
// line that is not empty. It is cut to a readable length; "" when there
// is no line.
func TellingLine(lines []string) string {
	first := ""
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if first == "" {
			first = l
		}
		if readsAsError(l) {
			return cut(l)
		}
	}
	return cut(first)
}

// readsAsError reports whether a line opens with an error's word in its
// first two words — error, fatal, panic, any case ("error: …", "mise
// ERROR …", "Usage Error: …") — or with an exception type ("TypeError:",
// "java.lang.IllegalStateException:").
func readsAsError(l string) bool {
	words := strings.Fields(l)
	for _, w := range words[:min(2, len(words))] {
		switch strings.ToLower(strings.Trim(w, "[]:()")) {
		case "error", "fatal", "panic":
			return len(words) > 1
		}
	}
	if i := strings.IndexByte(l, ':'); i > 0 && !strings.ContainsAny(l[:i], " /\\") {
		name := l[:i]
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
			name = name[dot+1:]
		}
		return strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception")
	}
	return false
}

// cut shortens a line to maxTelling characters.
func cut(l string) string {
	if len(l) <= maxTelling {
		return l
	}
	i := maxTelling
	for i > 0 && !utf8.RuneStart(l[i]) {
		i--
	}
	return l[:i] + "…"
}

// ending is how the process ended: a signal, a failure to wait, or its
// exit status.
func (e ExitStatus) ending() string {
	switch {
	case e.Signal != 0:
		return fmt.Sprintf("killed by signal %d (%s)", int(e.Signal), e.Signal)
	case e.Err != nil:
		return e.Err.Error()
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

func (e ExitStatus) String() string {
	s := e.ending()
	switch {
	case len(e.StderrHead) > 0:
		s += "; stderr: " + strings.Join(e.StderrHead, " | ") + " | … | " + strings.Join(e.Stderr, " | ")
	case len(e.Stderr) > 0:
		s += "; stderr: " + strings.Join(e.Stderr, " | ")
	}
	return s
}

type stdio struct {
	io.ReadCloser
	io.WriteCloser
}

func (s stdio) Close() error { return errors.Join(s.WriteCloser.Close(), s.ReadCloser.Close()) }

// CloseWrite closes the server's input alone: the end of what it is sent.
func (s stdio) CloseWrite() error { return s.WriteCloser.Close() }

// ring keeps the last n lines written to it, and the first stderrHead
// of them once they are no longer among the last.
type ring struct {
	mu      sync.Mutex
	buf     []string
	next    int
	full    bool
	partial []byte
	head    []string
	count   int // lines added
}

func newRing(n int) *ring { return &ring{buf: make([]string, n)} }

// maxLine bounds one kept line; longer lines are cut.
const maxLine = 1024

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := strings.IndexByte(string(p), '\n')
		if i < 0 {
			r.partial = append(r.partial, p[:min(len(p), max(0, maxLine-len(r.partial)))]...)
			break
		}
		r.partial = append(r.partial, p[:min(i, max(0, maxLine-len(r.partial)))]...)
		r.add(string(r.partial))
		r.partial = r.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (r *ring) add(line string) {
	line = strings.TrimRight(line, "\r")
	if len(r.head) < stderrHead {
		r.head = append(r.head, line)
	}
	r.count++
	r.buf[r.next] = line
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
}

// first returns the first lines written when they are no longer among
// the last ones lines returns, else nil.
func (r *ring) first() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.count <= len(r.buf) {
		return nil
	}
	return slices.Clone(r.head)
}

func (r *ring) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	if r.full {
		out = append(out, r.buf[r.next:]...)
	}
	out = append(out, r.buf[:r.next]...)
	if len(r.partial) > 0 {
		out = append(out, string(r.partial))
	}
	return out
}
