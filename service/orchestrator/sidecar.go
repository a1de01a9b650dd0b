package orchestrator

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

// Sidecar states, as status reports them.
const (
	sidecarRunning     = "running"
	sidecarRestarting  = "restarting"
	sidecarBroken      = "broken"
	sidecarUnavailable = "unavailable"
	sidecarStopped     = "stopped"
)

// sidecar runs a server's helper command (config.Sidecar) in the server's
// root while the server runs: started after the server, restarted within
// the restart policy when it dies, stopped with the server. Its output
// goes to the daemon's log, tagged with the server id; it has the servers'
// orphan guarantees (process group, the orphan guard).
type sidecar struct {
	o    *Orchestrator
	id   string // the server's
	root string
	cfg  config.Sidecar
	stop chan struct{} // closed to stop it
	done chan struct{} // closed when run returns

	mu       sync.Mutex
	proc     *client.Process
	state    string
	reason   string
	restarts int
	crashes  []time.Time
}

// startSidecar starts the sidecar of the session's server, if it has one,
// and returns it (nil without one).
func (s *session) startSidecar() *sidecar {
	if s.spec.Sidecar == nil {
		return nil
	}
	sc := &sidecar{o: s.o, id: s.spec.ID, root: s.root, cfg: *s.spec.Sidecar, stop: make(chan struct{}), done: make(chan struct{}), state: sidecarRestarting}
	go sc.run()
	return sc
}

// run starts the command and restarts it when it dies, until stopped or
// past the restart policy.
func (sc *sidecar) run() {
	defer close(sc.done)
	o := sc.o
	for {
		p, err := sc.start()
		if err != nil {
			sc.set(sidecarUnavailable, err.Error())
			o.log.Warn("sidecar unavailable", "server", sc.id, "root", sc.root, "reason", err)
			<-sc.stop
			return
		}
		sc.mu.Lock()
		sc.proc, sc.state, sc.reason = p, sidecarRunning, ""
		sc.mu.Unlock()
		o.log.Info("sidecar started", "server", sc.id, "root", sc.root, "pid", p.PID(), "command", strings.Join(sc.cfg.Command, " "))
		select {
		case <-sc.stop:
			p.Stop(o.grace)
			sc.set(sidecarStopped, "")
			return
		case <-p.Done():
		}
		es := p.Exit()
		sc.mu.Lock()
		sc.proc = nil
		var backoff time.Duration
		var giveUp bool
		sc.crashes, backoff, giveUp = o.crashed(sc.crashes)
		crashes := len(sc.crashes)
		sc.mu.Unlock()
		reason := "exited: " + es.String()
		if giveUp {
			sc.set(sidecarBroken, fmt.Sprintf("exited %d times within %s, not restarted: %s", crashes, o.cfg.Restart.Window, reason))
			o.log.Error("sidecar broken", "server", sc.id, "root", sc.root, "reason", reason)
			<-sc.stop
			return
		}
		sc.mu.Lock()
		sc.restarts++
		sc.state, sc.reason = sidecarRestarting, reason
		sc.mu.Unlock()
		o.log.Warn("sidecar exited; restarting", "server", sc.id, "root", sc.root, "backoff", backoff, "reason", reason)
		t := time.NewTimer(backoff)
		select {
		case <-sc.stop:
			t.Stop()
			sc.set(sidecarStopped, "")
			return
		case <-t.C:
		}
	}
}

// start starts the command in the root, through the orphan guard, its
// stdout and stderr logged line by line.
func (sc *sidecar) start() (*client.Process, error) {
	name := sc.cfg.Command[0]
	if _, err := exec.LookPath(name); err != nil {
		return nil, fmt.Errorf("%s not found on PATH (the sidecar %q)", name, strings.Join(sc.cfg.Command, " "))
	}
	var env []string
	for _, k := range slices.Sorted(maps.Keys(sc.cfg.Env)) {
		env = append(env, k+"="+sc.cfg.Env[k])
	}
	stderr := &logLines{log: sc.o.log, server: sc.id, stream: "stderr"}
	p, err := client.StartProcess(client.Command{Path: name, Args: sc.cfg.Command[1:], Dir: sc.root, Env: env, Guard: sc.o.guard, Stderr: stderr})
	if err != nil {
		return nil, err
	}
	go func() {
		// Its stdout is logged as it comes (unread, a full pipe would
		// stop it); its stdin stays open until it stops.
		io.Copy(&logLines{log: sc.o.log, server: sc.id, stream: "stdout"}, p.Stdio())
	}()
	return p, nil
}

func (sc *sidecar) set(state, reason string) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.state, sc.reason = state, reason
}

// close stops the sidecar and waits until it has.
func (sc *sidecar) close() {
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

// kill ends the sidecar at once, without waiting.
func (sc *sidecar) kill() {
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

// status is the sidecar's part of a server's status.
func (sc *sidecar) status() *api.SidecarStatus {
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
