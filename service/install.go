package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
)

// ServersDir is where installed servers live: $LSPKIT_SERVERS, or
// CacheDir/servers.
func (o *Orchestrator) ServersDir() string { return o.serversDir() }

// serversDir is where installed servers live: $LSPKIT_SERVERS, or
// CacheDir/servers (the layout conformance/servers/install.sh uses).
func (o *Orchestrator) serversDir() string {
	if d := os.Getenv("LSPKIT_SERVERS"); d != "" {
		return d
	}
	return filepath.Join(o.cacheDir, "servers")
}

// lookup finds a server command: an absolute path as is, else on PATH,
// else in the server cache's bin directory.
func (o *Orchestrator) lookup(command string) (string, bool) {
	if filepath.IsAbs(command) {
		info, err := os.Stat(command)
		return command, err == nil && !info.IsDir()
	}
	if p, err := exec.LookPath(command); err == nil {
		return p, true
	}
	p := filepath.Join(o.serversDir(), "bin", command)
	if info, err := os.Stat(p); err == nil && !info.IsDir() {
		return p, true
	}
	return "", false
}

// command returns the path of spec's executable, installing it first when
// it is missing, the spec has a recipe and autoInstall is on.
func (o *Orchestrator) command(ctx context.Context, spec *ServerSpec) (string, error) {
	if p, ok := o.lookup(spec.Command); ok {
		return p, nil
	}
	missing := fmt.Sprintf("%s not found on PATH or in %s", spec.Command, filepath.Join(o.serversDir(), "bin"))
	if spec.Install == nil {
		return "", fmt.Errorf("%s; install it and make it available on PATH, or set lsp.servers.%s.command", missing, spec.ID)
	}
	if !o.cfg.AutoInstall {
		return "", fmt.Errorf("%s; install it with: %s (or turn on autoInstall)", missing, spec.Install.describe())
	}
	if err := o.installs.install(ctx, o.serversDir(), spec); err != nil {
		return "", fmt.Errorf("%s and auto-install failed: %w", missing, err)
	}
	if p, ok := o.lookup(spec.Command); ok {
		return p, nil
	}
	return "", fmt.Errorf("%s even after installing it", missing)
}

// clientConfig is how a session starts its server's client.
func (o *Orchestrator) clientConfig(spec *ServerSpec, path, root string) client.Config {
	var env []string
	for _, k := range sortedKeys(spec.Env) {
		env = append(env, k+"="+spec.Env[k])
	}
	return client.Config{
		Name:                  spec.ID,
		Command:               client.Command{Path: path, Args: spec.Args, Env: env, Dir: root},
		Root:                  root,
		InitializationOptions: o.expand(spec.InitializationOptions),
		Settings:              o.expand(spec.Settings),
		Logger:                o.log,
		StopGrace:             o.grace,
		NoFileWatcher:         o.oneShot,
	}
}

// ClientConfig returns the client configuration the orchestrator would
// start server id with in root (its command looked up, not installed): for
// tools and tests that drive a client directly.
func (o *Orchestrator) ClientConfig(id, root string) (client.Config, error) {
	spec, ok := o.specs[id]
	if !ok {
		return client.Config{}, fmt.Errorf("no server %q", id)
	}
	path, ok := o.lookup(spec.Command)
	if !ok {
		return client.Config{}, fmt.Errorf("%s: %s not found", id, spec.Command)
	}
	return o.clientConfig(spec, path, root), nil
}

// describe is the command a person would run to install it.
func (in *Install) describe() string {
	if in.Kind == "go" {
		return "go install " + strings.Join(in.Packages, " ")
	}
	return "npm install -g " + strings.Join(in.Packages, " ")
}

// expand replaces ${servers} in a spec's JSON with the server cache path.
func (o *Orchestrator) expand(v jsontext.Value) jsontext.Value {
	if v == nil {
		return nil
	}
	quoted := strconv.Quote(o.serversDir())
	return jsontext.Value(strings.ReplaceAll(string(v), "${servers}", quoted[1:len(quoted)-1]))
}

