// Package sidecar runs a language server's helper command (config.Sidecar:
// rojo beside luau-lsp, a watcher beside a server) in the server's root
// while the server runs: started after it, restarted within the restart
// policy when it dies, stopped with it, its output logged line by line
// with the server's id, with the servers' orphan guarantees (process
// group, the orphan guard).
package sidecar

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
)

// A Sidecar's states, as status reports them.
const (
	Running     = "running"
	Restarting  = "restarting"
	Broken      = "broken"
	Unavailable = "unavailable"
	Stopped     = "stopped"
)

// Options are what a Sidecar runs and how.
type Options struct {
	Server string // the server's id, in the log and its messages
	Root   string // where it runs: the server's root
	Config config.Sidecar
	Guard  []string      // the orphan guard's command (client.Command.Guard)
	Grace  time.Duration // how long it gets to stop before it is killed
	Log    *slog.Logger
	// Crashed applies the servers' restart policy to one more exit:
	// the exits still within its window, the wait before the restart,
	// and whether to give up.
	Crashed func(crashes []time.Time) ([]time.Time, time.Duration, bool)
	// Window is the policy's window, for the message of one given up on.
	Window time.Duration
}

// A Sidecar is a server's helper command, run and restarted while the
// server runs. A nil *Sidecar is none: its methods do nothing.
type Sidecar struct {
	opts Options
	stop chan struct{} // closed to stop it
	done chan struct{} // closed when run returns

	mu       sync.Mutex
	proc     *client.Process
	state    string
	reason   string
	restarts int
	crashes  []time.Time
}

// Start starts the sidecar in the background and returns it.
func Start(opts Options) *Sidecar {
	sc := &Sidecar{opts: opts, stop: make(chan struct{}), done: make(chan struct{}), state: Restarting}
	go sc.run()
	return sc
}

// run starts the command and restarts it when it dies, until stopped or
// past the restart policy.
func (sc *Sidecar) run() {
	defer close(sc.done)
	o := sc.opts
	for {
		p, err := sc.start()
		if err != nil {
			sc.set(Unavailable, err.Error())
			o.Log.Warn("sidecar unavailable", "server", sc.opts.Server, "root", sc.opts.Root, "reason", err)
			<-sc.stop
			return
		}
		sc.mu.Lock()
		sc.proc, sc.state, sc.reason = p, Running, ""
		sc.mu.Unlock()
		o.Log.Info("sidecar started", "server", sc.opts.Server, "root", sc.opts.Root, "pid", p.PID(), "command", strings.Join(sc.opts.Config.Command, " "))
		select {
		case <-sc.stop:
			p.Stop(o.Grace)
			sc.set(Stopped, "")
			return
		case <-p.Done():
		}
		es := p.Exit()
		sc.mu.Lock()
		sc.proc = nil
		var backoff time.Duration
		var giveUp bool
		sc.crashes, backoff, giveUp = o.Crashed(sc.crashes)
		crashes := len(sc.crashes)
		sc.mu.Unlock()
		reason := "exited: " + es.String()
		if giveUp {
			sc.set(Broken, fmt.Sprintf("exited %d times within %s, not restarted: %s", crashes, o.Window, reason))
			o.Log.Error("sidecar broken", "server", sc.opts.Server, "root", sc.opts.Root, "reason", reason)
			<-sc.stop
			return
		}
		sc.mu.Lock()
		sc.restarts++
		sc.state, sc.reason = Restarting, reason
		sc.mu.Unlock()
		o.Log.Warn("sidecar exited; restarting", "server", sc.opts.Server, "root", sc.opts.Root, "backoff", backoff, "reason", reason)
		t := time.NewTimer(backoff)
		select {
		case <-sc.stop:
			t.Stop()
			sc.set(Stopped, "")
			return
		case <-t.C:
		}
	}
}

// start starts the command in the root, through the orphan guard, its
// stdout and stderr logged line by line.
func (sc *Sidecar) start() (*client.Process, error) {
	name := sc.opts.Config.Command[0]
	if _, err := exec.LookPath(name); err != nil {
		return nil, fmt.Errorf("%s not found on PATH (the sidecar %q)", name, strings.Join(sc.opts.Config.Command, " "))
	}
	var env []string
	for _, k := range slices.Sorted(maps.Keys(sc.opts.Config.Env)) {
		env = append(env, k+"="+sc.opts.Config.Env[k])
	}
	stderr := &logLines{log: sc.opts.Log, server: sc.opts.Server, stream: "stderr"}
	p, err := client.StartProcess(client.Command{Path: name, Args: sc.opts.Config.Command[1:], Dir: sc.opts.Root, Env: env, Guard: sc.opts.Guard, Stderr: stderr})
	if err != nil {
		return nil, err
	}
	go func() {
		// Its stdout is logged as it comes (unread, a full pipe would
		// stop it); its stdin stays open until it stops.
		io.Copy(&logLines{log: sc.opts.Log, server: sc.opts.Server, stream: "stdout"}, p.Stdio())
	}()
	return p, nil
}

func (sc *Sidecar) set(state, reason string) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.state, sc.reason = state, reason
}

// Close stops the sidecar and waits until it has.
func (sc *Sidecar) Close() {
	if sc == nil {
		return
	}
	select {
	case <-sc.stop:
	default:
		close(sc.stop)
	}
	<-sc.done
}

// Kill ends the sidecar at once, without waiting.
func (sc *Sidecar) Kill() {
	if sc == nil {
		return
	}
	sc.mu.Lock()
	p := sc.proc
	sc.mu.Unlock()
	if p != nil {
		p.Kill()
	}
}

// Status is the sidecar's part of a server's status.
func (sc *Sidecar) Status() *api.SidecarStatus {
	if sc == nil {
		return nil
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	st := &api.SidecarStatus{Status: sc.state, Reason: sc.reason, Restarts: sc.restarts}
	if sc.proc != nil {
		st.PID = sc.proc.PID()
	}
	return st
}

// logLines writes what a sidecar prints to the daemon's log, a record per
// line, tagged with its server.
type logLines struct {
	log     *slog.Logger
	server  string
	stream  string
	partial []byte
}

func (l *logLines) Write(p []byte) (int, error) {
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.log.Info("sidecar output", "server", l.server, "stream", l.stream, "line", string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	if len(l.partial) > 64<<10 { // a line that never ends is logged in pieces
		l.log.Info("sidecar output", "server", l.server, "stream", l.stream, "line", string(l.partial))
		l.partial = nil
	}
	l.partial = slices.Clip(l.partial)
	return len(p), nil
}
