package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/service/registry"
)

// probeTimeout bounds one server's one-shot start in doctor: a server
// that takes longer is not called broken, only not proven.
const probeTimeout = 30 * time.Second

// probeStopGrace bounds a started server's shutdown in doctor.
const probeStopGrace = 5 * time.Second

// probesAtOnce is how many servers doctor starts at once.
const probesAtOnce = 4

// startEachServer starts each server doctor found that this root's files
// need, once — initialize, then shutdown — so that found means it runs: a
// rustup proxy without its component, a pyenv shim of another Python, a
// binary that crashes at start are found on PATH and still cannot serve.
// The other found servers whose command is a toolchain manager's stand-in
// are asked their version. What failed is said in the server's finding,
// in one line, with the fix where lspkit knows it.
func startEachServer(ctx context.Context, root string, cfg config.Config, servers []doctorServer) {
	o, err := orchestrator.New(orchestrator.Options{Root: root, Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return // the root was reported already; nothing is proven
	}
	defer o.Kill()
	p := pool.New().WithMaxGoroutines(probesAtOnce)
	for i := range servers {
		s := &servers[i]
		switch {
		case s.State != "found":
		case s.Needed:
			p.Go(func() { probeServer(ctx, o, root, s) })
		case registry.ProxyOf(s.Path) != "":
			// Not for this root's files: a stand-in is asked its version
			// (which it cannot give without the real program), not started
			// as a server.
			p.Go(func() { probeVersion(ctx, s) })
		}
	}
	p.Wait()
}

// probeVersion runs a found server's command with --version, for a
// toolchain manager's stand-in: one without the real program says so and
// exits, and that is told as probeServer tells it.
func probeVersion(ctx context.Context, s *doctorServer) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Path, "--version")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil || ctx.Err() != nil {
		return
	}
	lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
	d := registry.Diagnose(s.Path, lines)
	if !d.Missing {
		return // it may not take --version; only a known message is told
	}
	why := client.TellingLine(lines)
	s.State, s.Hint = "missing", d.Fix
	s.Probe = fmt.Sprintf("its command is %s's proxy, which says: %s", d.Proxy, why)
}

// probeServer starts one server and records how that went in s.
func probeServer(ctx context.Context, o *orchestrator.Orchestrator, root string, s *doctorServer) {
	cc, err := o.ClientConfig(s.ID, root)
	if err != nil {
		s.Probe = "not started: " + err.Error()
		return
	}
	cc.NoFileWatcher = true
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	start := time.Now()
	c, err := client.Start(ctx, cc)
	if err == nil {
		s.Probe = fmt.Sprintf("started in %s", time.Since(start).Round(10*time.Millisecond))
		// Shut down as a client does, not killed: a server that starts a
		// daemon of its own (biome's __run_server, in a session of its
		// own, beyond the process group) stops it only when told.
		stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeStopGrace)
		defer cancel()
		if c.Shutdown(stop) != nil {
			c.Kill()
		}
		return
	}
	var se *client.StartError
	switch {
	case ctx.Err() != nil:
		s.Probe = fmt.Sprintf("did not answer initialize within %s (a busy machine, or a large project): not proven", probeTimeout)
	case errors.As(err, &se) && se.Exited:
		why := se.Summary()
		d := registry.Diagnose(s.Path, se.Exit.Lines())
		if d.Missing {
			s.State = "missing"
			s.Probe = fmt.Sprintf("its command is %s's proxy, which says: %s", d.Proxy, why)
			s.Hint = d.Fix
		} else {
			s.State = "broken"
			s.Probe = "cannot start: " + why
			s.Hint = s.Path
		}
		s.Problem = fmt.Sprintf("%s is %s: %s", s.ID, s.State, why)
		if d.Fix != "" {
			s.Problem += "; fix: " + d.Fix
		}
	default:
		why := err.Error()
		if se != nil {
			why = se.Summary()
		}
		s.State = "broken"
		s.Probe = "cannot start: " + why
		s.Problem = fmt.Sprintf("%s is broken: %s", s.ID, why)
	}
	if !s.Needed {
		s.Problem = "" // said in its line; no file of its type is here
	}
}