// InstallProgress is one report from an auto-install: its start (Elapsed
// 0, with What), a tick about once a second, and its end (Done, with Err on
// failure).
type InstallProgress struct {
	Server  string
	What    string // the packages and where they go
	Elapsed time.Duration
	Done    bool
	Err     error
}

// String renders the report as one line.
func (p InstallProgress) String() string {
	switch {
	case p.Done && p.Err != nil:
		return fmt.Sprintf("lspkit: installing %s failed after %.0f s: %v", p.Server, p.Elapsed.Seconds(), p.Err)
	case p.Done:
		return fmt.Sprintf("lspkit: installed %s in %.0f s", p.Server, p.Elapsed.Seconds())
	case p.Elapsed == 0:
		return fmt.Sprintf("lspkit: installing %s (%s)", p.Server, p.What)
	}
	return fmt.Sprintf("lspkit: installing %s … %.0f s", p.Server, p.Elapsed.Seconds())
}

// installer installs servers, one install per server at a time: concurrent
// needs share it.
type installer struct {
	progress func(InstallProgress)
	mu       sync.Mutex
	running  map[string]*installCall
}

type installCall struct {
	done chan struct{}
	err  error
}

func newInstaller(progress func(InstallProgress)) *installer {
	return &installer{progress: progress, running: map[string]*installCall{}}
}

// install runs spec's recipe into dir (go install into dir/bin; npm into
// dir/npm/GROUP with a link in dir/bin), reporting progress.
func (i *installer) install(ctx context.Context, dir string, spec *ServerSpec) error {
	i.mu.Lock()
	call, ok := i.running[spec.ID]
	if !ok {
		call = &installCall{done: make(chan struct{})}
		i.running[spec.ID] = call
		go func() {
			call.err = i.run(ctx, dir, spec)
			i.mu.Lock()
			delete(i.running, spec.ID)
			i.mu.Unlock()
			close(call.done)
		}()
	}
	i.mu.Unlock()
	select {
	case <-call.done:
		return call.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (i *installer) run(ctx context.Context, dir string, spec *ServerSpec) error {
	in := spec.Install
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	var cmd *exec.Cmd
	switch in.Kind {
	case "go":
		gobin, err := exec.LookPath("go")
		if err != nil {
			return errors.New("installing " + spec.ID + " needs Go (go install), and go is not on PATH")
		}
		cmd = exec.CommandContext(ctx, gobin, append([]string{"install"}, in.Packages...)...)
		cmd.Env = append(os.Environ(), "GOBIN="+bin)
	case "npm":
		npm, err := exec.LookPath("npm")
		if err != nil {
			return errors.New("installing " + spec.ID + " needs npm, and npm is not on PATH")
		}
		prefix := filepath.Join(dir, "npm", in.Group)
		args := append([]string{"install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error"}, in.Packages...)
		cmd = exec.CommandContext(ctx, npm, args...)
	default:
		return fmt.Errorf("unknown install kind %q", in.Kind)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	i.progress(InstallProgress{Server: spec.ID, What: strings.Join(in.Packages, " ") + " into " + dir})
	start := time.Now()
	err := i.wait(cmd, spec.ID, start, &out)
	if err == nil && in.Kind == "npm" {
		target := filepath.Join(dir, "npm", in.Group, "node_modules", ".bin", in.Bin)
		link := filepath.Join(bin, spec.Command)
		os.Remove(link)
		err = os.Symlink(target, link)
	}
	i.progress(InstallProgress{Server: spec.ID, Elapsed: time.Since(start), Done: true, Err: err})
	return err
}

// wait runs the install command, ticking progress about once a second.
func (i *installer) wait(cmd *exec.Cmd, id string, start time.Time, out *strings.Builder) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("%s: %w: %s", cmd, err, lastLines(out.String(), 5))
			}
			return nil
		case <-tick.C:
			i.progress(InstallProgress{Server: id, Elapsed: time.Since(start)})
		}
	}
}

// lastLines returns the last n lines of s, joined with " | ".
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
